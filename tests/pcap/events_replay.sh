#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pcap.events-replay: tlsneg-pcap --events writes the events of a capture
# in the replay format of lib/replay/events.h, and their replay
# (tlsneg-dump --events --jsonl --csv --report) writes byte for byte what
# tlsneg-pcap --jsonl --csv --report writes: on every capture under pcaps/
# (pcaps/public/ included), each alone, then all of them in one run (one
# capture, frames numbered on), with --threads 1 and 2. Prints TAP.
#   tests/pcap/events_replay.sh TLSNEG_PCAP TLSNEG_DUMP SOURCE_DIR
set -eu
pcap=$1
dump=$2
root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
failed=0

# check NAME ARGS...: one comparison; ARGS are tlsneg-pcap's.
check() {
    name=$1
    shift
    n=$((n + 1))
    s1=0
    s2=0
    s3=0
    "$pcap" -q --events "$@" >"$work/events" 2>/dev/null || s1=$?
    "$dump" --events --jsonl --csv --report <"$work/events" >"$work/replayed" || s2=$?
    "$pcap" -q --jsonl --csv --report "$@" >"$work/direct" 2>/dev/null || s3=$?
    if [ "$s1" = "$s3" ] && [ "$s2" = 0 ] && [ -s "$work/direct" ] &&
        cmp -s "$work/replayed" "$work/direct"; then
        echo "ok $n - $name"
    else
        failed=$((failed + 1))
        echo "not ok $n - $name (tlsneg-pcap exits $s1 and $s3, tlsneg-dump $s2)"
        diff "$work/direct" "$work/replayed" | head -n 5 | sed 's/^/#   /' || true
    fi
}

find "$root/pcaps" -name '*.pcap*' -type f | sort >"$work/list"
while IFS= read -r f; do
    for t in 1 2; do
        check "${f#"$root"/} --threads $t" --threads "$t" "$f"
    done
done <"$work/list"
set --
while IFS= read -r f; do
    set -- "$@" "$f"
done <"$work/list"
for t in 1 2; do
    check "all $# captures in one run, --threads $t" --threads "$t" "$@"
done
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
