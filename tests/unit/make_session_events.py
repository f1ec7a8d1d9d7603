#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write session_events.h: the event sequences (lib/replay/events.h format) of the
captures the session unit tests replay, read with tshark's own dissection by
tests/captures/extract_events.py.

    python3 -m tests.unit.make_session_events > tests/unit/session_events.h
"""
import os
import re

from tests.captures import extract_events

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CAPTURES = [
    "pcaps/intolerant-rst.pcap",
    "pcaps/fallback-openssl35.pcap",
    "pcaps/intolerant-close.pcap",
    "pcaps/intolerant-alert.pcap",
    "pcaps/fallback-chain.pcap",
    "pcaps/fallback-rejected-retry.pcap",
    "pcaps/tls13-hrr.pcap",
    "pcaps/nofallback-preconnect.pcap",
    "pcaps/public/zeek/dtls13-cid.pcap",
    "pcaps/public/wireshark/tls12-aes128ccm.pcap",
    "pcaps/pq-split-rst-classical-retry.pcap",
    "pcaps/pq-split-alert-classical-retry.pcap",
    "pcaps/pq-split-close-classical-retry.pcap",
    "pcaps/sni-mismatch-warning.pcap",
]


def literal(line, width=88):
    pieces = [line[i:i + width] for i in range(0, len(line), width)]
    return "\n".join(f'    "{p}"' for p in pieces)


def main():
    print("/* SPDX-License-Identifier: GPL-2.0-or-later */")
    print("/* session_events.h: event sequences of real captures (lib/replay/events.h format),")
    print(" * written by tests/unit/make_session_events.py with tests/captures/extract_events.py")
    print(" * from tshark's own dissection. Do not edit; rerun the script. */")
    print("#ifndef TLSNEG_TEST_SESSION_EVENTS_H")
    print("#define TLSNEG_TEST_SESSION_EVENTS_H")
    for rel in CAPTURES:
        path = os.path.join(ROOT, rel)
        name = re.sub(r"[^a-z0-9]", "_", os.path.basename(rel).split(".")[0].lower())
        print()
        print(f"/* {rel} */")
        print(f"static const char *const ev_{name}[] = {{")
        for line in extract_events.extract(path):
            print(literal(line) + ",")
        print("    NULL,")
        print("};")
    print()
    print("#endif")


if __name__ == "__main__":
    main()
