#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hello_segments of QUIC hellos from CRYPTO offsets, read off tshark's own
fields (no tlsneg, and not tshark's reassembly lists): per direction of each
UDP flow, the Initial packets' CRYPTO frames (quic.crypto.offset,
quic.crypto.length, each under its packet's quic.long.packet_type: 0, or 1 in
QUIC v2) make one stream; its hellos follow each other from offset 0, each
4 + tls.handshake.length bytes, in the order tshark completes them. A hello
came in the datagrams (frame.number) up to the one that completes it whose
Initial CRYPTO frames hold any byte of it, each counted once. Prints
one line per hello; CRYPTO bytes that an earlier datagram already carried
are flagged ("dup"), as a retransmission would need a closer look.

  python3 tests/captures/readoff/quicdatagrams.py CAPTURE
"""
import subprocess
import sys
import xml.etree.ElementTree as ET


def fields(proto, name):
    return [f for f in proto.iter("field") if f.get("name") == name]


def main(path):
    pdml = subprocess.run(["tshark", "-r", path, "-T", "pdml", "-Y", "quic"],
                          capture_output=True, text=True).stdout
    spans = {}   # (src, dst) -> [(frame, start, end)]
    hellos = {}  # (src, dst) -> [(frame, type, length)]
    for pkt in ET.fromstring(pdml).iter("packet"):
        frame = src = dst = None
        for proto in pkt.findall("proto"):
            name = proto.get("name")
            if name == "frame":
                frame = int(fields(proto, "frame.number")[0].get("show"))
            elif name in ("ip", "ipv6"):
                a = name + ".src", name + ".dst"
                src = fields(proto, a[0])[0].get("show")
                dst = fields(proto, a[1])[0].get("show")
            elif name == "udp":
                src += ":" + fields(proto, "udp.srcport")[0].get("show")
                dst += ":" + fields(proto, "udp.dstport")[0].get("show")
            elif name == "quic":
                pt = fields(proto, "quic.long.packet_type")
                pt2 = fields(proto, "quic.long.packet_type_v2")
                initial = (pt and pt[0].get("show") == "0") or (pt2 and pt2[0].get("show") == "1")
                offs = fields(proto, "quic.crypto.offset")
                lens = fields(proto, "quic.crypto.length")
                if initial:
                    for o, n in zip(offs, lens):
                        o, n = int(o.get("show")), int(n.get("show"))
                        spans.setdefault((src, dst), []).append((frame, o, o + n))
                types = fields(proto, "tls.handshake.type")
                lengths = fields(proto, "tls.handshake.length")
                for t, n in zip(types, lengths):
                    if t.get("show") in ("1", "2"):
                        hellos.setdefault((src, dst), []).append(
                            (frame, int(t.get("show")), int(n.get("show"))))
    for d, hs in hellos.items():
        at = 0
        for frame, t, n in hs:
            start, end = at, at + 4 + n
            at = end
            seen, frames, dup = set(), set(), False
            for f, s, e in spans.get(d, []):
                if f > frame or e <= start or s >= end:
                    continue
                frames.add(f)
                b = set(range(max(s, start), min(e, end)))
                dup |= bool(b & seen)
                seen |= b
            whole = seen == set(range(start, end))
            print(frame, d[0], "->", d[1], "type", t, "offsets", start, end, "datagrams",
                  len(frames), sorted(frames), "dup" if dup else "",
                  "" if whole else "INCOMPLETE")


if __name__ == "__main__":
    main(sys.argv[1])
