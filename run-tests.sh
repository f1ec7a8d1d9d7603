#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite: installs what is missing, then builds and tests twice,
# once as users get it (warnings as errors, every test) and once under
# ASan + UBSan (what can find memory bugs: the unit tests, the fuzz replays,
# tlsneg-pcap over every capture, the mutation smoke test and one sweep of
# tshark with the plugin over every capture; tests/CMakeLists.txt).
# ctest runs as many tests at once as there are cores.
set -eu
cd "$(dirname "$0")"
tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
took() { echo "== $1: $(($(date +%s) - $2)) s =="; }

echo "== release build =="
t=$(date +%s)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLSNEG_SANITIZE=OFF -DTLSNEG_BUILD_PLUGIN=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest -j"$jobs" --output-on-failure)
took "release build and tests" "$t"

echo "== ASan + UBSan build =="
t=$(date +%s)
cmake -S . -B build-asan -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Debug -DTLSNEG_SANITIZE=ON \
    -DTLSNEG_BUILD_PLUGIN=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest -j"$jobs" --output-on-failure)
took "sanitizer build and tests" "$t"
took "run-tests.sh" "$start"
