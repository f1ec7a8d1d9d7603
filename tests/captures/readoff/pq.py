#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Read the post-quantum facts of pcaps/pq-*.pcap off the bytes with tshark's own
fields (tls.*, tcp.*, ip.*; no tlsneg), for pq.json and pcaps/README-post-quantum.md.

  python3 tests/captures/readoff/pq.py pcaps/pq-*.pcap > tests/captures/readoff/pq.json
  python3 tests/captures/readoff/pq.py --md pcaps/pq-*.pcap     # the README-post-quantum.md tables

Per hello (ClientHello, ServerHello, HelloRetryRequest: the frame where tshark
shows tls.handshake.type, the one that completes it): TCP stream, sender,
message length (4 + tls.handshake.length), the TCP segments that carried it
(tcp.segment, or the frame itself when tshark did not reassemble) with their
tcp.len, versions, supported_groups, key shares (group, key_exchange length),
the group a ServerHello selected (its key_share group, or for TLS 1.2 the
ServerKeyExchange's named curve) or a HelloRetryRequest asked for. Per TCP
stream: every SYN, FIN, RST and plaintext alert, with frame and side. Wireshark
4.0 knows 0x11ec only as a number; the names here are this script's.
"""
import json
import os
import subprocess
import sys

HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
GROUPS = {0x001d: "x25519", 0x001e: "x448", 0x0017: "secp256r1", 0x0018: "secp384r1",
          0x0019: "secp521r1", 0x0100: "ffdhe2048", 0x0101: "ffdhe3072", 0x0102: "ffdhe4096",
          0x0103: "ffdhe6144", 0x0104: "ffdhe8192", 0x11ec: "X25519MLKEM768",
          0x11eb: "SecP256r1MLKEM768", 0x11ed: "SecP384r1MLKEM1024", 0x0201: "MLKEM768",
          0x0202: "MLKEM1024", 0x001f: "brainpoolP256r1tls13", 0x0020: "brainpoolP384r1tls13",
          0x0021: "brainpoolP512r1tls13", 0x0200: "MLKEM512", 0x6399: "X25519Kyber768Draft00"}

FIELDS = ["frame.number", "frame.time_relative", "tcp.stream", "ip.src", "tcp.srcport",
          "tcp.len", "tcp.flags.syn", "tcp.flags.ack", "tcp.flags.fin", "tcp.flags.reset",
          "tls.handshake.type", "tls.handshake.length", "tcp.segment", "tcp.segment.count",
          "tls.handshake.version", "tls.handshake.extensions.supported_version",
          "tls.handshake.extensions_supported_group", "tls.handshake.extensions_key_share_group",
          "tls.handshake.extensions_key_share_key_exchange_length",
          "tls.handshake.extensions_key_share_selected_group", "tls.handshake.random",
          "tls.handshake.server_named_curve", "tls.alert_message.level", "tls.alert_message.desc",
          "tls.record.content_type", "tls.record.length"]


def rows(path):
    args = ["tshark", "-r", path, "-o", "tcp.relative_sequence_numbers:TRUE", "-T", "fields",
            "-E", "occurrence=a", "-E", "aggregator=,", "-E", "separator=\t"]
    for f in FIELDS:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        vals = line.split("\t")
        yield {f: (v.split(",") if v else []) for f, v in zip(FIELDS, vals)}


def num(v):
    return int(v, 0)


def hexs(vals):
    return ["0x%04x" % num(v) for v in vals]


def read_capture(path):
    frames = list(rows(path))
    by_frame = {num(r["frame.number"][0]): r for r in frames}
    client = None
    hellos, streams = [], {}
    for r in frames:
        fno = num(r["frame.number"][0])
        stream = num(r["tcp.stream"][0])
        src = r["ip.src"][0]
        if client is None and r["tcp.flags.syn"] == ["1"] and r["tcp.flags.ack"] == ["0"]:
            client = src
        side = "client" if src == client else "server"
        ev = streams.setdefault(stream, [])
        t = round(float(r["frame.time_relative"][0]), 6)
        if r["tcp.flags.syn"] == ["1"] and r["tcp.flags.ack"] == ["0"]:
            ev.append({"frame": fno, "time": t, "what": "SYN", "side": side})
        if r["tcp.flags.fin"] == ["1"]:
            ev.append({"frame": fno, "time": t, "what": "FIN", "side": side})
        if r["tcp.flags.reset"] == ["1"]:
            ev.append({"frame": fno, "time": t, "what": "RST", "side": side})
        for lvl, desc in zip(r["tls.alert_message.level"], r["tls.alert_message.desc"]):
            ev.append({"frame": fno, "time": t, "what": "alert", "side": side,
                       "level": num(lvl), "desc": num(desc)})
        types = [num(x) for x in r["tls.handshake.type"]]
        if 1 not in types and 2 not in types:
            continue
        # Fields of the frame's hello (a frame carries at most one here).
        htype = 1 if 1 in types else 2
        idx = types.index(htype)
        segs = [num(x) for x in r["tcp.segment"]] or [fno]
        h = {"frame": fno, "stream": stream, "side": side, "time": t,
             "type": "ClientHello" if htype == 1 else "ServerHello",
             "length": 4 + num(r["tls.handshake.length"][idx]),
             "segments": len(segs), "segment_frames": segs,
             "segment_lengths": [num(by_frame[s]["tcp.len"][0]) for s in segs],
             "legacy_version": hexs(r["tls.handshake.version"][:1])[0],
             "supported_versions": hexs(r["tls.handshake.extensions.supported_version"])}
        if htype == 1:
            h["groups"] = hexs(r["tls.handshake.extensions_supported_group"])
        else:
            rnd = r["tls.handshake.random"][0].replace(":", "")
            h["hrr"] = rnd == HRR_RANDOM
            if h["hrr"]:
                h["type"] = "HelloRetryRequest"
                h["group_selected"] = hexs(r["tls.handshake.extensions_key_share_selected_group"])[0]
            elif r["tls.handshake.extensions_key_share_group"]:
                h["group_selected"] = hexs(r["tls.handshake.extensions_key_share_group"])[0]
            elif r["tls.handshake.server_named_curve"]:
                h["group_selected"] = hexs(r["tls.handshake.server_named_curve"])[0]
                h["group_selected_from"] = "ServerKeyExchange named_curve"
        shares = [{"group": g, "length": num(n)} for g, n in
                  zip(hexs(r["tls.handshake.extensions_key_share_group"]),
                      r["tls.handshake.extensions_key_share_key_exchange_length"])]
        if shares and not h.get("hrr"):
            h["key_shares"] = shares
        hellos.append(h)
    return {"capture": "pcaps/" + os.path.basename(path), "frames": len(frames),
            "client": client, "hellos": hellos,
            "streams": {str(k): v for k, v in sorted(streams.items())}}


def name(g):
    return "%s %s" % (g, GROUPS.get(int(g, 16), "?"))


def md(cap):
    out = ["#### %s (%d frames)" % (cap["capture"], cap["frames"]), "",
           "| frame | stream | message | length | segments (frames: bytes) | versions | groups | key shares | selected |",
           "|---|---|---|---|---|---|---|---|---|"]
    for h in cap["hellos"]:
        segs = ", ".join("%d: %d" % x for x in zip(h["segment_frames"], h["segment_lengths"]))
        vers = " ".join(h["supported_versions"]) or "legacy " + h["legacy_version"]
        groups = " ".join(h.get("groups", []))
        shares = ", ".join("%s (%d)" % (name(s["group"]), s["length"]) for s in h.get("key_shares", []))
        sel = name(h["group_selected"]) if "group_selected" in h else ""
        out.append("| %d | %d | %s | %d | %d (%s) | %s | %s | %s | %s |" % (
            h["frame"], h["stream"], h["type"], h["length"], h["segments"], segs, vers, groups,
            shares, sel))
    out.append("")
    for s, evs in cap["streams"].items():
        parts = []
        for e in evs:
            what = e["what"] if e["what"] != "alert" else "alert %d/%d" % (e["level"], e["desc"])
            parts.append("%s %d (%s, %.3f s)" % (what, e["frame"], e["side"], e["time"]))
        out.append("- stream %s: %s" % (s, "; ".join(parts)))
    out.append("")
    return "\n".join(out)


def main(argv):
    as_md = "--md" in argv
    caps = [read_capture(p) for p in argv[1:] if p != "--md"]
    if as_md:
        print("\n".join(md(c) for c in caps))
    else:
        print(json.dumps({"format": 1, "source": "tshark's own fields, tests/captures/readoff/pq.py",
                          "captures": caps}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
