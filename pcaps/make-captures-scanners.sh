# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# make-captures-scanners.sh: make-captures.sh's scanner scenarios
# (issue 13): sslscan, nmap's ssl-enum-ciphers and testssl.sh against a
# healthy s_server.
# Sourced by make-captures.sh, not run on its own: it uses the script's
# addresses, $tmp, $cert, $key, $py, $here and $out.

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
    local name=$1 port=$2 hellos=$3 setup=$4 cut drop
    shift 4
    local srv=(openssl s_server -accept "$server_addr:$port" -cert "$cert" -key "$key" -quiet -rev)
    if [ "$setup" = tls12 ]; then
        srv+=(-no_tls1_3 -cipher 'DEFAULT@SECLEVEL=0')
    fi
    : >"$tmp/$name.dumpcap.log"
    dumpcap -q -i lo -f "port $port" -P -a duration:200 -w "$tmp/$name.raw.pcap" \
        2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    await 100 "$cap_pid" "$tmp/$name.dumpcap.log" "$name: dumpcap did not start" \
        capturing "$tmp/$name.dumpcap.log"
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
