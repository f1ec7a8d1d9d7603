#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reorder the packets of a real capture, as a network that reorders would
deliver them: the packet bytes stay as captured, the timestamps stay in
their original order (the n-th record keeps the n-th timestamp).

Usage: reorder.py IN.pcap OUT.pcap ORDER
  ORDER: the new order of the first packets, 1-based, comma-separated
         (e.g. 1,2,3,6,4,5); the packets after the last one named follow
         in their order.
Classic little-endian pcap only (what make-pq-captures.sh writes)."""
import struct
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    if struct.unpack("<I", data[:4])[0] != 0xA1B2C3D4:
        sys.exit("reorder.py: not a little-endian microsecond pcap")
    records, off = [], 24
    while off < len(data):
        ts, caplen = data[off:off + 8], struct.unpack("<I", data[off + 8:off + 12])[0]
        records.append((ts, data[off + 8:off + 16 + caplen]))
        off += 16 + caplen
    head = [int(x) - 1 for x in sys.argv[3].split(",")]
    if sorted(head) != list(range(len(head))) or len(head) > len(records):
        sys.exit("reorder.py: ORDER must name packets 1..N, each once")
    order = head + list(range(len(head), len(records)))
    with open(sys.argv[2], "wb") as out:
        out.write(data[:24])
        for i, k in enumerate(order):
            out.write(records[i][0] + records[k][1])


if __name__ == "__main__":
    main()
