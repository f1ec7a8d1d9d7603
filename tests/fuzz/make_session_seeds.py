#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the fuzz seeds for fuzz_session: the event sequences of captures
(tests/captures/extract_events.py, tshark's own dissection) in fuzz_session's byte
coding (tests/fuzz/README.md), one file per capture, named
seed-<capture>.

Usage: python3 -m tests.fuzz.make_session_seeds OUTDIR [CAPTURE ...]
Without captures: every capture under pcaps/ (pcaps/public/ included).
A capture whose events do not fit 16 connections keeps its first 16.
"""
import os
import re
import sys

from tests.captures import extract_events
from tests.captures.extract_hellos import default_captures

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

RECORD_VERSIONS = [0x0301, 0x0303, 0x0302, 0x0300, 0xfeff, 0xfefd, 0x0002, 0x0304]
WIRES = {"tls": 0, "dtls": 1, "quic": 2}


def encode(lines):
    out = bytearray([63, 31])  # cap 64 attempts, window 31 s, SNI in the key (odd)
    flows = {}
    clients = {}
    last_t = None
    for line in lines:
        f = line.split()
        kind, t, tr = f[0], int(f[2]), f[3]
        src, sport, dst, dport = f[4], int(f[5]), f[6], int(f[7])
        key = (tr,) + tuple(sorted([(src, sport), (dst, dport)]))
        side = next((x[5:] for x in f[8:] if x.startswith("from=")), None)
        f = [x for x in f if not x.startswith("from=")]
        if key not in flows:
            if len(flows) == 16 or (kind in ("fin", "rst") and side is None):
                continue
            flows[key] = len(flows)
            clients[key] = (dst, dport) if side == "server" else (src, sport)
        slot = flows[key]
        from_server = clients[key] != (src, sport)
        dt = 0 if last_t is None else min(255, (t - last_t) * 8 // 1000000)
        # dt's low bit: the sender is known (from=), as a front end knows it
        dt = min(255, dt | 1) if side else dt & ~1
        last_t = t
        conn = slot
        op = 4 if from_server else 0
        if kind == "alert":
            out += bytes([op | 1, conn, dt, int(f[8]) & 255])
        elif kind in ("fin", "rst"):
            out += bytes([op | 2 | (64 if kind == "rst" else 0), conn, dt, 0])
        else:
            wire, rv, data = f[8], f[9], bytes.fromhex(f[10])
            if wire == "ssl2":
                op |= 3 << 3 | 32
                data = bytes([0x80 | (len(data) >> 8), len(data) & 255]) + data
                x = 0
            else:
                op |= WIRES[wire] << 3
                x = 0
                if rv != "-":
                    op |= 32
                    v = int(rv, 16)
                    x = RECORD_VERSIONS.index(v) if v in RECORD_VERSIONS else 0
            out += bytes([op, conn, dt, x]) + len(data).to_bytes(2, "big") + data
    return bytes(out)


def main():
    outdir = sys.argv[1]
    caps = sys.argv[2:] or default_captures()
    os.makedirs(outdir, exist_ok=True)
    for path in caps:
        lines = [l for l in extract_events.extract(path) if not l.startswith("#")]
        if not lines:
            continue
        name = re.sub(r"\.(pcapng|pcap)(\.gz)?$", "", os.path.basename(path))
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        with open(os.path.join(outdir, "seed-" + name), "wb") as fh:
            fh.write(encode(lines))


if __name__ == "__main__":
    main()
