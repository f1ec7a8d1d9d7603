#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Smoke test of tools/wireshark-screenshot.sh: the real Wireshark GUI under Xvfb with the
# fresh plugin must produce a PNG at least 800 px wide that is not one colour.
#   tests/screenshot/test_screenshot.sh [PLUGIN.so]   (default build/tlsneg.so)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
plugin=${1:-$root/build/tlsneg.so}
out=$(mktemp -d "${TMPDIR:-/tmp}/tlsneg-shot-test.XXXXXX")
trap 'rm -rf "$out"' EXIT

ok=0
if timeout 180 "$root/tools/wireshark-screenshot.sh" "$plugin" "$root/pcaps/tls13-openssl.pcap" 6 "$out/shot.png"; then
    if [ -s "$out/shot.png" ]; then
        read -r w k <<EOF2
$(identify -format '%w %k' "$out/shot.png" 2>/dev/null)
EOF2
        if [ "${w:-0}" -ge 800 ] && [ "${k:-0}" -gt 1 ]; then
            ok=1
            echo "ok: screenshot ${w}px wide, $k colours"
        else
            echo "FAIL: screenshot is ${w:-?}px wide with ${k:-?} colours (want >= 800 px, > 1 colour)"
        fi
    else
        echo "FAIL: no PNG written"
    fi
else
    echo "FAIL: tools/wireshark-screenshot.sh failed"
fi

if [ $ok -eq 1 ]; then
    echo "1 passed, 0 failed"
    exit 0
fi
echo "0 passed, 1 failed"
exit 1
