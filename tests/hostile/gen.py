#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile captures for tlsneg: many clients, a renegotiation storm, and
hellos at the size limits. Generated, never committed: they are large.

Usage:
  python3 -m tests.hostile.gen clients OUT.pcap [--count 1000000] [--server-hello]
      one ClientHello per client: every hello from its own client address
      and port, with its own SNI (c<n>.hostile.example), one TCP segment each
      (no handshake: Wireshark takes a TCP stream up mid-way);
  python3 -m tests.hostile.gen storm OUT.pcap [--count 5000]
      one TCP connection carrying COUNT ClientHello/ServerHello pairs, in the
      clear, back to back (a renegotiation storm);
  python3 -m tests.hostile.gen limits OUT.pcap [--count 16000]
      four connections, one hello each at a limit: a ClientHello with COUNT
      extensions (distinct unknown types, empty bodies: the 2-byte extensions
      block holds at most 16,383); one whose extensions and cipher suites are
      thousands of GREASE values (repeated types); one with the maximal
      supported_versions list (127 entries, every GREASE value, every known
      version, drafts and unknown values) answered by a ServerHello; one with
      a supported_versions list whose length byte does not fit;
  python3 -m tests.hostile.gen all OUTDIR
      the three above with their default sizes, as OUTDIR/hostile-*.pcap.

Output is streamed: memory stays flat whatever COUNT is. The pieces come
from pcaps/synth.py (libpcap writer, Ethernet/IPv4/TCP, TLS builders).
"""
import argparse
import os
import sys

from pcaps import synth
from pcaps.synth import (CT_HANDSHAKE, PcapWriter, TcpConversation, client_hello, extension,
                   fixed_bytes, server_hello, tls_record, u8, u16, vec8, vec16)

SERVER = (synth.SERVER_IP, 443)
GREASE = [0x0A0A + 0x1010 * i for i in range(16)]
TLS13_SUITES = [0x1301, 0x1302, 0x1303]
MAX_RECORD = 1 << 14
MSS = 1460


def sni_ext(name):
    host = name.encode()
    return extension(0, vec16(u8(0) + vec16(host)))


def versions_ext(versions):
    return extension(43, vec8(b"".join(u16(v) for v in versions)))


def modern_extensions(sni, key):
    return [
        sni_ext(sni),
        versions_ext([GREASE[3], 0x0304, 0x0303]),
        extension(10, vec16(u16(GREASE[3]) + u16(0x001D) + u16(0x0017))),
        extension(13, vec16(b"".join(u16(a) for a in (0x0403, 0x0804, 0x0401)))),
        extension(45, vec8(u8(1))),
        extension(51, vec16(u16(0x001D) + vec16(key))),
    ]


def records(msg):
    """A handshake message in as many TLS records as it needs."""
    return b"".join(tls_record(CT_HANDSHAKE, 0x0301, msg[i:i + MAX_RECORD])
                    for i in range(0, len(msg), MAX_RECORD))


def simple_server_hello(label, version_ext=0x0304):
    exts = [extension(43, u16(version_ext)), extension(51, u16(0x001D) + vec16(bytes(32)))]
    return server_hello(0x0303, fixed_bytes(label, 32), b"", 0x1301, exts)


def client_ip(n):
    """10.0.0.1 onwards: one address per client, 16 million of them."""
    n += 1
    return "10.%d.%d.%d" % ((n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF)


# ---------------------------------------------------------------- scenarios

def gen_clients(path, count, with_server_hello=False):
    t0, step = synth.T0, 0.0001
    key = fixed_bytes("clients key", 32)
    suites = [GREASE[5]] + TLS13_SUITES + [0xC02F]
    with PcapWriter(path) as pcap:
        for n in range(count):
            client = (client_ip(n), 1024 + n % 64000)
            ch = client_hello(0x0303, fixed_bytes("c%d" % n, 32), b"", suites,
                              modern_extensions("c%d.hostile.example" % n, key))
            conv = TcpConversation(pcap, client, SERVER, t0=t0 + n * step, step=step / 4,
                                   isn=(0x1000 + n, 0x8000))
            conv.send(True, records(ch), ack=False)
            if with_server_hello:
                conv.send(False, records(simple_server_hello("s%d" % n)), ack=False)


def gen_storm(path, count):
    key = fixed_bytes("storm key", 32)
    with PcapWriter(path) as pcap:
        conv = TcpConversation(pcap, synth.CLIENT, SERVER, step=0.0001)
        conv.open()
        for n in range(count):
            ch = client_hello(0x0303, fixed_bytes("storm c%d" % n, 32), b"", TLS13_SUITES,
                              modern_extensions("storm.hostile.example", key))
            conv.send(True, records(ch), ack=False)
            conv.send(False, records(simple_server_hello("storm s%d" % n)), ack=False)
        conv.close()


def many_extensions_hello(count):
    # 4 bytes each; leave room for server_name and supported_versions.
    count = min(count, (0xFFFF - 64) // 4)
    exts = [sni_ext("many-extensions.hostile.example"), versions_ext([0x0304, 0x0303])]
    exts += [extension(1000 + i, b"") for i in range(count)]
    return client_hello(0x0303, fixed_bytes("many ext", 32), b"", TLS13_SUITES, exts)


def grease_hello(count):
    # GREASE types over and over, each with an empty body, and as many GREASE
    # cipher suites: 8,000 of each keep the message under 64 KiB, above which
    # Wireshark 4.0 does not reassemble a handshake message.
    count = min(count, 8000)
    suites = [GREASE[i % 16] for i in range(count)] + TLS13_SUITES
    exts = [sni_ext("grease.hostile.example"), versions_ext(GREASE + [0x0304])]
    exts += [extension(GREASE[i % 16], b"") for i in range(count)]
    return client_hello(0x0303, fixed_bytes("grease", 32), b"", suites, exts)


def max_versions_list():
    known = [0x0304, 0x0303, 0x0302, 0x0301, 0x0300, 0x0002, 0xFEFC, 0xFEFD, 0xFEFF, 0x0100]
    drafts = [0x7F00 + d for d in range(1, 29)] + [0x7E01, 0x7E02, 0x7E03, 0xFB17, 0xFB1A]
    versions = GREASE + known + drafts
    unknown = 0x0400
    while len(versions) < 127:
        versions.append(unknown)
        unknown += 1
    return versions


def max_versions_hello():
    exts = [sni_ext("max-versions.hostile.example"), versions_ext(max_versions_list())]
    exts += modern_extensions("unused", fixed_bytes("max key", 32))[2:]
    return client_hello(0x0303, fixed_bytes("max versions", 32), b"", TLS13_SUITES, exts)


def bad_versions_hello():
    # The length byte says 255 bytes; 200 follow: the list does not fit.
    body = u8(255) + b"".join(u16(0x0304 if i % 2 else GREASE[i % 16]) for i in range(100))
    exts = [sni_ext("bad-versions.hostile.example"), extension(43, body)]
    return client_hello(0x0303, fixed_bytes("bad versions", 32), b"", TLS13_SUITES, exts)


def gen_limits(path, count):
    hellos = [
        (many_extensions_hello(count), None),
        (grease_hello(count), None),
        (max_versions_hello(), simple_server_hello("max versions sh")),
        (bad_versions_hello(), None),
    ]
    with PcapWriter(path) as pcap:
        for i, (ch, sh) in enumerate(hellos):
            conv = TcpConversation(pcap, (synth.CLIENT_IP, 50000 + i), SERVER,
                                   t0=synth.T0 + i)
            conv.open()
            conv.send(True, records(ch), segment=MSS)
            if sh:
                conv.send(False, records(sh), segment=MSS)
            conv.close()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("scenario", choices=("clients", "storm", "limits", "all"))
    ap.add_argument("out", help="output capture (OUTDIR for 'all')")
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--server-hello", action="store_true",
                    help="clients: answer every ClientHello with a ServerHello")
    args = ap.parse_args(argv[1:])
    defaults = {"clients": 1000000, "storm": 5000, "limits": 16000}
    if args.scenario == "all":
        os.makedirs(args.out, exist_ok=True)
        gen_clients(os.path.join(args.out, "hostile-clients.pcap"), defaults["clients"])
        gen_storm(os.path.join(args.out, "hostile-storm.pcap"), defaults["storm"])
        gen_limits(os.path.join(args.out, "hostile-limits.pcap"), defaults["limits"])
        return 0
    count = args.count if args.count is not None else defaults[args.scenario]
    if args.scenario == "clients":
        gen_clients(args.out, count, args.server_hello)
    elif args.scenario == "storm":
        gen_storm(args.out, count)
    else:
        gen_limits(args.out, count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
