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

# ---------------------------------------------------------------- helpers

# cap_start NAME PORT: capture lo, port PORT, in pcap format; returns once
# dumpcap is capturing. A 30 s autostop bounds it even if cap_stop never runs.
cap_start() {
    local name=$1 port=$2 i
    if ss -Hltun "sport = :$port" | grep -q .; then
        die "port $port is in use"
    fi
    : >"$tmp/$name.dumpcap.log"
    dumpcap -q -i lo -f "port $port" -P -a duration:30 -w "$tmp/$name.pcap" \
        2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    for i in $(seq 100); do
        grep -q 'Capturing on' "$tmp/$name.dumpcap.log" && return 0
        kill -0 "$cap_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$tmp/$name.dumpcap.log" >&2
    die "$name: dumpcap did not start"
}

# cap_stop NAME: let the last packets arrive, stop dumpcap with SIGINT (it
# then closes the file properly), install the file.
cap_stop() {
    local name=$1
    sleep 0.5
    kill -INT "$cap_pid"
    wait "$cap_pid" || true
    cap_pid=
    [ -s "$tmp/$name.pcap" ] || die "$name: empty capture"
    install -m 644 "$tmp/$name.pcap" "$out/$name.pcap"
}

# server_start NAME CMD...: run a server in the background (bounded by timeout).
server_start() {
    local name=$1
    shift
    timeout 10 "$@" >"$tmp/$name.server.log" 2>&1 &
    server_pid=$!
}

# wait_listen NAME PORT [u]: wait until something listens on PORT
# (TCP, or UDP with u).
wait_listen() {
    local name=$1 port=$2 proto=${3:-t} i
    for i in $(seq 100); do
        ss -Hl"${proto}"n "sport = :$port" | grep -q . && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$tmp/$name.server.log" >&2
    die "$name: server is not listening on port $port"
}

# server_wait NAME: wait for a server that exits by itself after one connection.
server_wait() {
    local name=$1 rc=0
    wait "$server_pid" || rc=$?
    server_pid=
    if [ "$rc" -ne 0 ]; then
        cat "$tmp/$name.server.log" >&2
        die "$name: server exited with $rc"
    fi
}

# server_kill: stop a server that does not exit by itself.
server_kill() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
}

# client NAME CMD...: run a client, bounded, stdin closed; fail with its log.
client() {
    local name=$1 rc=0
    shift
    timeout 10 "$@" </dev/null >"$tmp/$name.client.log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$tmp/$name.client.log" >&2
        die "$name: client exited with $rc"
    fi
}

# check_hosts NAME: every packet goes between two parties of the scenario
# (client or second client and server, server and backend, or the IPv6
# client and server), in either direction; none from an address to itself.
check_hosts() {
    local name=$1 bad
    bad=$(tshark -r "$out/$name.pcap" -T fields -E separator=' ' -e ip.src -e ip.dst \
        -e ipv6.src -e ipv6.dst 2>/dev/null | sort -u |
        awk -v c="$client_addr" -v c2="$client2_addr" -v s="$server_addr" -v b="$backend_addr" \
            -v c6="$client6_addr" -v s6="$server6_addr" '
            { ok[c " " s]; ok[c2 " " s]; ok[s " " b]; ok[c6 " " s6] }
            !(($1 " " $2) in ok) && !(($2 " " $1) in ok) { print }')
    [ -z "$bad" ] || die "$name: packets between unexpected addresses: $bad"
    [ -n "$(fields "$name" "ip.src == $client_addr || ipv6.src == $client6_addr" frame.number)" ] ||
        die "$name: nothing from the client's address"
}

# ---------------------------------------------------------------- scenarios
# Each one: its own port, capture, server, client, stop, then a check with
# tshark that the capture shows what the scenario is about.

openssl_server_on() { # ADDRESS NAME PORT [s_server options...]
    local addr=$1 name=$2 port=$3
    shift 3
    server_start "$name" openssl s_server -accept "$addr:$port" -cert "$cert" -key "$key" \
        -naccept 1 -quiet "$@"
    wait_listen "$name" "$port"
}

# openssl_server NAME PORT [options...]: s_server on the server's address;
# backend_server likewise on the backend's (behind tlsproxy.py).
openssl_server() { openssl_server_on "$server_addr" "$@"; }
backend_server() { openssl_server_on "$backend_addr" "$@"; }

scenario_tls13-openssl() {
    local n=tls13-openssl p=44301
    cap_start $n $p
    openssl_server $n $p
    client $n openssl s_client -connect "$server_addr:$p" -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "localhost"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

# Three server names no DNS name has, as OpenSSL 3.0 s_client sends them (it
# checks nothing): a quote and a comma, CR LF, and bytes that are not UTF-8.
# For the CSV and JSON writers and the tree: one rendering of odd bytes.
scenario_sni-odd-bytes() {
    local n=sni-odd-bytes p=44367 name
    cap_start $n $p
    server_start $n openssl s_server -accept "$server_addr:$p" -cert "$cert" -key "$key" \
        -naccept 3 -quiet
    wait_listen $n $p
    for name in 'q"uo"te,comma.example' "$(printf 'cr\r\nlf.example')" \
        "$(printf 'bad\377utf8\303.example')"; do
        client $n openssl s_client -connect "$server_addr:$p" -servername "$name"
    done
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name contains "\x22uo\x22te,"' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name contains "\x0d\x0a"' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extension.type == 0 && frame contains "bad\xffutf8\xc3.example"' 1
    expect_count $n 'tls.handshake.type == 2' 3
}

scenario_tls12-only-server() {
    local n=tls12-only-server p=44302
    cap_start $n $p
    openssl_server $n $p -tls1_2
    client $n openssl s_client -connect "$server_addr:$p" -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303 && !tls.handshake.extensions.supported_version' 1
}

scenario_tls12-client-tls13-server() {
    local n=tls12-client-tls13-server p=44303
    cap_start $n $p
    openssl_server $n $p
    client $n openssl s_client -tls1_2 -connect "$server_addr:$p" -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && !tls.handshake.extension.type == 43' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
}

scenario_tls13-hrr() {
    local n=tls13-hrr p=44304
    cap_start $n $p
    # The client sends a key share for its first group only (X25519); the
    # server accepts P-256 only, so it must ask again.
    openssl_server $n $p -groups P-256
    client $n openssl s_client -connect "$server_addr:$p" -servername localhost -groups X25519:P-256
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.random == cf:21:ad:74:e5:9a:61:11:be:1d:8c:02:1e:65:b8:91:c2:a2:11:16:7a:bb:8c:5e:07:9e:09:e2:c8:a8:33:9c' 1
    expect_count $n 'tls.handshake.type == 2' 2
}

scenario_dtls12-openssl() {
    local n=dtls12-openssl p=44305
    cap_start $n $p
    server_start $n openssl s_server -dtls1_2 -accept "$server_addr:$p" -cert "$cert" -key "$key" \
        -naccept 1 -quiet
    wait_listen $n $p u
    client $n openssl s_client -dtls1_2 -connect "$server_addr:$p" -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'dtls.handshake.type == 3' 1
    expect_count $n 'dtls.handshake.type == 1' 2
    expect_count $n 'dtls.handshake.type == 2' 1
}

scenario_tls13-gnutls() {
    local n=tls13-gnutls p=44306
    cap_start $n $p
    server_start $n gnutls-serv --x509certfile "$cert" --x509keyfile "$key" -p $p
    wait_listen $n $p
    # Connect to the address (not "localhost", which may resolve to ::1), send SNI.
    client $n gnutls-cli --insecure -p $p --sni-hostname localhost "$server_addr"
    server_kill
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "localhost"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_tls13-curl() {
    local n=tls13-curl p=44307
    mkdir -p "$tmp/www"
    printf 'hello from tlsneg\n' >"$tmp/www/index.txt"
    cap_start $n $p
    # -WWW serves files from the current directory: a tiny reply keeps the capture small.
    (cd "$tmp/www" && exec timeout 10 openssl s_server -accept "$server_addr:$p" -cert "$cert" \
        -key "$key" -naccept 1 -quiet -WWW) >"$tmp/$n.server.log" 2>&1 &
    server_pid=$!
    wait_listen $n $p
    client $n curl -sS -k --resolve "localhost:$p:$server_addr" "https://localhost:$p/index.txt"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "localhost"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_tls13-python() {
    local n=tls13-python p=44308
    cap_start $n $p
    server_start $n "$py" "$here/tlspeer.py" server $p "$cert" "$key"
    wait_listen $n $p
    client $n "$py" "$here/tlspeer.py" client $p "$cert"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "localhost"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_client-hello-many-segments() {
    local n=client-hello-many-segments p=44309
    cap_start $n $p
    openssl_server $n $p
    # Python's ClientHello (517 bytes) written 50 bytes at a time, 20 ms apart.
    client $n "$py" "$here/tlspeer.py" chunked $p "$cert" 50 20
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tcp.segment.count >= 10' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_client-hello-many-records() {
    local n=client-hello-many-records p=44310 alpn=h2,http/1.1 i
    # OpenSSL cuts every record it sends, the ClientHello included, at
    # -max_send_frag bytes (512 is the least it takes). A long ALPN list makes
    # the hello about 1.2 KB, hence three records in one TCP segment.
    for i in $(seq -w 1 20); do
        alpn+=",tlsneg-filler-protocol-$i-abcdefghijklmnopqr"
    done
    cap_start $n $p
    openssl_server $n $p
    client $n openssl s_client -connect "$server_addr:$p" -servername localhost \
        -max_send_frag 512 -alpn "$alpn"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.fragment.count == 3' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_sslv2-client-hello() {
    local n=sslv2-client-hello
    # No Debian 12 stack sends an SSLv2-compatible ClientHello: synthetic.
    "$py" "$here/synth.py" "$tmp" $n
    install -m 644 "$tmp/$n.pcap" "$out/$n.pcap"
    expect_count $n 'tls.record.version == 0x0002 && tls.handshake.type == 1 && tls.handshake.cipherspec == 0x005600' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0301' 1
}

# ---------------------------------------------------------------- conformance
# and cross-connection scenarios (issues 3 and 4): fallback SCSV, alerts 70 and
# 86, TLS 1.0/1.1, a downgrade seen through a man in the middle, and retries
# after failures that tlsproxy.py (a proxy in front of a real s_server) causes.

proxy_pid=

# cap_start_on NAME SECONDS PORT...: like cap_start, on several ports and with
# its own autostop.
cap_start_on() {
    local name=$1 secs=$2 filter='' port i
    shift 2
    for port in "$@"; do
        ss -Hltun "sport = :$port" | grep -q . && die "port $port is in use"
        filter+="${filter:+ or }port $port"
    done
    : >"$tmp/$name.dumpcap.log"
    dumpcap -q -i lo -f "$filter" -P -a "duration:$secs" -w "$tmp/$name.pcap" \
        2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    for i in $(seq 100); do
        grep -q 'Capturing on' "$tmp/$name.dumpcap.log" && return 0
        kill -0 "$cap_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$tmp/$name.dumpcap.log" >&2
    die "$name: dumpcap did not start"
}

# proxy_start NAME SECONDS PORT tlsproxy.py-ARGS...: run tlsproxy.py (bounded),
# wait until it listens on PORT (on the server's address, forwarding to the
# backend's).
proxy_start() {
    local name=$1 secs=$2 port=$3 i
    shift 3
    TLSPROXY_LISTEN=$server_addr TLSPROXY_BACKEND=$backend_addr \
        timeout "$secs" "$py" "$here/tlsproxy.py" "$@" >"$tmp/$name.proxy.log" 2>&1 &
    proxy_pid=$!
    for i in $(seq 100); do
        ss -Hltn "sport = :$port" | grep -q . && return 0
        kill -0 "$proxy_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$tmp/$name.proxy.log" >&2
    die "$name: proxy is not listening on port $port"
}

# proxy_wait NAME: the proxy exits by itself after its connections.
proxy_wait() {
    local name=$1 rc=0
    wait "$proxy_pid" || rc=$?
    proxy_pid=
    if [ "$rc" -ne 0 ]; then
        cat "$tmp/$name.proxy.log" >&2
        die "$name: proxy exited with $rc"
    fi
}

# client_fails NAME CMD...: like client, but the client must fail.
client_fails() {
    local name=$1 rc=0
    shift
    timeout 10 "$@" </dev/null >"$tmp/$name.client.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
        cat "$tmp/$name.client.log" >&2
        die "$name: client should have failed, exited with $rc"
    fi
}

seclevel0=(-cipher DEFAULT:@SECLEVEL=0)

scenario_fallback-scsv-tls12() {
    local n=fallback-scsv-tls12 p=44311
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p -tls1_2
    client $n "${sc[@]}" -tls1_2 -fallback_scsv
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.ciphersuite == 0x5600' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
    expect_count $n 'tls.alert_message.desc' 0
}

scenario_fallback-scsv-rejected() {
    local n=fallback-scsv-rejected p=44312
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p
    client_fails $n "${sc[@]}" -tls1_2 -fallback_scsv
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.ciphersuite == 0x5600' 1
    expect_count $n 'tls.handshake.type == 2' 0
    expect_count $n 'tls.alert_message.desc == 86' 1
}

scenario_fallback-scsv-with-tls13() {
    local n=fallback-scsv-with-tls13 p=44313
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p
    client $n "${sc[@]}" -fallback_scsv
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.ciphersuite == 0x5600 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_protocol-version-alert() {
    local n=protocol-version-alert p=44314
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p -tls1_2
    client_fails $n "${sc[@]}" -tls1_3
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2' 0
    expect_count $n 'tls.alert_message.desc == 70' 1
}

scenario_protocol-version-alert-tls13-only-server() {
    local n=protocol-version-alert-tls13-only-server p=44315
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p -tls1_3
    client_fails $n "${sc[@]}" -tls1_2
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && !tls.handshake.extension.type == 43' 1
    expect_count $n 'tls.handshake.type == 2' 0
    expect_count $n 'tls.alert_message.desc == 70' 1
}

# OpenSSL 3.0 does TLS 1.0/1.1 only at security level 0 (no SHA-1/MD5
# signatures otherwise), on both ends. The server keeps its default versions.
scenario_tls10-seclevel0() {
    local n=tls10-seclevel0 p=44316
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p "${seclevel0[@]}"
    client $n "${sc[@]}" -tls1 "${seclevel0[@]}"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.version == 0x0301' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0301' 1
}

scenario_tls11-seclevel0() {
    local n=tls11-seclevel0 p=44317
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p "${seclevel0[@]}"
    client $n "${sc[@]}" -tls1_1 "${seclevel0[@]}"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.version == 0x0302' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0302' 1
}

# s_client (offers 1.3) -> tlsproxy.py strip-sv on 44318 -> s_server (1.3
# capable) on 44319; both legs in one file. The server, seeing no
# supported_versions, negotiates TLS 1.2 and marks its random DOWNGRD\x01; the
# proxy relays that ServerHello unchanged, and the client aborts (alert 47).
scenario_downgrade-sentinel-mitm() {
    local n=downgrade-sentinel-mitm p=44318 b=44319
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start_on $n 30 $p $b
    backend_server $n $b
    proxy_start $n 10 $p strip-sv $p $b
    client_fails $n "${sc[@]}"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n "tls.handshake.type == 1 && tcp.dstport == $p && tls.handshake.extensions.supported_version == 0x0304" 1
    expect_count $n "tls.handshake.type == 1 && tcp.dstport == $b && !tls.handshake.extension.type == 43" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.random contains 44:4f:57:4e:47:52:44:01' 2
    expect_count $n 'tls.alert_message.desc == 47' 2
}

# intolerant_scenario NAME PORT KIND [retry options...]: s_client offering 1.3
# meets tlsproxy.py playing a TLS 1.2 server intolerant of the 1.3 offer (it
# fails by KIND); the retry with -tls1_2 (and the options) is relayed to a real
# s_server -tls1_2 on PORT+1. Only the client-facing port is captured.
# (Ports 44320-44322 are left out: tshark decodes 44321 and 44322 as PCP.)
intolerant_scenario() {
    local n=$1 p=$2 kind=$3 b=$(($2 + 1))
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    shift 3
    cap_start "$n" "$p"
    backend_server "$n" "$b" -tls1_2
    proxy_start "$n" 15 "$p" intolerant "$p" "$b" 0303 "$kind" 2
    client_fails "$n" "${sc[@]}"
    client "$n" "${sc[@]}" -tls1_2 "$@"
    proxy_wait "$n"
    server_wait "$n"
    cap_stop "$n"
    expect_count "$n" 'tls.handshake.type == 1' 2
    expect_count "$n" 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count "$n" 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
}

scenario_intolerant-rst() {
    intolerant_scenario intolerant-rst 44323 rst
    expect_count intolerant-rst 'tcp.flags.reset == 1' 1
    expect_count intolerant-rst 'tls.handshake.ciphersuite == 0x5600' 0
}

scenario_intolerant-alert() {
    intolerant_scenario intolerant-alert 44325 alert
    expect_count intolerant-alert 'tls.alert_message.desc == 40' 1
}

scenario_intolerant-close() {
    intolerant_scenario intolerant-close 44327 close
    expect_count intolerant-close 'tcp.flags.reset == 1' 0
    expect_count intolerant-close 'tcp.flags.fin == 1' 4
    expect_count intolerant-close 'tls.alert_message.desc == 50' 1
}

scenario_intolerant-rst-scsv() {
    intolerant_scenario intolerant-rst-scsv 44329 rst -fallback_scsv
    expect_count intolerant-rst-scsv 'tcp.flags.reset == 1' 1
    expect_count intolerant-rst-scsv 'tls.handshake.type == 1 && tls.handshake.ciphersuite == 0x5600' 1
}

# A TLS 1.0 server intolerant of anything above 1.0 (alert 40 in a 0x0301
# record): the client steps down 1.3, 1.2, 1.1, 1.0; the last is relayed to
# s_server -tls1. Security level 0 where OpenSSL needs it (1.1, 1.0).
scenario_fallback-chain() {
    local n=fallback-chain p=44331 b=44332
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    backend_server $n $b -tls1 "${seclevel0[@]}"
    proxy_start $n 20 $p intolerant $p $b 0301 alert 4
    client_fails $n "${sc[@]}"
    client_fails $n "${sc[@]}" -tls1_2
    client_fails $n "${sc[@]}" -tls1_1 "${seclevel0[@]}"
    client $n "${sc[@]}" -tls1 "${seclevel0[@]}"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 4
    expect_count $n 'tls.alert_message.desc == 40' 3
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0301' 1
}

# The first attempt fails (RST); the retry, -tls1_2 -fallback_scsv, reaches a
# TLS 1.3-capable s_server, which rejects it with alert 86.
scenario_fallback-rejected-retry() {
    local n=fallback-rejected-retry p=44333 b=44334
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    backend_server $n $b
    proxy_start $n 15 $p fail-first $p $b rst 2
    client_fails $n "${sc[@]}"
    client_fails $n "${sc[@]}" -tls1_2 -fallback_scsv
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tcp.flags.reset == 1' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.ciphersuite == 0x5600' 1
    expect_count $n 'tls.alert_message.desc == 86' 1
}

# Two s_clients at once, same options. Both clients and the server keep their
# stdin open for a while (s_server closes a connection when its stdin ends), so
# the first connection is still open when the second sends its ClientHello;
# s_server serves one connection at a time, so the second ServerHello comes
# after the first connection is closed.
scenario_nofallback-parallel() {
    local n=nofallback-parallel p=44335 c1 c2 rc1=0 rc2=0
    cap_start $n $p
    sleep 3 | timeout 10 openssl s_server -accept "$server_addr:$p" -cert "$cert" -key "$key" \
        -naccept 2 -quiet >"$tmp/$n.server.log" 2>&1 &
    server_pid=$!
    wait_listen $n $p
    sleep 1 | timeout 10 openssl s_client -connect "$server_addr:$p" -servername localhost \
        >"$tmp/$n.client1.log" 2>&1 &
    c1=$!
    sleep 0.2
    sleep 1 | timeout 10 openssl s_client -connect "$server_addr:$p" -servername localhost \
        >"$tmp/$n.client2.log" 2>&1 &
    c2=$!
    wait $c1 || rc1=$?
    wait $c2 || rc2=$?
    if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then die "$n: clients exited with $rc1 $rc2"; fi
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 2
    expect_count $n 'tcp.flags.syn == 1 && tcp.flags.ack == 0' 2
    # The second ClientHello comes before the first connection's first FIN.
    [ "$(fields $n 'tls.handshake.type == 1 || tcp.flags.fin == 1' tls.handshake.type | sed -n 2p)" = 1 ] ||
        die "$n: the connections do not overlap"
}

# A browser's spare connection: Python opens two connections at once; the
# proxy resets the first after its ClientHello, then relays the second, whose
# SYN came before that reset and whose hello (the same offer) comes after it.
scenario_nofallback-preconnect() {
    local n=nofallback-preconnect p=44371 b=44372
    cap_start $n $p
    backend_server $n $b
    proxy_start $n 15 $p fail-first $p $b rst 2
    client $n "$py" "$here/tlspeer.py" preconnect $p "$cert"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tcp.flags.syn == 1 && tcp.flags.ack == 0' 2
    expect_count $n 'tcp.flags.reset == 1' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
    # Both SYNs come before the reset, the second hello after it.
    [ "$(fields $n 'tcp.flags.syn == 1 && tcp.flags.ack == 0 || tcp.flags.reset == 1 || tls.handshake.type == 1' tcp.flags.reset tls.handshake.type | tr '\t\n' ',;')" = "0,;0,;0,1;1,;0,1;" ] ||
        die "$n: the second connection was not opened before the reset"
}

# The first attempt fails (RST); the retry offers the same versions and succeeds.
scenario_nofallback-same-version() {
    local n=nofallback-same-version p=44336 b=44337
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    backend_server $n $b
    proxy_start $n 15 $p fail-first $p $b rst 2
    client_fails $n "${sc[@]}"
    client $n "${sc[@]}"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tcp.flags.reset == 1' 1
}

# TLS 1.3 succeeds, then a -tls1_2 connection to the same server.
scenario_nofallback-lower-after-success() {
    local n=nofallback-lower-after-success p=44338
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p -naccept 2
    client $n "${sc[@]}"
    client $n "${sc[@]}" -tls1_2
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303 && !tls.handshake.extension.type == 43' 1
}

# As intolerant-rst, but the retry names another server (SNI a.localhost, then
# b.localhost).
scenario_nofallback-sni() {
    local n=nofallback-sni p=44339 b=44340
    cap_start $n $p
    backend_server $n $b -tls1_2
    proxy_start $n 15 $p intolerant $p $b 0303 rst 2
    client_fails $n openssl s_client -connect "$server_addr:$p" -servername a.localhost
    client $n openssl s_client -connect "$server_addr:$p" -servername b.localhost -tls1_2
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "a.localhost"' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "b.localhost"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
}

# As intolerant-rst with curl, but the retry comes from another address
# (curl --interface: the second client, 127.0.0.5).
scenario_nofallback-other-client() {
    local n=nofallback-other-client p=44341 b=44342
    mkdir -p "$tmp/www"
    printf 'hello from tlsneg\n' >"$tmp/www/index.txt"
    cap_start $n $p
    (cd "$tmp/www" && exec timeout 10 openssl s_server -accept "$backend_addr:$b" -cert "$cert" \
        -key "$key" -naccept 1 -quiet -WWW -tls1_2) >"$tmp/$n.server.log" 2>&1 &
    server_pid=$!
    wait_listen $n $b
    proxy_start $n 15 $p intolerant $p $b 0303 rst 2
    client_fails $n curl -sS -k --interface "$client_addr" --resolve "localhost:$p:$server_addr" \
        "https://localhost:$p/index.txt"
    client $n curl -sS -k --tls-max 1.2 --interface "$client2_addr" \
        --resolve "localhost:$p:$server_addr" "https://localhost:$p/index.txt"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n "tls.handshake.type == 1 && ip.src == $client_addr && tls.handshake.extensions.supported_version == 0x0304" 1
    expect_count $n "tls.handshake.type == 1 && ip.src == $client2_addr" 1
    expect_count $n "tls.handshake.type == 2 && ip.dst == $client2_addr && tls.handshake.version == 0x0303" 1
}

# As intolerant-rst, but the retry comes 31 s after the failure (a real wait;
# the timestamps are not edited). Takes half a minute.
scenario_nofallback-long-gap() {
    local n=nofallback-long-gap p=44343 b=44344
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start_on $n 60 $p
    proxy_start $n 60 $p intolerant $p $b 0303 rst 2
    client_fails $n "${sc[@]}"
    sleep 31
    backend_server $n $b -tls1_2
    client $n "${sc[@]}" -tls1_2
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 1 && frame.time_relative > 31' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
}

# TLS 1.2 resumption by session ID (tickets off): a full handshake that saves
# the session, then one that offers it and is resumed.
scenario_resumption-tls12() {
    local n=resumption-tls12 p=44345
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p -naccept 2 -tls1_2
    client $n "${sc[@]}" -tls1_2 -no_ticket -sess_out "$tmp/$n.sess"
    client $n "${sc[@]}" -tls1_2 -no_ticket -sess_in "$tmp/$n.sess"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 11' 1
    expect_count $n 'tls.handshake.type == 2' 2
}

# A TLS 1.2 session (first connection, -tls1_2) offered again by a client that
# offers TLS 1.3 too: the TLS 1.3-capable server negotiates 1.3, full handshake.
scenario_resumption-tls12-offered-tls13() {
    local n=resumption-tls12-offered-tls13 p=44346
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    openssl_server $n $p -naccept 2
    client $n "${sc[@]}" -tls1_2 -no_ticket -sess_out "$tmp/$n.sess"
    client $n "${sc[@]}" -no_ticket -sess_in "$tmp/$n.sess"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304 && tls.handshake.session_id_length == 32' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

# A TLS 1.2 server (OpenSSL 3.0 -no_tls1_3) and a client offering only
# TLS 1.1: the server negotiates TLS 1.1 and, being TLS 1.2-capable, ends its
# random with DOWNGRD\x00 (RFC 8446 4.1.3: TLS 1.2 servers SHOULD).
scenario_sentinel-tls12-server() {
    local n=sentinel-tls12-server p=44349
    cap_start $n $p
    openssl_server $n $p -no_tls1_3 "${seclevel0[@]}"
    client $n openssl s_client -connect "$server_addr:$p" -servername localhost -tls1_1 "${seclevel0[@]}"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0302 && tls.handshake.random contains 44:4f:57:4e:47:52:44:00' 1
}

# s_client (offers TLS 1.3 to 1.0) -> tlsproxy.py cap-version 0302 on 44350
# (legacy_version 0x0302, no supported_versions) -> s_server -no_tls1_3 on
# 44351: the server negotiates TLS 1.1 with DOWNGRD\x00, the proxy relays it,
# and the client, which offered more, aborts.
scenario_downgrade-sentinel-tls11-mitm() {
    local n=downgrade-sentinel-tls11-mitm p=44350 b=44351
    cap_start_on $n 30 $p $b
    backend_server $n $b -no_tls1_3 "${seclevel0[@]}"
    proxy_start $n 10 $p cap-version $p $b 0302
    client_fails $n openssl s_client -connect "$server_addr:$p" -servername localhost "${seclevel0[@]}"
    proxy_wait $n
    server_kill
    cap_stop $n
    expect_count $n "tls.handshake.type == 1 && tcp.dstport == $p && tls.handshake.extensions.supported_version == 0x0304" 1
    expect_count $n "tls.handshake.type == 1 && tcp.dstport == $b && tls.handshake.version == 0x0302" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.random contains 44:4f:57:4e:47:52:44:00' 2
}

# java_server NAME PORT CONNECTIONS [PROTOCOLS]: JsseServer.java (Java 17's
# SSLServerSocket) on 127.0.0.3:PORT with the throwaway certificate, TLS 1.1
# allowed by jdk.tls.disabledAlgorithms (Java 17 disables it by default).
java_server() {
    local name=$1 port=$2
    shift 2
    openssl pkcs12 -export -in "$cert" -inkey "$key" -name localhost -passout pass:changeit \
        -out "$tmp/ks.p12"
    echo 'jdk.tls.disabledAlgorithms=SSLv3, RC4, DES, MD5withRSA, DH keySize < 1024, EC keySize < 224, 3DES_EDE_CBC, anon, NULL' \
        >"$tmp/java.security"
    timeout 30 java "-Djava.security.properties=$tmp/java.security" "$here/JsseServer.java" \
        "$port" "$tmp/ks.p12" changeit "$@" >"$tmp/$name.server.log" 2>&1 &
    server_pid=$!
    for i in $(seq 300); do
        ss -Hltn "sport = :$port" | grep -q . && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$tmp/$name.server.log" >&2
    die "$name: Java server is not listening on port $port"
}

# Java 17 ignores TLS_FALLBACK_SCSV: asked for TLS 1.2 with the SCSV, it
# answers TLS 1.2 with DOWNGRD\x01 instead of inappropriate_fallback; the
# client aborts (alert 47).
scenario_ignored-scsv-java() {
    local n=ignored-scsv-java p=44347
    cap_start $n $p
    java_server $n $p 1
    client_fails $n openssl s_client -connect "$server_addr:$p" -servername localhost -tls1_2 -fallback_scsv
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.ciphersuite == 0x5600' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.random contains 44:4f:57:4e:47:52:44:01' 1
}

# Java 17 limited to TLS 1.2 and 1.1: a first connection puts TLS 1.2 in
# force; a second one offering TLS 1.1 with TLS_FALLBACK_SCSV gets TLS 1.1
# and DOWNGRD\x00, and the client aborts (alert 47).
scenario_ignored-scsv-java-tls11() {
    local n=ignored-scsv-java-tls11 p=44348
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    java_server $n $p 2 TLSv1.2,TLSv1.1
    client $n "${sc[@]}"
    client_fails $n "${sc[@]}" -tls1_1 -fallback_scsv "${seclevel0[@]}"
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0302 && tls.handshake.random contains 44:4f:57:4e:47:52:44:00' 1
}

# Go's crypto/tls client capped at TLS 1.2 (goclient.go) -> s_server: Go
# sends supported_versions [0x0303].
scenario_go-client-tls12() {
    local n=go-client-tls12 p=44352
    cap_start $n $p
    openssl_server $n $p
    client $n go run "$here/goclient.go" "$server_addr:$p" 1.2
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0303 && !tls.handshake.extensions.supported_version == 0x0304' 1
}

# Go 1.24's crypto/tls client (its defaults: key shares for X25519MLKEM768
# and x25519) to s_server -groups P-256 (Debian 12's OpenSSL 3.0): a
# HelloRetryRequest asks for secp256r1. Needs GOCLIENT, goclient.go built
# by Go 1.24 (Debian 12's Go has no post-quantum group), e.g. in the Debian
# 13 root filesystem of make-pq-captures.sh (a static binary; see
# pcaps/README.md).
scenario_go-client-hrr() {
    local n=go-client-hrr p=44373
    [ -x "${GOCLIENT:-}" ] || die "$n: set GOCLIENT to a Go 1.24 build of goclient.go"
    cap_start $n $p
    openssl_server $n $p -groups P-256
    client $n "$GOCLIENT" "$server_addr:$p" 1.3
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_key_share_group == 0x11ec' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_selected_group == 0x0017' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_key_share_group == 0x0017' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 2
}

# Plain TLS 1.3 over IPv6 (2001:db8::2 -> 2001:db8::3 on the namespace's
# loopback), for the report's [address]:port.
scenario_tls13-ipv6() {
    local n=tls13-ipv6 p=44353
    cap_start $n $p
    server_start $n openssl s_server -accept "[$server6_addr]:$p" -cert "$cert" -key "$key" -naccept 1 -quiet
    for i in $(seq 100); do
        ss -Hltn "sport = :$p" | grep -q . && break
        sleep 0.05
    done
    client $n openssl s_client -connect "[$server6_addr]:$p" -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'ipv6 && tls.handshake.type == 1' 1
}

# NSS's DTLS client (tstclnt -P client, NSS 3.87) -> s_server -dtls: NSS
# offers DTLS 1.3 draft-43 as 0x7f2b next to 0xfefd; DTLS 1.2 in force.
scenario_dtls13draft-nss-client() {
    local n=dtls13draft-nss-client p=44354
    mkdir -p "$tmp/nssdb"
    certutil -N -d "sql:$tmp/nssdb" --empty-password
    cap_start $n $p
    server_start $n openssl s_server -dtls -accept "$server_addr:$p" -cert "$cert" -key "$key" \
        -naccept 1 -quiet
    wait_listen $n $p u
    # -Q: quit after the handshake; the read that follows fails once the
    # server is gone, so the exit status is not the test: the capture is.
    timeout 10 tstclnt -P client -h "$server_addr" -p $p -d "sql:$tmp/nssdb" -o -V tls1.2:tls1.3 \
        -a localhost -Q </dev/null >"$tmp/$n.client.log" 2>&1 || true
    server_kill
    cap_stop $n
    expect_count $n 'dtls.handshake.type == 1 && dtls.handshake.extensions.supported_version == 0x7f2b' 2
    expect_count $n 'dtls.handshake.type == 2 && dtls.handshake.version == 0xfefd' 1
}

# A client of the TLS 1.3 draft era (tlspeer.py draft-fallback: draft-23 in
# supported_versions) meets a TLS 1.2 server that refuses the draft version
# (the proxy fails every hello offering more than 0x0303 with alert 40); the
# client falls back the old way, a plain TLS 1.2 hello without SCSV.
scenario_fallback-draft-era() {
    local n=fallback-draft-era p=44367 b=44368
    cap_start $n $p
    backend_server $n $b -tls1_2
    proxy_start $n 15 $p intolerant $p $b 0303 alert 2
    client $n "$py" "$here/tlspeer.py" draft-fallback $p "$cert"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x7f17' 1
    expect_count $n 'tls.alert_message.desc == 40' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
}

# ---------------------------------------------------------------- scanners

# scan_scenario NAME PORT HELLOS SETUP SCANNER...: a healthy openssl s_server
# (-rev: it answers a request with a line, not a page) in one of two set-ups,
# tls13 (defaults: TLS 1.2 and 1.3) or tls12 (-no_tls1_3 -cipher
# DEFAULT@SECLEVEL=0: TLS 1.0 to 1.2), is scanned. The file keeps the first
# HELLOS ClientHellos (0: all) and everything before the next one, without
# the pure ACKs, to stay small; with scan_drop_alpn=1 also without the
# connections of every ALPN probe but the first (testssl.sh repeats one hello
# a dozen times, each answered with a full handshake). The scanner's own exit
# code is not judged.
scan_drop_alpn=0
scan_scenario() {
    local name=$1 port=$2 hellos=$3 setup=$4 cut i drop
    shift 4
    local srv=(openssl s_server -accept "$server_addr:$port" -cert "$cert" -key "$key" -quiet -rev)
    if [ "$setup" = tls12 ]; then
        srv+=(-no_tls1_3 -cipher 'DEFAULT@SECLEVEL=0')
    fi
    : >"$tmp/$name.dumpcap.log"
    dumpcap -q -i lo -f "port $port" -P -a duration:200 -w "$tmp/$name.raw.pcap" \
        2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    for i in $(seq 100); do
        grep -q 'Capturing on' "$tmp/$name.dumpcap.log" && break
        sleep 0.05
    done
    timeout 190 "${srv[@]}" </dev/null >"$tmp/$name.server.log" 2>&1 &
    server_pid=$!
    wait_listen "$name" "$port"
    timeout 180 "$@" </dev/null >"$tmp/$name.client.log" 2>&1 || true
    server_kill
    sleep 0.5
    kill -INT "$cap_pid"
    wait "$cap_pid" || true
    cap_pid=
    cut=
    if [ "$hellos" -gt 0 ]; then
        cut=$(tshark -r "$tmp/$name.raw.pcap" -Y 'tls.handshake.type == 1' -T fields \
            -e frame.number 2>/dev/null | sed -n "$((hellos + 1))p")
    fi
    local keep='not (tcp.len == 0 && tcp.flags.syn == 0 && tcp.flags.fin == 0 && tcp.flags.reset == 0)'
    if [ -n "$cut" ]; then
        keep="frame.number < $cut && ($keep)"
    fi
    if [ "$scan_drop_alpn" = 1 ]; then
        drop=$(tshark -r "$tmp/$name.raw.pcap" -T fields -e tcp.stream \
            -Y 'tls.handshake.type == 1 && tls.handshake.extension.type == 16' 2>/dev/null |
            sed 1d | paste -sd, -)
        if [ -n "$drop" ]; then
            keep="!(tcp.stream in {$drop}) && ($keep)"
        fi
    fi
    tshark -r "$tmp/$name.raw.pcap" -Y "$keep" -w "$tmp/$name.pcap" 2>/dev/null
    install -m 644 "$tmp/$name.pcap" "$out/$name.pcap"
    [ "$(fields "$name" 'tls.handshake.type == 1' frame.number | wc -l)" -ge 10 ] ||
        die "$name: fewer than 10 ClientHellos"
}

scenario_scan-sslscan-tls13() {
    scan_scenario scan-sslscan-tls13 44361 16 tls13 sslscan --no-colour "$server_addr:44361"
    expect_count scan-sslscan-tls13 'tls.alert_message.desc == 86' 1
}

scenario_scan-sslscan-tls12() {
    scan_scenario scan-sslscan-tls12 44362 16 tls12 sslscan --no-colour "$server_addr:44362"
}

scenario_scan-nmap-tls13() {
    scan_scenario scan-nmap-tls13 44363 30 tls13 nmap -Pn -p 44363 --script ssl-enum-ciphers "$server_addr"
}

scenario_scan-nmap-tls12() {
    scan_scenario scan-nmap-tls12 44364 30 tls12 nmap -Pn -p 44364 --script ssl-enum-ciphers "$server_addr"
}

scenario_scan-testssl-tls13() {
    scan_drop_alpn=1
    scan_scenario scan-testssl-tls13 44365 0 tls13 testssl --quiet --color 0 --warnings off -p -Z \
        "$server_addr:44365"
}

scenario_scan-testssl-tls12() {
    scan_drop_alpn=1
    scan_scenario scan-testssl-tls12 44366 0 tls12 testssl --quiet --color 0 --warnings off -p -Z \
        "$server_addr:44366"
    expect_count scan-testssl-tls12 'tls.alert_message.desc == 86' 1
}

# A TLS 1.2 connection (AES-GCM) whose client ends with an encrypted
# close_notify (15 03 03 00 1a and 26 encrypted bytes), then a copy of that
# segment appended after both FINs by dup_after_fin.py: the late duplicate
# of issue 27, which no front end may read as plaintext alerts.
scenario_late-duplicate-close-notify() {
    local n=late-duplicate-close-notify p=44370
    cap_start $n $p
    openssl_server $n $p -tls1_2
    client $n openssl s_client -connect "$server_addr:$p" -servername localhost
    server_wait $n
    cap_stop $n
    "$py" "$here/dup_after_fin.py" "$out/$n.pcap" "$tmp/$n.dup.pcap"
    install -m 644 "$tmp/$n.dup.pcap" "$out/$n.pcap"
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
    expect_count $n 'tls.record.content_type == 21 && tls.record.length == 26' 2
    expect_count $n 'tls.alert_message.desc' 0
}

# ---------------------------------------------------------------- main

mkdir -p "$out"
for s in "${scenarios[@]}"; do
    log "$s"
    "scenario_$s"
    [ "$s" = sslv2-client-hello ] || check_hosts "$s"
    log "  -> $out/$s.pcap ($(stat -c %s "$out/$s.pcap") bytes)"
done
