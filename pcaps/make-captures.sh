#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-captures.sh: regenerate the scenario captures in pcaps/ from real TLS
# stacks talking over loopback (plus the synthetic ones that synth.py writes).
#
# The script runs itself in a network namespace of its own (unshare -n), whose
# loopback is the only interface: no real network is touched. There each
# party has an address of its own, so that the captures read like a network:
# client 127.0.0.2, server 127.0.0.3, the server behind tlsproxy.py (the
# backend) 127.0.0.4, a second client 127.0.0.5; over IPv6, client
# 2001:db8::2 and server 2001:db8::3 (RFC 3849 documentation prefix). Clients
# that cannot bind (openssl s_client 3.0 has no -bind) get their source
# address from the routes: 127.0.0.0/8 with src 127.0.0.2, 127.0.0.4 with
# src 127.0.0.3 (the proxy's side), 2001:db8::3 with src 2001:db8::2.
#
# Usage (as root, capturing on lo needs it):
#   pcaps/make-captures.sh                 # every scenario
#   pcaps/make-captures.sh tls13-hrr ...   # only these (names without .pcap)
#   OUT=/some/dir pcaps/make-captures.sh   # write elsewhere (default: pcaps/)
#
# Each run gives new randoms, keys and ports on the client side, and may shift
# frame numbers by a delayed ACK, so the committed captures are the reference
# that tests/captures/expect/ describes; regenerate only on purpose, then
# re-read every manifest value off the new bytes.
#
# Debian 12 packages: tshark (brings wireshark-common: dumpcap), openssl,
# gnutls-bin, curl, python3, iproute2 (ss, ip), util-linux (unshare),
# coreutils (timeout); for the Java,
# Go and NSS scenarios openjdk-17-jdk-headless, golang-go and libnss3-tools;
# for the scan-* scenarios sslscan, nmap and testssl.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here}
# Debian's own interpreter, so the "Python" stack is Debian's libssl3.
py=${PYTHON:-/usr/bin/python3}

all_scenarios=(
    tls13-openssl
    sni-odd-bytes
    tls12-only-server
    tls12-client-tls13-server
    tls13-hrr
    dtls12-openssl
    tls13-gnutls
    tls13-curl
    tls13-python
    client-hello-many-segments
    client-hello-many-records
    sslv2-client-hello
    fallback-scsv-tls12
    fallback-scsv-rejected
    fallback-scsv-with-tls13
    protocol-version-alert
    protocol-version-alert-tls13-only-server
    tls10-seclevel0
    tls11-seclevel0
    downgrade-sentinel-mitm
    intolerant-rst
    intolerant-alert
    intolerant-close
    intolerant-rst-scsv
    fallback-chain
    fallback-rejected-retry
    nofallback-parallel
    nofallback-preconnect
    nofallback-same-version
    fallback-transient-failure
    nofallback-lower-after-success
    nofallback-sni
    nofallback-other-client
    nofallback-long-gap
    resumption-tls12
    resumption-tls12-offered-tls13
    sentinel-tls12-server
    downgrade-sentinel-tls11-mitm
    ignored-scsv-java
    ignored-scsv-java-tls11
    go-client-tls12
    go-client-hrr
    tls13-ipv6
    dtls13draft-nss-client
    fallback-draft-era
    scan-sslscan-tls13
    scan-sslscan-tls12
    scan-nmap-tls13
    scan-nmap-tls12
    scan-testssl-tls13
    scan-testssl-tls12
    late-duplicate-close-notify
    sni-mismatch-warning
)

me=make-captures
# shellcheck source=SCRIPTDIR/capture-common.sh
. "$here/capture-common.sh"

select_scenarios "${all_scenarios[@]}" -- "$@"

for cmd in dumpcap tshark openssl gnutls-cli gnutls-serv curl ss timeout "$py"; do
    command -v "$cmd" >/dev/null || die "missing command $cmd (see the package list at the top)"
done
[ "$(id -u)" -eq 0 ] || die "run as root (a network namespace, dumpcap on lo)"

client_addr=127.0.0.2
server_addr=127.0.0.3
backend_addr=127.0.0.4
client2_addr=127.0.0.5
client6_addr=2001:db8::2
server6_addr=2001:db8::3

# Run again in a network namespace of its own, then set up its loopback.
if [ "${TLSNEG_CAPTURE_NETNS:-}" != "$$" ]; then
    for cmd in unshare ip; do
        command -v "$cmd" >/dev/null || die "missing command $cmd (see the package list at the top)"
    done
    TLSNEG_CAPTURE_NETNS=$$ exec unshare -n -- "$BASH" "${BASH_SOURCE[0]}" "$@"
fi
ip link set lo up
export TLSPEER_HOST=$server_addr
ip route replace local 127.0.0.0/8 dev lo table local proto kernel scope host src "$client_addr"
ip route add local "$backend_addr" dev lo table local scope host src "$server_addr"
ip -6 addr add "$client6_addr/128" dev lo nodad
ip -6 addr add "$server6_addr/128" dev lo nodad
# The kernel adds the address's local route a moment later on some hosts.
for _ in 1 2 3 4 5 6 7 8 9 10; do
    ip -6 route show table local | grep -q "^local $server6_addr " && break
    sleep 0.1
done
ip -6 route del local "$server6_addr" dev lo table local
ip -6 route add local "$server6_addr" dev lo table local proto kernel src "$client6_addr"
ip -o route get "$server_addr" | grep -q " src $client_addr " || die "the route to $server_addr has no src $client_addr"
ip -o route get "$backend_addr" | grep -q " src $server_addr " || die "the route to $backend_addr has no src $server_addr"
ip -o -6 route get "$server6_addr" | grep -q " src $client6_addr " || die "the route to $server6_addr has no src $client6_addr"

tmp=$(mktemp -d)
cap_pid=
server_pid=
cleanup() {
    # Only the processes this script started, by their pid.
    for pid in $server_pid ${proxy_pid:-} $cap_pid; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# A throwaway self-signed P-256 certificate for "localhost" (small: keeps the
# captures small).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost 2>/dev/null
cert=$tmp/cert.pem
key=$tmp/key.pem

# The helpers, then the scenarios by theme; each scenario_NAME function
# makes NAME.pcap, in the order of all_scenarios above.
# shellcheck source=SCRIPTDIR/make-captures-lib.sh
. "$here/make-captures-lib.sh"
# shellcheck source=SCRIPTDIR/make-captures-handshakes.sh
. "$here/make-captures-handshakes.sh"
# shellcheck source=SCRIPTDIR/make-captures-fallback.sh
. "$here/make-captures-fallback.sh"
# shellcheck source=SCRIPTDIR/make-captures-retries.sh
. "$here/make-captures-retries.sh"
# shellcheck source=SCRIPTDIR/make-captures-stacks.sh
. "$here/make-captures-stacks.sh"
# shellcheck source=SCRIPTDIR/make-captures-scanners.sh
. "$here/make-captures-scanners.sh"

# ---------------------------------------------------------------- main

mkdir -p "$out"
for s in "${scenarios[@]}"; do
    log "$s"
    "scenario_$s"
    [ "$s" = sslv2-client-hello ] || check_hosts "$s"
    log "  -> $out/$s.pcap ($(stat -c %s "$out/$s.pcap") bytes)"
done
