#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeds for fuzz_packets (tests/fuzz/fuzz_packets.c) from the project's
captures: each seed is one capture's frames (up to 40, each up to 1600
bytes) in the target's input layout. Usage: python3 -m tests.fuzz.make_packet_seeds OUTDIR"""
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINKS = [1, 12, 113, 276, 0, 108, 9, 228, 229, 147]
CAPTURES = [
    "pcaps/tls13-openssl.pcap", "pcaps/tls13-hrr.pcap", "pcaps/dtls12-openssl.pcap",
    "pcaps/sslv2-client-hello.pcap", "pcaps/client-hello-many-segments.pcap",
    "pcaps/client-hello-many-records.pcap", "pcaps/intolerant-rst.pcap",
    "pcaps/intolerant-alert.pcap", "pcaps/synth-dtls13.pcap", "pcaps/synth-quic-tls12.pcap",
    "pcaps/public/zeek/quic-go-handshake.pcap", "pcaps/public/zeek/quicv2-http3-443.pcap",
    "pcaps/public/wireshark/retrans-tls.pcap", "pcaps/public/zeek/dtls1_0.pcap",
    # TLS after a plaintext prefix (tlsneg-pcap/starttls.c)
    "pcaps/starttls-smtp-swaks.pcap", "pcaps/starttls-xmpp-openssl.pcap",
    "pcaps/starttls-ldap-ldapsearch.pcap", "pcaps/starttls-postgres-psql.pcap",
]


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    link = struct.unpack(endian + "I", data[20:24])[0]
    pos, out = 24, []
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[pos:pos + 16])
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return link, out


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for rel in CAPTURES:
        link, fr = frames(os.path.join(ROOT, rel))
        if link not in LINKS:
            continue
        seed = bytes([LINKS.index(link), 0])
        for f in fr[:40]:
            f = f[:1600]
            seed += struct.pack(">H", len(f)) + f
        name = "seed-" + os.path.basename(rel).split(".")[0]
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(seed)


if __name__ == "__main__":
    main()
