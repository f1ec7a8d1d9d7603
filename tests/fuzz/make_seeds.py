#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the fuzz seeds for fuzz_hello: every distinct ClientHello,
ServerHello and HelloVerifyRequest in the captures, as tshark sees them
(tests/captures/extract_hellos.py), one binary file each.

Usage: python3 -m tests.fuzz.make_seeds OUTDIR [CAPTURE ...]
Without captures: everything under pcaps/ (pcaps/public/ included).

Each file is the fuzz_hello input: a selector byte for the wire (0 TLS,
1 DTLS, 2 QUIC, 3 SSLv2-compatible), then the message from its type byte.
A complete DTLS message is also written in the DTLS-body form (selector 4,
the handshake type, the body without the 12-byte header), the path the
plugin takes for a message reassembled from fragments. A ServerHello is
also written with the capture's last ClientHello before it as the
connection's context (selector bit 0x10), and a ClientHello that follows a
HelloRetryRequest with selector bit 0x20, so that the rule checks see the
pairs they judge. Six hellos at the
limits come from tests/hostile/gen.py. Inputs are written
once per shape (wire, type, length, legacy_version, supported_versions and
extension types: the 1,000 synthetic hellos of tls-fragmented-handshakes
differ in one byte), named after the first capture and frame that holds them.
"""
import os
import re
import sys

from tests.captures import extract_hellos
from tests.captures.extract_hellos import default_captures

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SELECTOR = {"tls": 0, "dtls": 1, "quic": 2, "ssl2": 3}
DTLS_BODY = 4
CLIENT_HELLO = 0x10  # selector bits, tests/fuzz/README.md
AFTER_HRR = 0x20
TYPE_NAMES = {1: "ch", 2: "sh", 3: "hvr"}


def capture_stem(path):
    name = os.path.basename(path)
    name = re.sub(r"\.(pcapng|pcap)(\.gz)?$", "", name)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


HRR_RANDOM = bytes.fromhex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")


def inputs(msg, last):
    """The fuzz inputs for one message. last: per wire, the capture's last
    ClientHello and whether a HelloRetryRequest followed it."""
    raw = bytes.fromhex(msg["hex"].replace(":", ""))
    wire = msg["wire"]
    yield wire, bytes([SELECTOR[wire]]) + raw
    header = 12 if wire == "dtls" else 4
    if msg["type"] == 1 and wire != "ssl2":
        if last.get(wire, (None, False))[1]:
            yield wire + "-after-hrr", bytes([SELECTOR[wire] | AFTER_HRR]) + raw
        last[wire] = (raw, False)
    elif msg["type"] == 2 and last.get(wire, (None, False))[0] is not None:
        # A ServerHello judged against the ClientHello before it.
        ch = last[wire][0]
        if len(ch) < 0x10000:
            yield wire + "-pair", (bytes([SELECTOR[wire] | CLIENT_HELLO]) + len(ch).to_bytes(2, "big")
                                   + ch + raw)
        if raw[header + 2:header + 34] == HRR_RANDOM:
            last[wire] = (ch, True)
    if wire == "dtls" and len(raw) >= 12:
        length = int.from_bytes(raw[1:4], "big")
        frag_off = int.from_bytes(raw[6:9], "big")
        frag_len = int.from_bytes(raw[9:12], "big")
        if frag_off == 0 and frag_len == length and len(raw) == 12 + length:
            yield "dtls-body", bytes([DTLS_BODY, raw[0]]) + raw[12:]


def hostile_seeds():
    """Hellos at the limits, from tests/hostile/gen.py (smaller counts): no
    capture holds them and the fuzzer does not grow inputs that far."""
    from tests.hostile import gen
    from pcaps.synth import client_hello, extension, u8, vec16
    tls = bytes([SELECTOR["tls"]])
    # server_name longer than tlsneg keeps (255), with bytes it escapes
    host = bytes(range(0x1F, 0x80)) * 3
    long_sni = client_hello(0x0303, bytes(32), b"", gen.TLS13_SUITES,
                            [extension(0, vec16(u8(0) + vec16(host))), gen.versions_ext([0x0304])])
    yield "seed-hostile-long-sni-ch-tls", tls + long_sni
    yield "seed-hostile-max-versions-ch-tls", tls + gen.max_versions_hello()
    yield "seed-hostile-bad-versions-ch-tls", tls + gen.bad_versions_hello()
    yield "seed-hostile-2000-extensions-ch-tls", tls + gen.many_extensions_hello(2000)
    yield "seed-hostile-grease-ch-tls", tls + gen.grease_hello(300)
    yield "seed-hostile-sh-tls", tls + gen.simple_server_hello("seed")


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    outdir, captures = argv[1], argv[2:] or default_captures()
    os.makedirs(outdir, exist_ok=True)
    seen = set()
    written = total = 0
    for cap in captures:
        last = {}
        for msg in extract_hellos.extract(cap):
            for wire, data in inputs(msg, last):
                total += 1
                shape = (wire, msg["type"], len(data), msg["legacy_version"],
                         tuple(msg["supported_versions"]), tuple(msg["extension_types"]))
                if shape in seen:
                    continue
                seen.add(shape)
                name = "seed-%s-f%d-%s-%s" % (capture_stem(cap), msg["frame"],
                                              TYPE_NAMES.get(msg["type"], str(msg["type"])), wire)
                path = os.path.join(outdir, name)
                n = 2
                while os.path.exists(path):
                    path = os.path.join(outdir, "%s-%d" % (name, n))
                    n += 1
                with open(path, "wb") as f:
                    f.write(data)
                written += 1
    for name, data in hostile_seeds():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
        written += 1
    print("%d messages, %d inputs of distinct shape written to %s" % (total, written, outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
