#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Add the key-exchange lines (group, key_share_group, key_share_length,
group_selected, pq_offered, pq_key_share, pq_selected, hello_length,
hello_segments) to the msg blocks of manifests, read off tshark's own
dissection (tests/captures/extract_hellos.py: tls.handshake.extensions_supported_group,
_key_share_group, _key_share_key_exchange_length, _key_share_selected_group,
tls.handshake.length; for hello_segments the frame's bytes and tcp.segments:
tcp.segment, tcp.segment_raw's place in tcp.reassembled.data), never off
tlsneg. A throw-away helper, run once per manifest by hand:

    python3 -m tests.captures.readoff.keyexchange tests/captures/expect/X.expect...

The post-quantum groups are those of the IANA TLS Supported Groups registry
(ML-KEM 0x0200-0x0202, the ECDHE-MLKEM hybrids 0x11eb-0x11ed, the Kyber
drafts 0x6399 and 0x639a), written down here apart from lib/core/groups.c.
"""
import collections
import os
import re
import sys

from tests.captures.extract_hellos import dissection, extract, first

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PQ = {0x0200, 0x0201, 0x0202, 0x11eb, 0x11ec, 0x11ed, 0x6399, 0x639a}
KEYS = ("group", "key_share_group", "key_share_length", "group_selected", "pq_offered",
        "pq_key_share", "pq_selected", "hello_length", "hello_segments")


def carriers(path):
    """Per frame: its own bytes (hex) and the PDUs TCP reassembled there,
    each as (reassembled hex, [(frame, pos, len) of each tcp.segment])."""
    out = {}
    for pkt in dissection(path):
        layers = pkt["_source"][0]["layers"][0]
        frame = int(first(first(layers, "frame"), "frame.number"))
        raw = first(layers, "frame_raw")
        pdus = []
        for segs in layers.get("tcp.segments", []):
            data = first(segs, "tcp.reassembled.data_raw")
            spans = [(int(f), r[1], r[2]) for f, r in
                     zip(segs.get("tcp.segment", []), segs.get("tcp.segment_raw", []))]
            pdus.append((data[0] if isinstance(data, list) else data, spans))
        out[frame] = (raw[0] if isinstance(raw, list) else raw, pdus)
    return out


def segments_of(m, carried):
    """The segments that carried message m (hex at m["pos"] of its data
    source), as tlsneg counts them (docs/fields.md): 1 if its bytes are the
    frame's own (one TCP segment, one DTLS record holding the whole
    message), the tcp.segment frames of the reassembled PDU that hold any of
    its bytes, else None (several TLS records, DTLS fragments, QUIC)."""
    if m["wire"] == "quic" or m.get("pos") is None:
        return None
    frame_hex, pdus = carried[m["frame"]]
    hx, pos = m["hex"], m["pos"]
    n = len(hx) // 2
    if m["wire"] == "dtls" and m.get("length") is not None and n != int(m["length"]) + 12:
        return None  # a fragment: the message was put together from several
    if frame_hex[2 * pos:2 * (pos + n)] == hx:
        return [m["frame"]]
    if m["wire"] == "dtls":
        return None
    for data, spans in pdus:
        if data[2 * pos:2 * (pos + n)] == hx:
            return [f for f, at, ln in spans if at < pos + n and at + ln > pos]
    return None


def lines_for(m, carried):
    """The manifest lines of one message, as tshark reads it."""
    out = []
    t = m["type"]
    groups = m.get("groups", [])
    shares = list(zip(m.get("key_share_groups", []), m.get("key_share_lengths", [])))
    selected = m.get("selected_group") or []
    hrr = t == 2 and bool(selected)
    if t == 1:
        if groups:
            out.append("group " + " ".join(f"0x{g:04x}" for g in groups))
    if t in (1, 2) and shares and not hrr:
        out.append("key_share_group " + " ".join(f"0x{g:04x}" for g, _ in shares))
        out.append("key_share_length " + " ".join(str(n) for _, n in shares))
    if t == 2:
        chosen = selected[0] if selected else (shares[0][0] if shares else None)
        if chosen is not None:
            out.append(f"group_selected 0x{chosen:04x}")
            out.append(f"pq_selected {int(chosen in PQ)}")
    if t == 1:
        out.append(f"pq_offered {int(any(g in PQ for g in groups))}")
        out.append(f"pq_key_share {int(any(g in PQ for g, _ in shares))}")
    if m["wire"] == "ssl2":
        out.append(f"hello_length {len(m['hex']) // 2}")
    elif m.get("length") is not None:
        out.append(f"hello_length {int(m['length']) + (12 if m['wire'] == 'dtls' else 4)}")
    segs = segments_of(m, carried)
    if segs:
        out.append(f"hello_segments {len(segs)}")
    return out


def complete(msgs):
    """Per (frame, type), the messages in wire order; a DTLS message counts in
    the frame where its last fragment arrives (the one with its extensions
    or, failing that, its last record)."""
    by = collections.defaultdict(list)
    for m in msgs:
        by[(m["frame"], m["type"])].append(m)
    return by


def rewrite(path):
    text = open(path, encoding="utf-8").read().splitlines()
    cap = next(l.split()[1] for l in text if l.startswith("capture "))
    by = complete(extract(os.path.join(ROOT, cap)))
    carried = carriers(os.path.join(ROOT, cap))
    seen = collections.Counter()
    out, i = [], 0
    while i < len(text):
        line = text[i]
        out.append(line)
        i += 1
        mm = re.match(r"msg frame=(\d+) type=(\d+)", line)
        if not mm:
            continue
        frame, t = int(mm.group(1)), int(mm.group(2))
        body = []
        while i < len(text) and text[i].startswith(" "):
            if text[i].split()[0] not in KEYS:
                body.append(text[i])
            i += 1
        k = seen[(frame, t)]
        seen[(frame, t)] += 1
        cands = by.get((frame, t), [])
        if not cands:
            sys.stderr.write(f"{path}: frame {frame} type {t}: tshark shows no such hello\n")
            out.extend(body)
            continue
        m = cands[min(k, len(cands) - 1)] if len(cands) > k else cands[-1]
        out.extend(body)
        out.extend("  " + l for l in lines_for(m, carried))
    open(path, "w", encoding="utf-8").write("\n".join(out) + "\n")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        rewrite(p)
