#!/bin/sh
# Regenerate the screenshots in docs/screenshots/ with the plugin build given
# (default build/tlsneg.so), through tools/screenshot.sh (Wireshark under
# Xvfb; needs wireshark-qt, tshark, xvfb, xdotool, imagemagick).
#   tools/screenshots.sh [PLUGIN.so]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
plugin=${1:-$root/build/tlsneg.so}
shot=$root/tools/screenshot.sh
dir=$root/docs/screenshots
grease=$root/../shared/captures/zeek/tls13draft23-chrome67.0.3368.0-canary.pcap
mkdir -p "$dir"

# HelloRetryRequest: the server picks TLS 1.3 and asks for a new ClientHello.
TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$root/pcaps/tls13-hrr.pcap" 6 "$dir/tls13-hrr.png"

# Chrome 67 canary ClientHello: TLS 1.3 draft-23 offered, six GREASE values.
if [ -r "$grease" ]; then
    frame=$(timeout 120 tshark -r "$grease" -Y 'tls.handshake.type == 1' -T fields -e frame.number 2>/dev/null | head -n1)
    [ -n "$frame" ] || { echo "screenshots: no ClientHello in $grease" >&2; exit 1; }
    # Its Summary is long: a wider window shows it whole.
    TLSNEG_SCREENSHOT_WIDTH=1920 TLSNEG_SCREENSHOT_HEIGHT=900 \
        "$shot" "$plugin" "$grease" "$frame" "$dir/grease-chrome67.png"
else
    echo "screenshots: $grease not found, grease-chrome67.png not regenerated" >&2
    exit 1
fi

# DTLS 1.2 HelloVerifyRequest: the server asks for a cookie, version DTLS 1.0.
TLSNEG_SCREENSHOT_HEIGHT=640 \
    "$shot" "$plugin" "$root/pcaps/dtls12-openssl.pcap" 2 "$dir/dtls12-hello-verify-request.png"
