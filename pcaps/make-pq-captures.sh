#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-pq-captures.sh: regenerate the post-quantum key-share captures
# (pcaps/pq-*.pcap, issue 28) from real TLS stacks on a 1,500-byte-MTU link.
#
# Stacks: OpenSSL 3.5, curl and Go 1.24 from a Debian 13 (trixie) root
# filesystem (X25519MLKEM768 by default), this machine's Debian 12
# OpenSSL 3.0 (no post-quantum group: the classical server), and Debian 12's
# Chromium and Firefox ESR (post-quantum by default; pq-chromium-*,
# pq-firefox-*).
#
# Network: two network namespaces, tlsneg-pqc (the client, 192.0.2.2) and
# tlsneg-pqs (the server side, 192.0.2.3; RFC 5737 documentation addresses),
# each with one TAP device (pqtapc, pqtaps; MTU 1,500, no offloads) that
# pqwire.py joins by copying frames. pqwire.py holds back the later segments
# of a connection's first client flight by HOLD_MS (60) ms: the kernel here
# has no netem, and over a plain link both segments of a split ClientHello
# usually reach the server before a single read. Captured with dumpcap on
# pqtaps (the server's side of the link, "tcp port N"): what the server saw.
# Servers behind pqfront.py listen on 127.0.0.1 in tlsneg-pqs (not captured).
#
# Usage (as root: namespaces, TAP devices, chroot):
#   pcaps/make-pq-captures.sh                     # every scenario
#   pcaps/make-pq-captures.sh pq-hrr-moves-to-pq  # only these (names without .pcap)
#   OUT=/some/dir pcaps/make-pq-captures.sh       # write elsewhere (default: pcaps/)
#   KEEP_TMP=1 pcaps/make-pq-captures.sh          # keep the temp dir (logs) in the chroot
#
# The trixie root filesystem: $PQ_CHROOT, default
# ${TLSNEG_CHROOT_DIR:-/var/cache/tlsneg-chroots}/trixie-pq, made with
# debootstrap (--variant=minbase, packages below) if missing. Host (Debian 12)
# packages: openssl, tshark (wireshark-common: dumpcap), python3, iproute2,
# util-linux, coreutils, debootstrap (only to make the chroot), chromium and
# firefox-esr (only for their scenarios).
#
# Idempotent: namespaces left by an earlier run are deleted first; on exit
# (failure included) the processes this script started are killed by pid,
# the namespaces deleted (their TAP devices go with pqwire.py), the temp dir
# removed. Each run gives new randoms, keys, ports and timings; the committed
# captures are the reference pcaps/README-post-quantum.md describes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here}
py=${PYTHON:-/usr/bin/python3}
hold_ms=${HOLD_MS:-60}
retry_gap=${RETRY_GAP:-0.3}
root=${PQ_CHROOT:-${TLSNEG_CHROOT_DIR:-/var/cache/tlsneg-chroots}/trixie-pq}
chroot_packages=openssl,curl,python3,iproute2,tcpdump,golang-go
nsc=tlsneg-pqc
nss=tlsneg-pqs
tapc=pqtapc
taps=pqtaps
client_addr=192.0.2.2
server_addr=192.0.2.3

all_scenarios=(
    pq-split-rst-classical-retry
    pq-split-close-classical-retry
    pq-split-alert-classical-retry
    pq-split-rst-tls12-retry
    pq-split-rst-tls12-retry-tls13-ok
    pq-split-rst-same-retry
    pq-hrr-lacks-predicted
    pq-hrr-moves-to-pq
    pq-mixed-pool
    pq-split-healthy
    pq-go-client
    pq-chromium-pool-hrr
    pq-firefox-split-rst-classical-retry
)

me=make-pq-captures
# shellcheck source=SCRIPTDIR/capture-common.sh
. "$here/capture-common.sh"

select_scenarios "${all_scenarios[@]}" -- "$@"

[ "$(id -u)" -eq 0 ] || die "run as root (network namespaces, TAP devices, chroot)"
for cmd in ip dumpcap tshark openssl timeout chroot mount "$py"; do
    command -v "$cmd" >/dev/null || die "missing command $cmd (see the package list at the top)"
done

# ---------------------------------------------------------------- the chroot

if [ ! -x "$root/usr/bin/openssl" ]; then
    command -v debootstrap >/dev/null || die "no trixie chroot at $root and no debootstrap to make one"
    log "making the trixie root filesystem in $root (debootstrap, a few minutes)"
    rm -rf "$root.new"
    mkdir -p "$(dirname "$root")"
    debootstrap --variant=minbase --include="$chroot_packages" trixie "$root.new" \
        "${TLSNEG_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >&2
    mv "$root.new" "$root"
fi
openssl35=$(chroot "$root" openssl version)
case "$openssl35" in
"OpenSSL 3.5."* | "OpenSSL 3.6."*) ;;
*) die "the chroot's OpenSSL is $openssl35, not 3.5 or later" ;;
esac

# ---------------------------------------------------------------- state, cleanup

tmp_rel=$(chroot "$root" mktemp -d /tmp/pqcaps.XXXXXX) # as the chroot sees it
tmp=$root$tmp_rel                                      # as the host sees it
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    ip netns del "$nsc" 2>/dev/null || true
    ip netns del "$nss" 2>/dev/null || true
    [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- the link

ip netns del "$nsc" 2>/dev/null || true
ip netns del "$nss" 2>/dev/null || true
ip netns add "$nsc"
ip netns add "$nss"
for ns in "$nsc" "$nss"; do
    ip -n "$ns" link set lo up
    # No IPv6 on the TAP devices: no router or neighbour solicitations.
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
: >"$tmp/wire.log"
"$py" "$here/pqwire.py" "$nsc" "$tapc" "$nss" "$taps" "$hold_ms" >"$tmp/wire.log" 2>&1 &
pids+=($!)
await 100 "" "$tmp/wire.log" "pqwire.py did not start" grep -q ready "$tmp/wire.log"
# Fixed MAC addresses and static neighbours: no ARP in the captures.
ip -n "$nsc" link set "$tapc" address 02:00:00:00:00:02 mtu 1500 up
ip -n "$nss" link set "$taps" address 02:00:00:00:00:03 mtu 1500 up
ip -n "$nsc" addr add "$client_addr/24" dev "$tapc"
ip -n "$nss" addr add "$server_addr/24" dev "$taps"
ip -n "$nsc" neigh replace "$server_addr" lladdr 02:00:00:00:00:03 dev "$tapc" nud permanent
ip -n "$nss" neigh replace "$client_addr" lladdr 02:00:00:00:00:02 dev "$taps" nud permanent

# A throwaway self-signed P-256 certificate for "localhost" (small captures).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost 2>/dev/null
cp "$here/goclient.go" "$tmp/goclient.go"

# ---------------------------------------------------------------- helpers

# "${tc[@]}" CMD... / "${ts[@]}" CMD...: CMD in the chroot, in the client's /
# the server's network namespace. ip netns exec gives the command a mount
# namespace of its own, so the /proc mounted there (for Go) goes away with it.
# shellcheck disable=SC2016 # expanded by sh -c: $0 is the root, "$@" the command
trixie_sh='mount -t proc proc "$0/proc" && exec chroot "$0" /usr/bin/env -i \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8 GOTELEMETRY=off \
    GOCACHE=/tmp/gocache GOPATH=/tmp/gopath GOPROXY=off "$@"'
tc=(ip netns exec "$nsc" sh -c "$trixie_sh" "$root")
ts=(ip netns exec "$nss" sh -c "$trixie_sh" "$root")

# bg NAME SECONDS CMD...: run CMD in the background, bounded; its pid in $last.
bg() {
    local name=$1 secs=$2
    shift 2
    timeout "$secs" "$@" >"$tmp/$name.log" 2>&1 &
    last=$!
    pids+=("$last")
}

# wait_ok NAME PID: wait for a background job that must exit 0.
wait_ok() {
    local name=$1 pid=$2 rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 0 ] || { cat "$tmp/$name.log" >&2; die "$name exited with $rc"; }
}

# wait_listen NS ADDR:PORT PID: until something listens there.
wait_listen() {
    await 200 "$3" "" "nothing listens on $2 in $1" ns_listening "$1" "$2"
}

# ns_listening NS ADDR:PORT: something in NS listens there.
ns_listening() {
    ip netns exec "$1" ss -Hltn "src $2" | grep -q .
}

# server35 NAME ADDR PORT N [s_server options...]: OpenSSL 3.5 s_server
# (chroot) in the server namespace, N connections. server30: Debian 12's 3.0.
server35() {
    local name=$1 addr=$2 port=$3 n=$4
    shift 4
    bg "$name" 30 "${ts[@]}" openssl s_server -accept "$addr:$port" -cert "$tmp_rel/cert.pem" \
        -key "$tmp_rel/key.pem" -naccept "$n" -quiet "$@"
    wait_listen "$nss" "$addr:$port" "$last"
}
server30() {
    local name=$1 addr=$2 port=$3 n=$4
    shift 4
    bg "$name" 30 ip netns exec "$nss" openssl s_server -accept "$addr:$port" -cert "$tmp/cert.pem" \
        -key "$tmp/key.pem" -naccept "$n" -quiet "$@"
    wait_listen "$nss" "$addr:$port" "$last"
}

# front NAME PORT pqfront.py-ARGS...: pqfront.py on the server's address.
front() {
    local name=$1 port=$2
    shift 2
    bg "$name" 30 ip netns exec "$nss" env PQFRONT_LISTEN="$server_addr" "$py" "$here/pqfront.py" "$@"
    wait_listen "$nss" "$server_addr:$port" "$last"
}

# client NAME CMD... / client_fails NAME CMD...: a client in the chroot in
# the client namespace, stdin closed; it must succeed / fail (then a pause of
# RETRY_GAP seconds, default 0.3).
client() {
    local name=$1 rc=0
    shift
    timeout 20 "${tc[@]}" "$@" </dev/null >"$tmp/$name.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$tmp/$name.log" >&2; die "$name: client exited with $rc"; }
}
client_fails() {
    local name=$1 rc=0
    shift
    timeout 20 "${tc[@]}" "$@" </dev/null >"$tmp/$name.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
        cat "$tmp/$name.log" >&2
        die "$name: client should have failed, exited with $rc"
    fi
    # The failed connection's tail (the held-back segment, the kernel's answer
    # to it) comes before the next attempt, as with a script or a user.
    sleep "$retry_gap"
}

cap_pid=
# cap_start NAME PORT: dumpcap on the server's TAP device, "tcp port PORT".
cap_start() {
    local name=$1 port=$2
    : >"$tmp/$name.dumpcap.log"
    ip netns exec "$nss" dumpcap -q -i "$taps" -f "tcp port $port" -P -a duration:40 \
        -w "$tmp/$name.pcap" 2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    pids+=("$cap_pid")
    await 100 "$cap_pid" "$tmp/$name.dumpcap.log" "$name: dumpcap did not start" \
        capturing "$tmp/$name.dumpcap.log"
}
# cap_stop NAME: let the last packets (a held-back segment, a RST) arrive,
# stop dumpcap with SIGINT, install the file.
cap_stop() {
    local name=$1
    sleep 0.5
    kill -INT "$cap_pid"
    wait "$cap_pid" || true
    [ -s "$tmp/$name.pcap" ] || die "$name: empty capture"
    install -m 644 "$tmp/$name.pcap" "$out/$name.pcap"
}

# check_common NAME HELLOS: every packet between the client and the server,
# exactly HELLOS ClientHellos.
check_common() {
    local name=$1 bad
    bad=$(tshark -r "$out/$name.pcap" -T fields -E separator=' ' -e ip.src -e ip.dst 2>/dev/null |
        sort -u | grep -v -x -e "$client_addr $server_addr" -e "$server_addr $client_addr" || true)
    [ -z "$bad" ] || die "$name: packets between unexpected addresses: $bad"
    expect_count "$name" 'tls.handshake.type == 1' "$2"
}

sc() { # PORT: the s_client command line to the server's PORT
    printf '%s\n' openssl s_client -connect "$server_addr:$1" -servername localhost
}

# A PQ ClientHello split over two segments, with an X25519MLKEM768 share.
pq_split='tls.handshake.type == 1 && tcp.segment.count == 2 && tls.handshake.extensions_key_share_group == 0x11ec'
# A one-segment ClientHello without any 0x11ec group.
classical_one='tls.handshake.type == 1 && !tcp.segment.count && !(tls.handshake.extensions_supported_group == 0x11ec)'

# ---------------------------------------------------------------- scenarios

# Scenarios 1-3: OpenSSL 3.5's default (post-quantum, split) hello fails at
# the read-once front by KIND; the scripted retry, -groups X25519, fits one
# segment and is relayed to OpenSSL 3.5 s_server.
classical_retry() {
    local n=$1 p=$2 b=$3 kind=$4
    local -a c
    mapfile -t c < <(sc "$p")
    cap_start "$n" "$p"
    server35 "$n.server" 127.0.0.1 "$b" 1
    local srv=$last
    front "$n.front" "$p" once "$kind" "$p" "$b" 2
    local fr=$last
    client_fails "$n.client1" "${c[@]}"
    client "$n.client2" "${c[@]}" -groups X25519
    wait_ok "$n.front" "$fr"
    wait_ok "$n.server" "$srv"
    cap_stop "$n"
    check_common "$n" 2
    expect_count "$n" "$pq_split" 1
    expect_count "$n" "$classical_one" 1
    expect_count "$n" 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x001d' 1
}

scenario_pq-split-rst-classical-retry() {
    classical_retry pq-split-rst-classical-retry 44401 44501 rst
    expect_count pq-split-rst-classical-retry 'tcp.flags.reset == 1' 2
}
scenario_pq-split-close-classical-retry() {
    classical_retry pq-split-close-classical-retry 44402 44502 close
    expect_count pq-split-close-classical-retry "tcp.flags.reset == 1 && ip.src == $server_addr" 0
    expect_count pq-split-close-classical-retry "tcp.stream == 0 && tcp.flags.fin == 1 && ip.src == $server_addr" 1
}
scenario_pq-split-alert-classical-retry() {
    classical_retry pq-split-alert-classical-retry 44403 44503 alert
    expect_count pq-split-alert-classical-retry 'tls.alert_message.desc == 50' 1
}

# Scenario 4: the split PQ hello is reset; the retry is -tls1_2 (one segment,
# no TLS 1.3, no PQ share) and completes.
scenario_pq-split-rst-tls12-retry() {
    local n=pq-split-rst-tls12-retry p=44404 b=44504
    local -a c
    mapfile -t c < <(sc $p)
    cap_start $n $p
    server35 $n.server 127.0.0.1 $b 1
    local srv=$last
    front $n.front $p once rst $p $b 2
    local fr=$last
    client_fails $n.client1 "${c[@]}"
    client $n.client2 "${c[@]}" -tls1_2
    wait_ok $n.front "$fr"
    wait_ok $n.server "$srv"
    cap_stop $n
    check_common $n 2
    expect_count $n "$pq_split" 1
    expect_count $n 'tls.handshake.type == 1 && !tcp.segment.count && !tls.handshake.extensions.supported_version' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303 && !tls.handshake.extensions.supported_version' 1
}

# Scenario 4 with the evidence that settles it: first a one-segment TLS 1.3
# hello (-groups X25519) completes at the same front, then the split PQ hello
# is reset, then the -tls1_2 retry completes.
scenario_pq-split-rst-tls12-retry-tls13-ok() {
    local n=pq-split-rst-tls12-retry-tls13-ok p=44405 b=44505
    local -a c
    mapfile -t c < <(sc $p)
    cap_start $n $p
    server35 $n.server 127.0.0.1 $b 2
    local srv=$last
    front $n.front $p once rst $p $b 3
    local fr=$last
    client $n.client1 "${c[@]}" -groups X25519
    client_fails $n.client2 "${c[@]}"
    client $n.client3 "${c[@]}" -tls1_2
    wait_ok $n.front "$fr"
    wait_ok $n.server "$srv"
    cap_stop $n
    check_common $n 3
    expect_count $n "$pq_split" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303 && !tls.handshake.extensions.supported_version' 1
}

# Scenario 5: curl retries the identical (post-quantum, split) hello after the
# reset (--retry 1 --retry-all-errors); both attempts are reset.
scenario_pq-split-rst-same-retry() {
    local n=pq-split-rst-same-retry p=44406 b=44506
    cap_start $n $p
    server35 $n.server 127.0.0.1 $b 1
    local srv=$last
    front $n.front $p once rst $p $b 2
    local fr=$last
    client_fails $n.client curl -sS -k --retry 1 --retry-all-errors --retry-delay 1 \
        --resolve "localhost:$p:$server_addr" "https://localhost:$p/"
    wait_ok $n.front "$fr"
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    cap_stop $n
    check_common $n 2
    expect_count $n "$pq_split" 2
    expect_count $n 'tls.handshake.type == 2' 0
}

# Scenario 6: the client predicts X25519MLKEM768 only (3.5 sends a key share
# for the first group of -groups when none is marked with '*'); the classical
# OpenSSL 3.0 server asks for x25519 in a HelloRetryRequest.
scenario_pq-hrr-lacks-predicted() {
    local n=pq-hrr-lacks-predicted p=44407
    local -a c
    mapfile -t c < <(sc $p)
    cap_start $n $p
    server30 $n.server "$server_addr" $p 1
    local srv=$last
    client $n.client "${c[@]}" -groups X25519MLKEM768:X25519
    wait_ok $n.server "$srv"
    cap_stop $n
    check_common $n 2
    expect_count $n "$pq_split" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_selected_group == 0x001d' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x001d' 1
}

# Scenario 7: the client predicts x25519 only but offers X25519MLKEM768 too;
# OpenSSL 3.5 s_server with X25519MLKEM768 in a tuple of its own before
# X25519 asks for X25519MLKEM768 in a HelloRetryRequest. (With
# "X25519MLKEM768:X25519", one tuple, 3.5 takes X25519 without a retry.)
scenario_pq-hrr-moves-to-pq() {
    local n=pq-hrr-moves-to-pq p=44408
    local -a c
    mapfile -t c < <(sc $p)
    cap_start $n $p
    server35 $n.server "$server_addr" $p 1 -groups X25519MLKEM768/X25519
    local srv=$last
    client $n.client "${c[@]}" -groups X25519:X25519MLKEM768
    wait_ok $n.server "$srv"
    cap_stop $n
    check_common $n 2
    expect_count $n 'tls.handshake.type == 1 && !tcp.segment.count && tls.handshake.extensions_key_share_group == 0x001d' 1
    expect_count $n "$pq_split" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_selected_group == 0x11ec' 1
}

# Scenario 8: one address and port, two servers in turn (pqfront.py pool):
# OpenSSL 3.5 (post-quantum) and 3.0 (classical); the same client offers
# post-quantum four times.
scenario_pq-mixed-pool() {
    local n=pq-mixed-pool p=44409 b1=44509 b2=44609 i
    local -a c
    mapfile -t c < <(sc $p)
    cap_start $n $p
    server35 $n.server35 127.0.0.1 $b1 2
    local s35=$last
    server30 $n.server30 127.0.0.1 $b2 2
    local s30=$last
    front $n.front $p pool $p "$b1,$b2" 4
    local fr=$last
    for i in 1 2 3 4; do
        client $n.client$i "${c[@]}"
    done
    wait_ok $n.front "$fr"
    wait_ok $n.server35 "$s35"
    wait_ok $n.server30 "$s30"
    cap_stop $n
    check_common $n 4
    expect_count $n "$pq_split" 4
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x11ec' 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x001d' 2
}

# Scenario 9: a split post-quantum hello read properly by OpenSSL 3.5.
scenario_pq-split-healthy() {
    local n=pq-split-healthy p=44410
    local -a c
    mapfile -t c < <(sc $p)
    cap_start $n $p
    server35 $n.server "$server_addr" $p 1
    local srv=$last
    client $n.client "${c[@]}"
    wait_ok $n.server "$srv"
    cap_stop $n
    check_common $n 1
    expect_count $n "$pq_split" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x11ec' 1
}

# Scenario 10: Go 1.24's crypto/tls client (goclient.go, TLS 1.3, its
# defaults) to OpenSSL 3.5 s_server.
scenario_pq-go-client() {
    local n=pq-go-client p=44411
    # Build first (not captured, no network: standard library only; the first
    # build fills the chroot's /tmp/gocache, minutes on a busy machine).
    timeout 900 "${tc[@]}" go build -o "$tmp_rel/goclient" "$tmp_rel/goclient.go" \
        >"$tmp/$n.build.log" 2>&1 || { cat "$tmp/$n.build.log" >&2; die "$n: go build failed"; }
    cap_start $n $p
    server35 $n.server "$server_addr" $p 1
    local srv=$last
    client $n.client "$tmp_rel/goclient" "$server_addr:$p" 1.3
    wait_ok $n.server "$srv"
    cap_stop $n
    check_common $n 1
    expect_count $n "$pq_split" 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x11ec' 1
}

# chromium NAME PORT [chromium options...]: Debian 12's Chromium (host, not
# the chroot), headless, in the client namespace, one page load of
# https://localhost:PORT/ (localhost mapped to the server's address, so the
# hello carries SNI localhost); the self-signed certificate accepted. It
# prints the page's DOM whether the load succeeds or fails (an error page):
# exit status 0 either way.
chromium_get() {
    local name=$1 port=$2
    shift 2
    rm -rf "$tmp/$name.profile"
    timeout 40 ip netns exec "$nsc" env HOME="$tmp" chromium --headless --no-sandbox \
        --disable-gpu --no-first-run --user-data-dir="$tmp/$name.profile" \
        --ignore-certificate-errors --host-resolver-rules="MAP localhost $server_addr" \
        --disable-background-networking --disable-component-update --disable-sync \
        --dump-dom "$@" "https://localhost:$port/" </dev/null >"$tmp/$name.log" 2>&1 || {
        cat "$tmp/$name.log" >&2
        die "$name: chromium failed"
    }
    sleep "$retry_gap"
}

# Scenario 11: Chromium against one address and port answered in turn by
# OpenSSL 3.5 (post-quantum) and by Debian 12's OpenSSL 3.0 limited to
# secp384r1 (a group Chromium lists but predicts no share for: a
# HelloRetryRequest), one page load; each connection goes to the next
# server in turn (Chromium opens two at once for this load).
scenario_pq-chromium-pool-hrr() {
    local n=pq-chromium-pool-hrr p=44413 b1=44513 b2=44613
    cap_start $n $p
    server35 $n.server35 127.0.0.1 $b1 8 -www
    local s35=$last
    server30 $n.server30 127.0.0.1 $b2 8 -www -groups secp384r1
    local s30=$last
    front $n.front $p pool $p "$b1,$b2" 16
    local fr=$last
    chromium_get $n.client $p
    local pid
    for pid in "$fr" "$s35" "$s30"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    cap_stop $n
    expect_count $n "$pq_split" 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x11ec' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_selected_group == 0x0018' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions_key_share_group == 0x0018' 1
}

# firefox_get NAME URL [PREF=VALUE...]: Debian 12's Firefox ESR (host),
# headless, a fresh profile with these prefs (user.js), one page load of URL
# (a screenshot of whatever it shows: the page or an error page), in the
# client namespace.
firefox_get() {
    local name=$1 url=$2 kv
    shift 2
    rm -rf "$tmp/$name.profile"
    mkdir -p "$tmp/$name.profile"
    {
        echo 'user_pref("app.update.enabled", false);'
        echo 'user_pref("network.captive-portal-service.enabled", false);'
        echo 'user_pref("network.connectivity-service.enabled", false);'
        echo 'user_pref("browser.safebrowsing.update.enabled", false);'
        echo 'user_pref("datareporting.policy.dataSubmissionEnabled", false);'
        echo 'user_pref("toolkit.telemetry.enabled", false);'
        for kv in "$@"; do
            echo "user_pref(\"${kv%%=*}\", ${kv#*=});"
        done
    } >"$tmp/$name.profile/user.js"
    # --screenshot never returns here, even after a page that loaded: the
    # load is given FIREFOX_SECS (8) seconds, then the browser is stopped.
    local rc=0
    timeout "${FIREFOX_SECS:-8}" ip netns exec "$nsc" env HOME="$tmp" MOZ_HEADLESS=1 \
        firefox-esr --headless --no-remote --profile "$tmp/$name.profile" \
        --screenshot "$tmp/$name.png" "$url" </dev/null >"$tmp/$name.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || {
        cat "$tmp/$name.log" >&2
        die "$name: firefox exited with $rc"
    }
    sleep "$retry_gap"
}

# Scenario 12: Firefox ESR's default hello (X25519MLKEM768, split) at the
# read-once front (reset); then the user's retry in a profile with
# security.tls.enable_kyber false (classical shares only, one segment),
# relayed to OpenSSL 3.5 s_server -www.
scenario_pq-firefox-split-rst-classical-retry() {
    local n=pq-firefox-split-rst-classical-retry p=44414 b=44514
    cap_start $n $p
    server35 $n.server 127.0.0.1 $b 8 -www
    local srv=$last
    front $n.front $p once rst $p $b 64
    local fr=$last
    firefox_get $n.client1 "https://$server_addr:$p/"
    firefox_get $n.client2 "https://$server_addr:$p/" security.tls.enable_kyber=false
    local pid
    for pid in "$fr" "$srv"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    cap_stop $n
}

for s in "${scenarios[@]}"; do
    log "$s"
    "scenario_$s"
done
log "done: ${scenarios[*]}"
