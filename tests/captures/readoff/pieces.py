#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hello_segments of DTLS and QUIC hellos, read off tshark's own reassembly
fields (no tlsneg): per frame that shows a DTLS or QUIC hello, the datagrams
(frames) of each reassembled message's pieces, each frame once
(dtls.fragment / quic.crypto.fragment, split into messages by
*.fragment.count); where TLS put a QUIC message together on top of QUIC
(tls.handshake.fragment in a QUIC frame), the frames of its pieces, each with
the quic.crypto.fragment frames of that piece's frame (every packet-number
space: the captures here reassemble nothing but Initial CRYPTO data in those
frames; tests/captures/readoff/quicdatagrams.py counts from offsets instead).
A DTLS hello whole in one record, or a QUIC hello in CRYPTO data of one
packet that needed no reassembly, came in its own frame (1).

  python3 tests/captures/readoff/pieces.py CAPTURE
"""
import subprocess
import sys

FIELDS = ["frame.number", "dtls.handshake.type", "dtls.fragment", "dtls.fragment.count",
          "quic.crypto.fragment", "quic.crypto.fragment.count", "tls.handshake.type",
          "tls.handshake.fragment", "quic.packet_number"]


def groups(frames, counts):
    out, i = [], 0
    for c in counts:
        out.append(sorted(set(frames[i:i + c])))
        i += c
    return out


def main(path):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "separator=\t"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    quic_frames = {}  # frame -> the frames of its quic.crypto.fragment items
    for line in out.splitlines():
        v = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        quic_frames[int(v[0])] = {int(x) for x in v[4].split(",") if x}
    for line in out.splitlines():
        v = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        ints = [[int(x) for x in c.split(",") if x] for c in v]
        (frame,), dtype, dfr, dcnt, qfr, qcnt, ttype, tfr, qpn = ints
        hellos_d = [t for t in dtype if t in (1, 2, 3)]
        if hellos_d:
            print(frame, "dtls", "hellos", hellos_d, "reassembled", groups(dfr, dcnt))
        hellos_q = [t for t in ttype if t in (1, 2)] if v[8] else []
        if hellos_q:
            on_top = set()
            for f in tfr:
                on_top |= {f} | quic_frames.get(f, set())
            print(frame, "quic", "hellos", hellos_q, "reassembled", groups(qfr, qcnt),
                  "tls-reassembled from datagrams %s" % sorted(on_top) if tfr else "")


if __name__ == "__main__":
    main(sys.argv[1])
