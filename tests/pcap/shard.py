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
import os
import sys

from tests.pcap.differential import ROOT, captures, pcap_jsonl
from tests.results import Results

SHARDS = 3


def records(tool, files, shard=None):
    return pcap_jsonl(tool, files, shard)[1:]


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
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    args = ap.parse_args()
    caps = captures()
    res = Results(max_detail=20)
    spread = 0
    for files, name in [([c], os.path.relpath(c, ROOT)) for c in caps] + \
                       [(caps, f"all {len(caps)} captures in one run")]:
        problems, used, total = check(args.tool, files)
        res.check(not problems, f"{name}: {total} records, in {used} of {SHARDS} shards", problems)
        if len(files) > 1:
            spread = used
    res.check(spread >= 2, f"the records of all captures spread over several shards ({spread})")
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
