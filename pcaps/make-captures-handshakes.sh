# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# make-captures-handshakes.sh: make-captures.sh's scenarios of single
# handshakes: TLS 1.3 and 1.2 by OpenSSL, GnuTLS, curl and Python, a
# HelloRetryRequest, DTLS 1.2, hellos in many segments and records, odd
# server names, SSLv2 (synthetic), IPv6, a late duplicate close_notify, a
# warning alert for a server name the server does not know.
# Sourced by make-captures.sh, not run on its own: it uses the script's
# addresses, $tmp, $cert, $key, $py, $here and $out.
# Each scenario_NAME function makes NAME.pcap with the helpers of
# make-captures-lib.sh.

# ---------------------------------------------------------------- scenarios
# Each one: its own port, capture, server, client, stop, then a check with
# tshark that the capture shows what the scenario is about.

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

# Plain TLS 1.3 over IPv6 (2001:db8::2 -> 2001:db8::3 on the namespace's
# loopback), for the report's [address]:port.
scenario_tls13-ipv6() {
    local n=tls13-ipv6 p=44353
    cap_start $n $p
    server_start $n openssl s_server -accept "[$server6_addr]:$p" -cert "$cert" -key "$key" -naccept 1 -quiet
    wait_listen $n $p
    client $n openssl s_client -connect "[$server6_addr]:$p" -servername localhost
    server_wait $n
    cap_stop $n
    expect_count $n 'ipv6 && tls.handshake.type == 1' 1
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

# A TLS 1.2 server that knows another name than the client asks for: OpenSSL
# s_server's servername callback answers a ClientHello whose SNI is not
# -servername with a WARNING unrecognized_name alert (15 03 03 00 02 01 70,
# RFC 6066 3; -servername_fatal would make it fatal) and goes on with its
# default certificate: the alert comes before the ServerHello, and the
# handshake completes. A warning is no failure (RFC 5246 7.2).
scenario_sni-mismatch-warning() {
    local n=sni-mismatch-warning p=44415
    cap_start $n $p
    openssl_server $n $p -tls1_2 -servername expected.example -cert2 "$cert" -key2 "$key"
    client $n openssl s_client -tls1_2 -connect "$server_addr:$p" -servername other.example
    server_wait $n
    cap_stop $n
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.extensions_server_name == "other.example"' 1
    expect_count $n 'tls.alert_message.level == 1 && tls.alert_message.desc == 112' 1
    expect_count $n 'tls.alert_message.level == 2' 0
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
    # Both ChangeCipherSpecs and the server's NewSessionTicket: the
    # handshake went on after the warning.
    expect_count $n 'tls.record.content_type == 20' 2
    expect_count $n 'tls.handshake.type == 4' 1
}
