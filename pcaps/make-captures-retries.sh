# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# make-captures-retries.sh: make-captures.sh's cross-connection
# scenarios that are no fallback (issue 4): parallel and spare connections,
# a retry with the same offer, a lower version after a success, another
# server name, another client, a long gap, and TLS 1.2 session resumption.
# Sourced by make-captures.sh, not run on its own: it uses the script's
# addresses, $tmp, $cert, $key, $py, $here and $out.

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

# A transient failure: the first attempt fails (RST) whatever it offers, the
# client retries with -tls1_2 and succeeds, then offers TLS 1.3 again and
# gets it. The intolerance the second attempt shows at the time is
# contradicted by the third.
scenario_fallback-transient-failure() {
    local n=fallback-transient-failure p=44390 b=44391
    local sc=(openssl s_client -connect "$server_addr:$p" -servername localhost)
    cap_start $n $p
    backend_server $n $b -naccept 2
    proxy_start $n 15 $p fail-first $p $b rst 3
    client_fails $n "${sc[@]}"
    client $n "${sc[@]}" -tls1_2
    client $n "${sc[@]}"
    proxy_wait $n
    server_wait $n
    cap_stop $n
    expect_count $n 'tcp.flags.reset == 1' 1
    expect_count $n 'tls.handshake.type == 1' 3
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303 && !tls.handshake.extension.type == 43' 1
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
