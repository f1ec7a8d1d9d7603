#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The two front ends agree: every capture's events (tests/captures/extract_events.py,
tshark's own dissection without tlsneg) replayed through the session layer by
`tlsneg-dump --events` give the same hellos, retransmissions, findings,
fallback links and attempts ended by RST/FIN (before their ClientHello was
complete too) as the plugin's
`-z tlsneg,jsonl` on the same capture. TAP output."""
import argparse
import json
import os
import subprocess
import sys

from tests.captures import extract_events, tsharkbox
from tests.captures.extract_hellos import default_captures
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def replayed(dump, path):
    lines = extract_events.extract(path)
    out = subprocess.run([dump, "--events"], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout
    hellos, closes = [], []
    for line in out.splitlines():
        d = json.loads(line)
        if d["event"] == "hello":
            fb = [v.get("previous_attempt") for v in d["verdicts"] if v["kind"] == "fallback"]
            hellos.append((d["frame"], d.get("retransmission_of", 0),
                           sorted(f["expert"] for f in d["findings"]), fb[0] if fb else None))
            if d.get("early_cause") in ("reset", "close"):
                # The server's reset or close before this ClientHello was
                # complete: its attempt's outcome, told with it.
                closes.append((d["early_frame"], d["early_cause"], d["frame"]))
        elif d["event"] in ("rst", "fin"):
            closes.append((d["frame"], "reset" if d["event"] == "rst" else "close",
                           d["ends_attempt"]))
    return hellos, closes


def plugin(box, path):
    name = box.add_capture(path)
    # The same run as tests/pcap/differential.py's plugin_jsonl, made once (share).
    out = box.run(["-r", name, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z",
                   "tlsneg,jsonl"], share=True).stdout
    hellos, closes = [], []
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if d.get("record") == "hello":
            # experts[]: the expert info names (a rule's variants), as the replay prints them.
            hellos.append((d["frame"], d.get("retransmission_of", 0), sorted(d["experts"]),
                           d.get("fallback_of")))
        elif d.get("record") == "outcome" and d["outcome"] in ("reset", "close"):
            closes.append((d["frame"], d["outcome"], d["attempt_frame"]))
    return hellos, closes


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    ap.add_argument("--dump", required=True, help="the freshly built tlsneg-dump")
    ap.add_argument("captures", nargs="*", help="default: every capture under pcaps/")
    args = ap.parse_args()
    box = TsharkBox.from_args(args)
    res = Results()
    caps = args.captures or default_captures()

    def check_capture(path, batch):
        mine, theirs = replayed(args.dump, path), plugin(box, path)
        rel = os.path.relpath(path, ROOT)
        if mine == theirs:
            batch.check(True, f"{rel}: {len(mine[0])} hellos, {len(mine[1])} attempts ended "
                        "by RST/FIN, as in the plugin")
            return
        detail = []
        for kind, a, b in (("hello", mine[0], theirs[0]), ("close", mine[1], theirs[1])):
            for x, y in zip(a, b):
                if x != y:
                    detail += [f"{kind}: replay {x}", f"{kind}: plugin {y}"]
                    break
            if len(a) != len(b):
                detail.append(f"{kind}: {len(a)} in the replay, {len(b)} in the plugin")
        batch.check(False, f"{rel}: the replay differs from the plugin", detail)

    try:
        res.each(caps, check_capture)
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
