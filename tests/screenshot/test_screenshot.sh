#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the real Wireshark GUI under Xvfb with the fresh plugin, through
# tools/wireshark-screenshot.sh:
# 1. the tool produces a PNG at least 800 px wide that is not one colour;
# 2. a generated item clears the byte highlight: in tls13-openssl.pcap frame 4,
#    with the bytes pane shown, selecting *Server name* (tied to the
#    "localhost" bytes) lights bytes in the highlight colour; selecting the
#    next item, the generated *[TLS_FALLBACK_SCSV: False]*, leaves none lit
#    (before the fix, "localhost" stayed lit).
#   tests/screenshot/test_screenshot.sh [PLUGIN.so]   (default build/tlsneg.so)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
plugin=${1:-$root/build/tlsneg.so}
out=$(mktemp -d "${TMPDIR:-/tmp}/tlsneg-shot-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

if timeout 180 "$root/tools/wireshark-screenshot.sh" "$plugin" "$root/pcaps/tls13-openssl.pcap" 6 "$out/shot.png"; then
    if [ -s "$out/shot.png" ]; then
        read -r w k <<EOF2
$(identify -format '%w %k' "$out/shot.png" 2>/dev/null)
EOF2
        if [ "${w:-0}" -ge 800 ] && [ "${k:-0}" -gt 1 ]; then
            ok "screenshot ${w}px wide, $k colours"
        else
            bad "screenshot is ${w:-?}px wide with ${k:-?} colours (want >= 800 px, > 1 colour)"
        fi
    else
        bad "no PNG written"
    fi
else
    bad "tools/wireshark-screenshot.sh failed"
fi

# The highlight colour of Wireshark 4.0's byte view under Xvfb (Qt's Fusion
# highlight, read off a screenshot), counted in the bytes pane: the window's
# lower part, from 62% of its height to above the status bar.
width=1400 height=800
lit() {
    convert "$1" -crop "${width}x$((height * 38 / 100 - 30))+0+$((height * 62 / 100))" +repage \
        -fill black +opaque 'rgb(48,140,198)' -fill white -opaque 'rgb(48,140,198)' \
        -format '%[fx:round(mean*w*h)]' info: 2>/dev/null
}
# After expanding the tlsneg tree of frame 4, Down 10 times selects Server
# name, once more the generated TLS_FALLBACK_SCSV item (the tree's order:
# Summary, Message, Record version, legacy_version, 4 offered versions,
# Highest version offered, Server name, TLS_FALLBACK_SCSV).
down10="Down Down Down Down Down Down Down Down Down Down"
for step in sni scsv; do
    keys=$down10
    [ $step = scsv ] && keys="$down10 Down"
    if TLSNEG_SCREENSHOT_BYTES=1 TLSNEG_SCREENSHOT_WIDTH=$width TLSNEG_SCREENSHOT_HEIGHT=$height \
        TLSNEG_SCREENSHOT_KEYS="$keys" timeout 180 "$root/tools/wireshark-screenshot.sh" "$plugin" \
        "$root/pcaps/tls13-openssl.pcap" 4 "$out/$step.png" >/dev/null; then
        eval "lit_$step=\$(lit \"\$out/\$step.png\")"
    else
        bad "tools/wireshark-screenshot.sh failed ($step)"
    fi
done
if [ "${lit_sni:-0}" -gt 0 ]; then
    ok "Server name selected: ${lit_sni} pixels of the bytes pane highlighted"
else
    bad "Server name selected: no bytes highlighted (${lit_sni:-no picture}); the test cannot see a highlight"
fi
if [ -n "${lit_scsv-}" ] && [ "$lit_scsv" -eq 0 ]; then
    ok "the generated [TLS_FALLBACK_SCSV: False] selected next: no bytes highlighted"
else
    bad "the generated [TLS_FALLBACK_SCSV: False] selected next: ${lit_scsv:-no picture} pixels still highlighted"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
