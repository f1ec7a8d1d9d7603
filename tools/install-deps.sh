#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what tlsneg needs to build, test and make captures on Debian 12.
# Runs apt-get only for what is missing; needs root or sudo for that.
set -eu
pkgs="build-essential dpkg-dev file cmake pkg-config clang-format shellcheck
      wireshark-dev libwireshark-dev tshark libglib2.0-dev libpcap-dev libgcrypt20-dev python3
      python3-cryptography python3-jsonschema openssl gnutls-bin curl iproute2 util-linux
      xvfb wireshark-qt xdotool imagemagick debootstrap"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "tlsneg: installing$missing"
# sudo resets the environment: DEBIAN_FRONTEND goes through env(1).
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# tshark asks whether non-root users may capture; the default (no) is fine.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086 # one package a word
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
