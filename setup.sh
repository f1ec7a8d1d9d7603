#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Set tlsneg up on Debian 12 and show what it sees in a capture:
#   ./setup.sh [CAPTURE]        (default: a bundled fallback-dance capture)
# Installs what is missing (apt), builds with warnings as errors, builds the
# Debian package and installs it (the plugin lands in Wireshark's global plugin
# folder, so that every user and root load it; `apt remove tlsneg` takes it
# away), then prints tlsneg's report (-z tlsneg,report) for CAPTURE.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
capture=${1:-$here/pcaps/fallback-chain.pcap}
[ -r "$capture" ] || { echo "setup.sh: cannot read $capture" >&2; exit 2; }
capture=$(cd "$(dirname "$capture")" && pwd)/$(basename "$capture")
cd "$here"

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
rm -f build/tlsneg_*.deb
cmake --build build --target package >/dev/null
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall ./build/tlsneg_*.deb \
    >/dev/null
echo "setup.sh: installed $(ls build/tlsneg_*.deb) ($(dpkg -L tlsneg | grep 'tlsneg\.so$'))"

if ! tshark -G plugins 2>/dev/null | grep -q "tlsneg"; then
    echo "setup.sh: tshark does not list tlsneg after the install" >&2
    exit 1
fi
echo
echo "== tlsneg report on $capture =="
tshark -r "$capture" -q -z tlsneg,report 2>/dev/null
echo
echo "Every hello in detail:  tshark -r '$capture' -Y tlsneg -O tlsneg -V"
echo "JSON lines, CSV:        tshark -r '$capture' -q -z tlsneg,jsonl   (or tlsneg,csv)"
if command -v tlsneg-pcap >/dev/null 2>&1; then
    echo "Without tshark, faster: tlsneg-pcap --jsonl '$capture'   (--csv, --report, -i IFACE)"
fi
echo "The findings only:      tshark -r '$capture' -Y tlsneg.finding -T fields -e frame.number -e tlsneg.finding"
