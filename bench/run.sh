#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tlsneg benchmark: bench/run.sh [--sizes 10k,100k,1M] [--slice 10k] [--reps 3] [--keep]
# Writes a Markdown table (ratios to plain tshark) to stdout and bench/results.md.
# bench/run.sh --pcap [--sizes 10k,100k,1M] [--tshark-sizes 10k,100k]: tlsneg-pcap
# against tshark with the plugin (bench_pcap.py), to bench/results-pcap-DATE.md.
# Needs tshark, valgrind, time (/usr/bin/time), cmake, a C compiler and
# wireshark-dev; see bench/README.md. Run as root or as a normal user.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
if [ "${1:-}" = "--pcap" ]; then
    shift
    exec python3 -m bench.bench_pcap "$@"
fi
exec python3 -m bench.bench "$@"
