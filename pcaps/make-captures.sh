#!/usr/bin/env bash
# make-captures.sh: regenerate the scenario captures in pcaps/ from real TLS
# stacks talking over loopback (plus the synthetic ones that synth.py writes).
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
# gnutls-bin, curl, python3, iproute2 (ss), coreutils (timeout).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here}
# Debian's own interpreter, so the "Python" stack is Debian's libssl3.
py=${PYTHON:-/usr/bin/python3}

all_scenarios=(
    tls13-openssl
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
)

log() { printf '[make-captures] %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("${all_scenarios[@]}")
for s in "${scenarios[@]}"; do
    case " ${all_scenarios[*]} " in
    *" $s "*) ;;
    *) die "unknown scenario $s (known: ${all_scenarios[*]})" ;;
    esac
done

for cmd in dumpcap tshark openssl gnutls-cli gnutls-serv curl ss timeout "$py"; do
    command -v "$cmd" >/dev/null || die "missing command $cmd (see the package list at the top)"
done
[ "$(id -u)" -eq 0 ] || die "run as root (dumpcap on lo)"

tmp=$(mktemp -d)
cap_pid=
server_pid=
cleanup() {
    # Only the processes this script started, by their pid.
    for pid in $server_pid $cap_pid; do
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

# wait_listen NAME PORT [u]: wait until something listens on 127.0.0.1:PORT
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

# fields NAME FILTER FIELD...: tshark fields of the frames matching FILTER.
fields() {
    local name=$1 filter=$2
    shift 2
    local args=() f
    for f in "$@"; do
        args+=(-e "$f")
    done
    tshark -r "$out/$name.pcap" -Y "$filter" -T fields -E occurrence=a "${args[@]}" 2>/dev/null
}

# expect_count NAME FILTER N: exactly N frames match FILTER, or fail.
expect_count() {
    local name=$1 filter=$2 want=$3 got
    got=$(fields "$name" "$filter" frame.number | wc -l)
    [ "$got" -eq "$want" ] || die "$name: $got frames match '$filter', expected $want"
}

# ---------------------------------------------------------------- scenarios
# Each one: its own port, capture, server, client, stop, then a check with
# tshark that the capture shows what the scenario is about.

openssl_server() { # NAME PORT [s_server options...]
    local name=$1 port=$2
    shift 2
    server_start "$name" openssl s_server -accept "127.0.0.1:$port" -cert "$cert" -key "$key" \
        -naccept 1 -quiet "$@"
    wait_listen "$name" "$port"
}

scenario_tls13-openssl() {
    local n=tls13-openssl p=44301
    cap_start $n $p
    openssl_server $n $p
    client $n openssl s_client -connect 127.0.0.1:$p -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "localhost"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_tls12-only-server() {
    local n=tls12-only-server p=44302
    cap_start $n $p
    openssl_server $n $p -tls1_2
    client $n openssl s_client -connect 127.0.0.1:$p -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303 && !tls.handshake.extensions.supported_version' 1
}

scenario_tls12-client-tls13-server() {
    local n=tls12-client-tls13-server p=44303
    cap_start $n $p
    openssl_server $n $p
    client $n openssl s_client -tls1_2 -connect 127.0.0.1:$p -servername localhost
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
    client $n openssl s_client -connect 127.0.0.1:$p -servername localhost -groups X25519:P-256
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.random == cf:21:ad:74:e5:9a:61:11:be:1d:8c:02:1e:65:b8:91:c2:a2:11:16:7a:bb:8c:5e:07:9e:09:e2:c8:a8:33:9c' 1
    expect_count $n 'tls.handshake.type == 2' 2
}

scenario_dtls12-openssl() {
    local n=dtls12-openssl p=44305
    cap_start $n $p
    server_start $n openssl s_server -dtls1_2 -accept "127.0.0.1:$p" -cert "$cert" -key "$key" \
        -naccept 1 -quiet
    wait_listen $n $p u
    client $n openssl s_client -dtls1_2 -connect 127.0.0.1:$p -servername localhost
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
    # Connect to 127.0.0.1 (not "localhost", which may resolve to ::1), send SNI.
    client $n gnutls-cli --insecure -p $p --sni-hostname localhost 127.0.0.1
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
    (cd "$tmp/www" && exec timeout 10 openssl s_server -accept "127.0.0.1:$p" -cert "$cert" \
        -key "$key" -naccept 1 -quiet -WWW) >"$tmp/$n.server.log" 2>&1 &
    server_pid=$!
    wait_listen $n $p
    client $n curl -sS -k --resolve "localhost:$p:127.0.0.1" "https://localhost:$p/index.txt"
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
    client $n openssl s_client -connect 127.0.0.1:$p -servername localhost \
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

# ---------------------------------------------------------------- main

mkdir -p "$out"
for s in "${scenarios[@]}"; do
    log "$s"
    "scenario_$s"
    log "  -> $out/$s.pcap ($(stat -c %s "$out/$s.pcap") bytes)"
done
