#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what tlsneg needs to build, test and make captures on Debian 12.
# Runs apt-get only for what is missing, and npm only if DuckDB is missing;
# needs root or sudo for that.
set -eu
pkgs="build-essential dpkg-dev file cmake pkg-config clang-format shellcheck
      wireshark-dev libwireshark-dev tshark libglib2.0-dev libpcap-dev libgcrypt20-dev python3
      python3-cryptography python3-jsonschema openssl gnutls-bin curl iproute2 util-linux
      xvfb wireshark-qt xdotool imagemagick debootstrap slurm-wlm munge parallel"
# Node.js for DuckDB (below): any Node.js 18 or later, Debian's or another.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    pkgs="$pkgs nodejs npm"
fi
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# sudo resets the environment: DEBIAN_FRONTEND goes through env(1).
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ -n "$missing" ]; then
    echo "tlsneg: installing$missing"
    # tshark asks whether non-root users may capture; the default (no) is fine.
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086 # one package a word
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# DuckDB for tests/pcap/scheduler.py (docs/tlsneg-pcap.md): the npm package
# @duckdb/node-api, whose platform package carries the library, in a cache
# folder of its own ($TLSNEG_NPM_DIR).
npm_dir=${TLSNEG_NPM_DIR:-/var/cache/tlsneg-npm}
version=1.5.6-r.1
if ! grep -qs "\"version\": \"$version\"" "$npm_dir/node_modules/@duckdb/node-api/package.json"; then
    echo "tlsneg: installing @duckdb/node-api@$version into $npm_dir"
    $sudo mkdir -p "$npm_dir"
    $sudo npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
        "@duckdb/node-api@$version" >/dev/null
fi
