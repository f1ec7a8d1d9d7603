#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite: installs what is missing, then builds and tests twice,
# once as users get it (warnings as errors) and once under ASan + UBSan.
set -eu
cd "$(dirname "$0")"
tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== release build =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLSNEG_SANITIZE=OFF -DTLSNEG_BUILD_PLUGIN=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure)

echo "== ASan + UBSan build: every test again, the plugin inside tshark included =="
cmake -S . -B build-asan -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Debug -DTLSNEG_SANITIZE=ON \
    -DTLSNEG_BUILD_PLUGIN=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure)
