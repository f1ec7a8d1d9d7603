#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the screenshots in docs/screenshots/ with the plugin build given
# (default build/tlsneg.so), through tools/wireshark-screenshot.sh (Wireshark under
# Xvfb; needs wireshark-qt, tshark, xvfb, xdotool, imagemagick).
#   tools/make-doc-screenshots.sh [PLUGIN.so]
# README.md shows fallback-chain-columns.png; the tutorial (docs/tutorial.md,
# docs/tutorial-whole-capture.md, docs/tutorial-exercises.md) shows them all, in its
# order. About 15 s each on an idle machine.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
plugin=${1:-$root/build/tlsneg.so}
shot=$root/tools/wireshark-screenshot.sh
dir=$root/docs/screenshots
pcaps=$root/pcaps
grease=$root/pcaps/public/zeek/tls13draft23-chrome67.0.3368.0-canary.pcap
mkdir -p "$dir"

# HelloRetryRequest: the server picks TLS 1.3 and asks for a new ClientHello.
TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$pcaps/tls13-hrr.pcap" 6 "$dir/tls13-hrr.png"
# The second ClientHello: the HelloRetryRequest it answers, what it changed.
TLSNEG_SCREENSHOT_HEIGHT=760 \
    "$shot" "$plugin" "$pcaps/tls13-hrr.pcap" 8 "$dir/tls13-hrr-second-hello.png"

# Chrome 67 canary ClientHello: TLS 1.3 draft-23 offered, six GREASE values.
frame=$(timeout 120 tshark -r "$grease" -Y 'tls.handshake.type == 1' -T fields -e frame.number 2>/dev/null | head -n1)
[ -n "$frame" ] || { echo "screenshots: no ClientHello in $grease" >&2; exit 1; }
# Its Summary is long: a wider window shows it whole.
TLSNEG_SCREENSHOT_WIDTH=1920 TLSNEG_SCREENSHOT_HEIGHT=900 \
    "$shot" "$plugin" "$grease" "$frame" "$dir/grease-chrome67.png"

# DTLS 1.2 HelloVerifyRequest: the server asks for a cookie, version DTLS 1.0.
TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$pcaps/dtls12-openssl.pcap" 2 "$dir/dtls12-hello-verify-request.png"

# The tutorial (docs/tutorial.md), scenario by scenario.

# Plain TLS 1.3: legacy_version TLS 1.2, the real offer in supported_versions.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=600 \
    "$shot" "$plugin" "$pcaps/tls13-openssl.pcap" 4 "$dir/tls13-client-hello.png"

# A TLS 1.2-only server: TLS 1.2 in legacy_version, no supported_versions.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=520 \
    "$shot" "$plugin" "$pcaps/tls12-only-server.pcap" 6 "$dir/tls12-only-server.png"

# GREASE everywhere a ClientHello may carry it (synthetic, Chrome-like).
TLSNEG_SCREENSHOT_WIDTH=1600 TLSNEG_SCREENSHOT_HEIGHT=900 \
    "$shot" "$plugin" "$pcaps/synth-grease-client.pcap" 4 "$dir/grease-synth-client.png"

# Downgrade by a man in the middle: the relayed ServerHello ends DOWNGRD\x01
# and the client had offered TLS 1.3 (a warning).
TLSNEG_SCREENSHOT_WIDTH=1600 TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$pcaps/downgrade-sentinel-mitm.pcap" 13 "$dir/downgrade-sentinel-mitm.png"

# Fallback dance without TLS_FALLBACK_SCSV: the retry after a TCP reset.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=700 \
TLSNEG_SCREENSHOT_FILTER='tlsneg || tcp.flags.reset == 1' \
    "$shot" "$plugin" "$pcaps/intolerant-rst.pcap" 10 "$dir/fallback-after-reset.png"

# A chain of fallbacks down to TLS 1.0, with custom columns for the offer,
# the version in force and the findings.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=800 \
TLSNEG_SCREENSHOT_FILTER='tlsneg.msg_type' \
TLSNEG_SCREENSHOT_COLUMNS='"No.","%m","Source","%s","Offered max","%Cus:tlsneg.offered_max:0:R","In force","%Cus:tlsneg.negotiated_version:0:R","Finding","%Cus:tlsneg.finding:0:R","Info","%i"' \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 34 "$dir/fallback-chain-columns.png"

# With TLS_FALLBACK_SCSV: the server refuses the retry (alert 86).
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=600 \
TLSNEG_SCREENSHOT_FILTER='tlsneg || tcp.flags.reset == 1' \
    "$shot" "$plugin" "$pcaps/fallback-rejected-retry.pcap" 12 "$dir/fallback-rejected.png"

# An intolerant server, seen on the failed attempt once the capture is read.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=720 \
    "$shot" "$plugin" "$pcaps/intolerant-alert.pcap" 4 "$dir/intolerant-server.png"

# DTLS 1.3 (synthetic): versions count down, legacy_version must be 0xfefd.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=720 \
    "$shot" "$plugin" "$pcaps/synth-dtls13.pcap" 1 "$dir/dtls13-legacy-version.png"

# NSS's DTLS 1.3 draft-43 client, with the profile: DTLS names in the column.
TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_HEIGHT=700 \
    "$shot" "$plugin" "$pcaps/dtls13draft-nss-client.pcap" 3 "$dir/dtls13-draft-names.png"

# QUIC (synthetic): a server that puts TLS 1.2 in force; no record layer.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=600 \
    "$shot" "$plugin" "$pcaps/synth-quic-tls12.pcap" 6 "$dir/quic-tls12.png"

# Analyze > Expert Information and Statistics > TLS Version Negotiation for
# the fallback chain.
TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=420 TLSNEG_SCREENSHOT_DIALOG=expert \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 34 "$dir/expert-info-fallback-chain.png"
TLSNEG_SCREENSHOT_WIDTH=1000 TLSNEG_SCREENSHOT_HEIGHT=480 TLSNEG_SCREENSHOT_DIALOG=stats \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 34 "$dir/stats-tree-fallback-chain.png"

# The TLS Negotiation profile (profile/): its columns (widths from its recent
# file), buttons and colours, with the "Hellos + endings" button's filter.
endings="tlsneg || tcp.flags.reset == 1 || tcp.flags.fin == 1"
TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_FILTER=$endings \
    TLSNEG_SCREENSHOT_HEIGHT=900 TLSNEG_SCREENSHOT_UPPER=190 \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 14 "$dir/profile-fallback-chain.png"
# The same attack without and with TLS_FALLBACK_SCSV (tutorial, exercise 11).
for cap in intolerant-rst fallback-rejected-retry; do
    TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_FILTER=$endings \
        TLSNEG_SCREENSHOT_HEIGHT=800 TLSNEG_SCREENSHOT_UPPER=120 \
        "$shot" "$plugin" "$pcaps/$cap.pcap" 12 "$dir/profile-$cap.png"
done
# "Failed in frame: 6" selected (End, Up: the item above the last), then
# double-clicked: Wireshark goes to the FIN the button keeps. The double
# click's place is that item's row at 1600 x 800: look at the picture.
TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_FILTER=$endings \
    TLSNEG_SCREENSHOT_HEIGHT=800 TLSNEG_SCREENSHOT_UPPER=120 TLSNEG_SCREENSHOT_KEYS="End Up" \
    "$shot" "$plugin" "$pcaps/intolerant-close.pcap" 4 "$dir/profile-endings-link.png"
TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_FILTER=$endings \
    TLSNEG_SCREENSHOT_HEIGHT=800 TLSNEG_SCREENSHOT_UPPER=120 TLSNEG_SCREENSHOT_KEYS="End Up" \
    TLSNEG_SCREENSHOT_DOUBLECLICK="120 735" \
    "$shot" "$plugin" "$pcaps/intolerant-close.pcap" 4 "$dir/profile-endings-landed.png"
# The benign sentinel (frame 11, tan) and the warning (frame 13, violet).
TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_FILTER=tlsneg \
    TLSNEG_SCREENSHOT_HEIGHT=800 TLSNEG_SCREENSHOT_UPPER=120 \
    "$shot" "$plugin" "$pcaps/downgrade-sentinel-mitm.pcap" 15 "$dir/profile-sentinels.png"
# The "Below 1.3" button on DTLS: DTLS 1.0 in force in frame 9.
TLSNEG_SCREENSHOT_PROFILE=$root/profile TLSNEG_SCREENSHOT_FILTER="tlsneg.below_tls13 == 1" \
    TLSNEG_SCREENSHOT_HEIGHT=700 TLSNEG_SCREENSHOT_UPPER=120 \
    "$shot" "$plugin" "$pcaps/synth-dtls13.pcap" 9 "$dir/profile-below13-dtls.png"
# Server name clicked, then [TLS_FALLBACK_SCSV: False] (the eleventh row of
# the expanded tree): the bytes pane no longer highlights "localhost".
TLSNEG_SCREENSHOT_BYTES=1 TLSNEG_SCREENSHOT_WIDTH=1400 TLSNEG_SCREENSHOT_HEIGHT=800 \
    TLSNEG_SCREENSHOT_KEYS="Down Down Down Down Down Down Down Down Down Down Down" \
    "$shot" "$plugin" "$pcaps/tls13-openssl.pcap" 4 "$dir/generated-item-clears-highlight.png"

# The first hello of a probe, marked once the capture has been read.
TLSNEG_SCREENSHOT_HEIGHT=760 \
    "$shot" "$plugin" "$pcaps/scan-sslscan-tls13.pcap" 16 "$dir/scan-probe-first-hello.png"

# Statistics > TLS Negotiation Ladder, at the size it opens at (620 x 450):
# a dance, a scanner, and its "Go to frame..." button taken to frame 24
# (the packet list unfiltered, frame 24 selected behind the ladder).
TLSNEG_SCREENSHOT_DIALOG=ladder TLSNEG_SCREENSHOT_WIDTH=1000 TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 4 "$dir/ladder-fallback-chain.png"
TLSNEG_SCREENSHOT_DIALOG=ladder TLSNEG_SCREENSHOT_WIDTH=1000 TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$pcaps/scan-nmap-tls12.pcap" 6 "$dir/ladder-scan-nmap.png"
TLSNEG_SCREENSHOT_DIALOG=ladder TLSNEG_SCREENSHOT_LADDER_GOTO=24 TLSNEG_SCREENSHOT_FILTER='' \
    TLSNEG_SCREENSHOT_WIDTH=1280 TLSNEG_SCREENSHOT_HEIGHT=800 \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 4 "$dir/ladder-go-to-frame.png"

# Wireshark's own Statistics > Flow Graph of the dance: All Flows, limited to
# the display filter "tlsneg || tcp.flags.reset == 1" (tlsneg's Info notes
# as the arrows' labels).
TLSNEG_SCREENSHOT_DIALOG=flow TLSNEG_SCREENSHOT_FILTER="tlsneg || tcp.flags.reset == 1" \
    TLSNEG_SCREENSHOT_WIDTH=1280 TLSNEG_SCREENSHOT_HEIGHT=800 \
    "$shot" "$plugin" "$pcaps/fallback-chain.pcap" 4 "$dir/flow-graph-fallback-chain.png"
