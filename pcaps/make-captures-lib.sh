# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# make-captures-lib.sh: the helpers of make-captures.sh's scenarios: capture
# lo (cap_start, cap_start_on, cap_stop), run servers, clients and
# tlsproxy.py and wait for them, check a capture's addresses (check_hosts).
# Sourced by make-captures.sh, not run on its own: it uses the script's
# addresses, $tmp, $cert, $key, $py, $here and $out.

# ---------------------------------------------------------------- helpers

# cap_start NAME PORT: capture lo, port PORT, in pcap format; returns once
# dumpcap is capturing. A 30 s autostop bounds it even if cap_stop never runs.
cap_start() {
    cap_start_on "$1" 30 "$2"
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
    local name=$1 port=$2 proto=${3:-t}
    await 100 "$server_pid" "$tmp/$name.server.log" "$name: server is not listening on port $port" \
        listening "$port" "$proto"
}

# listening PORT [u]: something listens on PORT (TCP, or UDP with u).
listening() {
    ss -Hl"${2:-t}"n "sport = :$1" | grep -q .
}

# server_wait NAME: wait for a server that exits by itself after one connection.
server_wait() {
    reap "$server_pid" "$tmp/$1.server.log" "$1: server exited with"
    server_pid=
}

# reap PID LOG MESSAGE: wait for PID, which must exit 0; else show LOG and
# die with MESSAGE and the exit status.
reap() {
    local rc=0
    wait "$1" || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$2" >&2
        die "$3 $rc"
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

proxy_pid=

# cap_start_on NAME SECONDS PORT...: like cap_start, on several ports and with
# its own autostop.
cap_start_on() {
    local name=$1 secs=$2 filter='' port
    shift 2
    for port in "$@"; do
        ss -Hltun "sport = :$port" | grep -q . && die "port $port is in use"
        filter+="${filter:+ or }port $port"
    done
    : >"$tmp/$name.dumpcap.log"
    dumpcap -q -i lo -f "$filter" -P -a "duration:$secs" -w "$tmp/$name.pcap" \
        2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    await 100 "$cap_pid" "$tmp/$name.dumpcap.log" "$name: dumpcap did not start" \
        capturing "$tmp/$name.dumpcap.log"
}

# proxy_start NAME SECONDS PORT tlsproxy.py-ARGS...: run tlsproxy.py (bounded),
# wait until it listens on PORT (on the server's address, forwarding to the
# backend's).
proxy_start() {
    local name=$1 secs=$2 port=$3
    shift 3
    TLSPROXY_LISTEN=$server_addr TLSPROXY_BACKEND=$backend_addr \
        timeout "$secs" "$py" "$here/tlsproxy.py" "$@" >"$tmp/$name.proxy.log" 2>&1 &
    proxy_pid=$!
    await 100 "$proxy_pid" "$tmp/$name.proxy.log" "$name: proxy is not listening on port $port" \
        listening "$port"
}

# proxy_wait NAME: the proxy exits by itself after its connections.
proxy_wait() {
    reap "$proxy_pid" "$tmp/$1.proxy.log" "$1: proxy exited with"
    proxy_pid=
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
