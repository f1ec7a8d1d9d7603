#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dup_after_fin.py IN OUT: copy a classic pcap (Ethernet, IPv4, TCP, as
dumpcap writes a loopback capture), then append one more packet: a copy of
the first TCP segment whose payload starts with an alert record of more
than 2 bytes (15 03 xx then a length > 2: an encrypted alert, such as a
TLS 1.2 close_notify under AES-GCM, 15 03 03 00 1a), stamped 1 ms after the
last packet, which must come after both FINs. This is the late duplicate
of issue 27: a retransmission that arrives once the connection is over.
Standard library only; nothing else in the packets is changed."""
import struct
import sys


def packets(data):
    """The pcap's global header and its records (header, bytes)."""
    magic = struct.unpack("<I", data[:4])[0]
    if magic != 0xA1B2C3D4:
        raise SystemExit("a little-endian microsecond pcap is expected")
    if struct.unpack("<I", data[20:24])[0] != 1:
        raise SystemExit("link type Ethernet (1) is expected")
    out, pos = [], 24
    while pos < len(data):
        sec, usec, incl, orig = struct.unpack("<IIII", data[pos:pos + 16])
        out.append(((sec, usec, incl, orig), data[pos + 16:pos + 16 + incl]))
        pos += 16 + incl
    return data[:24], out


def tcp(frame):
    """(flags, payload) of an Ethernet/IPv4/TCP frame, or None."""
    if frame[12:14] != b"\x08\x00" or frame[23] != 6:
        return None
    ihl = (frame[14] & 0x0F) * 4
    total = struct.unpack(">H", frame[16:18])[0]
    t = 14 + ihl
    off = (frame[t + 12] >> 4) * 4
    return frame[t + 13], frame[t + off:14 + total]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        header, pkts = packets(f.read())
    dup = None
    fins = 0
    for _, frame in pkts:
        seg = tcp(frame)
        if not seg:
            continue
        flags, payload = seg
        fins += 1 if flags & 0x01 else 0
        if dup is None and len(payload) >= 5 and payload[0] == 0x15 and payload[1] == 3 \
                and struct.unpack(">H", payload[3:5])[0] > 2:
            dup = frame
    if dup is None or fins < 2:
        raise SystemExit(f"{src}: no encrypted alert record, or fewer than two FINs ({fins})")
    (sec, usec, _, _), _ = pkts[-1]
    usec += 1000
    sec, usec = sec + usec // 1000000, usec % 1000000
    with open(dst, "wb") as f:
        f.write(header)
        for (s, u, incl, orig), frame in pkts:
            f.write(struct.pack("<IIII", s, u, incl, orig) + frame)
        f.write(struct.pack("<IIII", sec, usec, len(dup), len(dup)) + dup)


if __name__ == "__main__":
    main()
