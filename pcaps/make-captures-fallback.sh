# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# make-captures-fallback.sh: make-captures.sh's conformance and
# fallback scenarios (issues 3 and 4): fallback SCSV, alerts 70 and 86,
# TLS 1.0/1.1, downgrade sentinels seen through a man in the middle, and
# retries after failures that tlsproxy.py (a proxy in front of a real
# s_server) causes.
# Sourced by make-captures.sh, not run on its own: it uses the script's
# addresses, $tmp, $cert, $key, $py, $here and $out.

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
