#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg-pcap --shard K/N splits the work exactly: over the project's
captures (pcaps/, public ones included), each capture alone and all of them
in one run, the JSON lines of the N = 3 shards, put together, are exactly the
records of one run without --shard (as sorted multisets: no record lost, none
added), no record appears in two shards, every shard writes the schema
header, and the records do spread over more than one shard.

Prints TAP ("ok N - ...") and "N passed, N failed"."""
import argparse
import collections
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARDS = 3


def records(tool, files, shard=None):
    args = [tool, "--jsonl", "-q"] + (["--shard", shard] if shard else []) + files
    p = subprocess.run(args, capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if p.returncode not in (0, 1) or not lines or '"record":"header"' not in lines[0]:
        raise RuntimeError(f"{' '.join(args)} exited {p.returncode}: {p.stderr[:500]}")
    return lines[1:]


def check(tool, files):
    """Problems of one run over files, and how many shards got records."""
    problems = []
    whole = collections.Counter(records(tool, files))
    parts = [collections.Counter(records(tool, files, f"{k}/{SHARDS}")) for k in range(SHARDS)]
    union = sum(parts, collections.Counter())
    for line in sorted((whole - union).elements()):
        problems.append(f"only in the whole run: {line}")
    for line in sorted((union - whole).elements()):
        problems.append(f"only in the shards: {line}")
    for a in range(SHARDS):
        for b in range(a + 1, SHARDS):
            for line in sorted(set(parts[a]) & set(parts[b])):
                problems.append(f"in shards {a} and {b}: {line}")
    return problems, sum(1 for p in parts if p), sum(whole.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    args = ap.parse_args()
    caps = sorted(glob.glob(os.path.join(ROOT, "pcaps", "**", "*.pcap*"), recursive=True))
    n = failed = 0
    spread = 0
    for files, name in [([c], os.path.relpath(c, ROOT)) for c in caps] + \
                       [(caps, f"all {len(caps)} captures in one run")]:
        problems, used, total = check(args.tool, files)
        n += 1
        if problems:
            failed += 1
            print(f"not ok {n} - {name}")
            for p in problems[:20]:
                print(f"#   {p}")
        else:
            print(f"ok {n} - {name}: {total} records, in {used} of {SHARDS} shards")
        if len(files) > 1:
            spread = used
    n += 1
    if spread < 2:
        failed += 1
        print(f"not ok {n} - the records of all captures fall in {spread} shard(s), not several")
    else:
        print(f"ok {n} - the records of all captures spread over {spread} shards")
    print(f"1..{n}")
    print(f"{n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
