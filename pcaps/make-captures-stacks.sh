# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# make-captures-stacks.sh: make-captures.sh's scenarios with Java 17,
# Go and NSS as one of the parties.
# Sourced by make-captures.sh, not run on its own: it uses the script's
# addresses, $tmp, $cert, $key, $py, $here and $out.

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
# pcaps/README-across-connections.md).
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
