#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg-pcap --threads 2 (the packet path and the analysis on two threads)
writes exactly what --threads 1 writes, byte for byte: the JSON lines, the
CSV and the report in one run, and the debug formats (--events, --trace) in
another, over every capture of the project (pcaps/, public ones included),
all of them in one run, and a generated capture of 3,000 connections whose
events go round the hand-over ring several times.

Prints TAP ("ok N - ...") and "N passed, N failed"."""
import argparse
import os
import subprocess
import sys
import tempfile

from tests.pcap.differential import ROOT, captures
from tests.results import Results

MODES = (["--jsonl", "--csv", "--report"], ["--events", "--trace"])


def output(tool, threads, mode, files):
    """stdout and exit status of one run."""
    p = subprocess.run([tool, "-q", "--threads", str(threads)] + mode + list(files),
                       capture_output=True)
    return p.stdout, p.returncode


def check(res, tool, files, name):
    for mode in MODES:
        one, one_rc = output(tool, 1, mode, files)
        two, two_rc = output(tool, 2, mode, files)
        lines = one.count(b"\n")
        problems = []
        if one_rc != two_rc:
            problems.append(f"exit status {one_rc} with one thread, {two_rc} with two")
        if one != two:
            a, b = one.splitlines(), two.splitlines()
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            problems.append(f"first difference at line {at + 1} "
                            f"({len(a)} lines with one thread, {len(b)} with two)")
        res.check(not problems and lines > 0,
                  f"{name} {' '.join(mode)}: the same {lines} lines with two threads", problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    args = ap.parse_args()
    caps = captures()
    res = Results(max_detail=5)
    for c in caps:
        check(res, args.tool, [c], os.path.relpath(c, ROOT))
    check(res, args.tool, caps, f"all {len(caps)} captures in one run")
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "gen-3k.pcap")
        subprocess.run([sys.executable, "-m", "bench.gen", "-n", "3000", "-o", big, "--seed", "2"],
                       check=True, capture_output=True)
        check(res, args.tool, [big], "bench/gen.py, 3,000 connections")
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
