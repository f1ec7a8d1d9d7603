#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write a capture's sequence of events in the text format of lib/replay/events.h
(hellos with their record version, plaintext alerts and the TLS alerts of
QUIC CONNECTION_CLOSE frames, TCP FIN and RST), read
with tshark's own dissection (no tlsneg involved), for `tlsneg-dump --events`
and the session unit tests.

    python3 -m tests.captures.extract_events CAPTURE > CAPTURE.events

A DTLS message fragmented over records comes out once, reassembled, in the
record that completes it, with the header of one whole fragment."""
import datetime
import json
import os
import sys

from tests.captures.extract_hellos import (first, collect, dissection, messages, quic_alerts,
                                           sslv2_records)


def time_us(epoch):
    """frame.time_epoch in microseconds: seconds since 1970 as tshark 4.0 and
    4.4 print it, or the UTC date and time that 4.6 prints
    (2026-12-03T10:45:51.123456789Z)."""
    if "T" in epoch:
        day, _, rest = epoch.rstrip("Z").partition("T")
        clock, _, frac = rest.partition(".")
        stamp = datetime.datetime.fromisoformat(f"{day}T{clock}+00:00")
        return int(stamp.timestamp()) * 1000000 + int((frac + "000000")[:6])
    secs, _, frac = epoch.partition(".")
    return int(secs) * 1000000 + int((frac + "000000")[:6])


def dtls_reassemble(hexed, flow, pending):
    """A whole DTLS message as hex: hexed itself, or once its fragments
    cover it, the reassembled message; None while parts are missing."""
    b = bytes.fromhex(hexed)
    if len(b) < 12:
        return hexed
    length = int.from_bytes(b[1:4], "big")
    seq = int.from_bytes(b[4:6], "big")
    off, flen = int.from_bytes(b[6:9], "big"), int.from_bytes(b[9:12], "big")
    if off == 0 and flen == length:
        return hexed
    key = (flow, b[0], seq, length)
    parts = pending.setdefault(key, {})
    parts[off] = b[12:12 + flen]
    body = bytearray(length)
    have = [False] * length
    for o, data in parts.items():
        for i, x in enumerate(data):
            if o + i < length:
                body[o + i] = x
                have[o + i] = True
    if not all(have):
        return None
    del pending[key]
    header = bytes([b[0]]) + length.to_bytes(3, "big") + seq.to_bytes(2, "big") + \
        (0).to_bytes(3, "big") + length.to_bytes(3, "big")
    return (header + bytes(body)).hex()


def records(layer, proto, wire, frame, flow=None, pending=None):
    """The layer's hellos and alerts in wire order, each with its record's version."""
    out = []
    recs = layer.get(proto + ".record", [])
    raws = layer.get(proto + ".record_raw", [])
    for i, rec in enumerate(recs):
        if not isinstance(rec, dict):
            continue
        rv = first(rec, proto + ".record.version")
        found = []
        if proto == "tls" and rv == "0x0002":
            # SSLv2-compatible: the message follows the 2-byte record header.
            if i < len(raws):
                sslv2_records({"tls.record": [rec], "tls.record_raw": [raws[i]]}, frame, found)
            out += [("hello", "ssl2", "0x0002", m["hex"]) for m in found]
            continue
        messages(rec, proto, wire, frame, found)
        for m in found:
            hexed = m["hex"]
            if proto == "dtls":
                hexed = dtls_reassemble(hexed, flow, pending)
            if hexed is not None:
                out.append(("hello", wire, rv or "-", hexed))
        levels = collect(rec, proto + ".alert_message.level", [])
        for i, desc in enumerate(collect(rec, proto + ".alert_message.desc", [])):
            # Its level as tshark reads it (1 warning, 2 fatal).
            level = f"level={int(levels[i])} " if i < len(levels) else ""
            out.append(("alert", wire, rv, f"{level}{int(desc)}"))
    return out


def extract(path, tshark="tshark"):
    lines = []
    pending = {}
    clients = {}
    opened = {}
    closed = set()
    for pkt in dissection(path, tshark):
        layers = pkt["_source"][0]["layers"][0]
        fr = first(layers, "frame")
        frame = int(first(fr, "frame.number"))
        t = time_us(first(fr, "frame.time_epoch"))
        ip = first(layers, "ip") or first(layers, "ipv6")
        if not ip:
            continue
        v = "ip" if "ip" in layers else "ipv6"
        src, dst = first(ip, v + ".src"), first(ip, v + ".dst")
        tcp, udp = first(layers, "tcp"), first(layers, "udp")
        tr = "tcp" if tcp else "udp" if udp else None
        if not tr:
            continue
        l4 = tcp or udp
        sport, dport = first(l4, tr + ".srcport"), first(l4, tr + ".dstport")
        head = f"{frame} {t} {tr} {src} {sport} {dst} {dport}"
        if tcp:
            # Who sent it, as TCP tells (the sender of the SYN is the
            # client), as both front ends know it.
            flags = first(tcp, "tcp.flags_tree") or {}
            pair = frozenset(((src, sport), (dst, dport)))
            if (first(flags, "tcp.flags.syn") in ("1", "True")
                    and first(flags, "tcp.flags.ack") not in ("1", "True")):
                clients[pair] = (src, sport)
                if pair in closed:  # a new connection on the same ports
                    closed.discard(pair)
                    opened[pair] = t
            if pair in clients:
                side = "client" if clients[pair] == (src, sport) else "server"
                head += f" from={side}"
            # When the connection began: its first frame, as TCP keeps it
            # (the plugin) and as tlsneg-pcap's flow does.
            head += f" opened={opened.setdefault(pair, t)}"
        evs = []
        for proto, wire in (("tls", "tls"), ("dtls", "dtls")):
            for layer in layers.get(proto, []):
                if isinstance(layer, dict):
                    evs += records(layer, proto, wire, frame, (src, sport, dst, dport), pending)
        for layer in layers.get("quic", []):
            # One QUIC packet: its hellos, then the TLS alert of its
            # CONNECTION_CLOSE, which carries no level (RFC 9001 4.8).
            found = []
            messages(layer, "tls", "quic", frame, found)
            evs += [("hello", "quic", "-", m["hex"]) for m in found]
            evs += [("alert", "quic", "-", str(a)) for a in quic_alerts(layer)]
        for kind, wire, rv, data in evs:
            if kind == "hello":
                lines.append(f"hello {head} {wire} {rv} {data}")
            else:
                # A DTLS or QUIC alert says its wire (events.h: wire=), the
                # server's transport.
                lines.append(f"alert {head}{' wire=' + wire if wire != 'tls' else ''} {data}")
        if tcp:
            flags = first(tcp, "tcp.flags_tree") or {}
            if first(flags, "tcp.flags.reset") in ("1", "True"):
                lines.append(f"rst {head}")
                closed.add(pair)
            elif first(flags, "tcp.flags.fin") in ("1", "True"):
                lines.append(f"fin {head}")
                closed.add(pair)
    return lines


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(f"# {os.path.basename(path)}")
        for line in extract(path):
            print(line)
