#!/usr/bin/env python3
"""Write session_events.h: the event sequences (tools/events.h format) of the
captures the session unit tests replay, read with tshark's own dissection by
tools/extract_events.py.

    tests/unit/make_session_events.py [SHARED_CAPTURES] > tests/unit/session_events.h

SHARED_CAPTURES is the shared capture folder (default: ../shared/captures
beside the checkout).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import extract_events  # noqa: E402

CAPTURES = [
    "pcaps/intolerant-rst.pcap",
    "pcaps/intolerant-close.pcap",
    "pcaps/intolerant-alert.pcap",
    "pcaps/fallback-chain.pcap",
    "pcaps/fallback-rejected-retry.pcap",
    "pcaps/tls13-hrr.pcap",
    "shared:zeek/dtls13-cid.pcap",
]


def literal(line, width=88):
    pieces = [line[i:i + width] for i in range(0, len(line), width)]
    return "\n".join(f'    "{p}"' for p in pieces)


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(ROOT), "shared",
                                                                "captures")
    print("/* session_events.h: event sequences of real captures (tools/events.h format),")
    print(" * written by tests/unit/make_session_events.py with tools/extract_events.py")
    print(" * from tshark's own dissection. Do not edit; rerun the script. */")
    print("#ifndef TLSNEG_TEST_SESSION_EVENTS_H")
    print("#define TLSNEG_TEST_SESSION_EVENTS_H")
    for rel in CAPTURES:
        if rel.startswith("shared:"):
            path = os.path.join(shared, rel[len("shared:"):])
        else:
            path = os.path.join(ROOT, rel)
        name = re.sub(r"[^a-z0-9]", "_", os.path.basename(rel).split(".")[0].lower())
        print()
        print(f"/* {rel.replace('shared:', 'shared/captures/')} */")
        print(f"static const char *const ev_{name}[] = {{")
        for line in extract_events.extract(path):
            print(literal(line) + ",")
        print("    NULL,")
        print("};")
    print()
    print("#endif")


if __name__ == "__main__":
    main()
