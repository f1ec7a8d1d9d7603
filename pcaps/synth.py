#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Synthetic capture writer for the scenarios no real TLS stack produces on demand.

Standard library only (but the QUIC scenarios: python3-cryptography). Writes classic
libpcap files (Ethernet, IPv4, TCP or UDP, with correct IPv4/TCP/UDP checksums), and
pcapng for a scenario that carries a TLS key log. The output is deterministic: fixed
addresses, fixed timestamps, fixed "random" bytes, so re-running a scenario
gives a byte-identical file.

Usage:
  synth.py OUTDIR [SCENARIO ...]     write OUTDIR/<scenario>.pcap (all scenarios if none given;
                                     .pcapng for those that carry a key log)
  synth.py --list                    list the scenarios

The pieces (the libpcap writer, TCP/UDP conversations, the TLS, DTLS and QUIC
builders) are in synth_wire.py; this file re-exports them, so that
`from pcaps.synth import client_hello` and `synth.PcapWriter` keep working.
"""
import os
import sys

if __package__:
    from .synth_wire import *  # noqa: F401,F403 (re-exported: see the docstring)
else:  # run as a script: pcaps/synth.py OUTDIR
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from synth_wire import *  # noqa: F401,F403


# ---------------------------------------------------------------- scenarios

def scenario_sslv2_client_hello(path):
    """SSLv2-compatible ClientHello (TLS 1.0, FALLBACK_SCSV), TLS 1.0 ServerHello.

    A client sends an SSLv2-compatible ClientHello offering up to TLS 1.0 (the
    version field of the message), with TLS_FALLBACK_SCSV among its 3-byte cipher
    specs; the server answers with a TLS 1.0 ServerHello without extensions, then
    the client closes. The server plays a TLS 1.0-only server: a higher one would
    have to refuse this hello with inappropriate_fallback (RFC 7507)."""
    specs = [
        0x010080,  # SSL_CK_RC4_128_WITH_MD5 (an SSL 2.0 kind)
        0x000035,  # TLS_RSA_WITH_AES_256_CBC_SHA
        0x00002F,  # TLS_RSA_WITH_AES_128_CBC_SHA
        0x00000A,  # TLS_RSA_WITH_3DES_EDE_CBC_SHA
        0x005600,  # TLS_FALLBACK_SCSV (RFC 7507 section 4: 0x00,0x56,0x00 in SSL 2.0 form)
    ]
    challenge = fixed_bytes("sslv2 challenge", 16)
    hello = sslv2_client_hello(0x0301, specs, challenge)
    # RFC 5246 E.2: the server's random is its own; the client's challenge becomes the
    # right-aligned client random. The ServerHello is a plain TLS 1.0 one.
    sh = server_hello(0x0301, fixed_bytes("sslv2 server random", 32),
                      fixed_bytes("sslv2 session id", 32), 0x0035, None)
    with PcapWriter(path) as pcap:
        tcp_conversation(pcap, CLIENT, (SERVER_IP, 443),
                         [(True, hello), (False, tls_record(CT_HANDSHAKE, 0x0301, sh))])


SSL_CK_RC4_128_WITH_MD5, SSL_CK_DES_192_EDE3_CBC_WITH_MD5 = 0x010080, 0x0700C0
# A throwaway self-signed certificate for "localhost" (openssl req -x509, P-256), DER: the
# SERVER-HELLO carries a real X.509 structure so that tshark dissects it without complaint.
SSLV2_CERTIFICATE = bytes.fromhex(
    "3082019330820139a003020102021403147d630d222f41c3940bb3c02d6a2f14152028300a06082a8648ce3d"
    "04030230143112301006035504030c096c6f63616c686f7374301e170d3236313230333233333931315a170d"
    "3236313230353233333931315a30143112301006035504030c096c6f63616c686f73743059301306072a8648"
    "ce3d020106082a8648ce3d03010703420004feb33ff6891401f40f4f397bee707b3204c9563613536d6f6a43"
    "d6bb430ec371491257d0e507a5471420ea5335ff724014976b7c2e630c81fbbec247336a5360a3693067301d"
    "0603551d0e0416041499c90290ee3eefde4663cc48360fb57b765159b9301f0603551d2304183016801499c9"
    "0290ee3eefde4663cc48360fb57b765159b9300f0603551d130101ff040530030101ff30140603551d11040d"
    "300b82096c6f63616c686f7374300a06082a8648ce3d0403020348003045022100b9033cf43b5cf3c2115c4d"
    "363815166ab69b68d3214bcb0683de95636fdceb5102200ee0bacea61d2368360648103c3ae84a3f7593d123"
    "c49cecedf496b565951c9f")


def scenario_sslv2_handshake(path):
    """An SSL 2.0 handshake, and an SSLv2-compatible TLS 1.2 hello beside it.

    Written from the SSL 2.0 specification (draft-hickman-netscape-ssl-00): no stack on
    Debian 12 speaks SSL 2.0 (RFC 6176 forbids it). Two clients to 192.0.2.20:443 (a port
    where Wireshark 4.0 looks for SSLv2 hellos):
    1. 192.0.2.100: CLIENT-HELLO (version 0x0002, two SSL 2.0 cipher kinds, 16-byte
       challenge); SERVER-HELLO (version 0x0002, a self-signed certificate, one cipher
       kind, 16-byte connection ID); CLIENT-MASTER-KEY (RC4_128_WITH_MD5, a 128-byte
       encrypted key); then the client closes (the encrypted messages are left out).
    2. 192.0.2.101: an SSLv2-compatible CLIENT-HELLO offering TLS 1.2 (0x0303, TLS suites
       in 3-byte form); a TLS 1.2 ServerHello and ServerHelloDone in a TLS record."""
    label = "sslv2-handshake"
    ch1 = sslv2_client_hello(0x0002, [SSL_CK_RC4_128_WITH_MD5, SSL_CK_DES_192_EDE3_CBC_WITH_MD5],
                             fixed_bytes(label + " challenge", 16))
    sh1 = sslv2_server_hello(SSLV2_CERTIFICATE, [SSL_CK_RC4_128_WITH_MD5],
                             fixed_bytes(label + " connection id", 16))
    cmk = sslv2_client_master_key(SSL_CK_RC4_128_WITH_MD5, b"",
                                  fixed_bytes(label + " encrypted key", 128))
    ch2 = sslv2_client_hello(0x0303, [0x00C02F, 0x00009C, 0x00002F, 0x0000FF],
                             fixed_bytes(label + " tls challenge", 32))
    sh2 = tls12_server_hello(label, suite=0xC02F)
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, [([(True, ch1), (False, sh1), (True, cmk)], "client"),
                               ([(True, ch2), (False, tls12_server_flight(sh2))], "client")])


def client_record(message, version=0x0301):
    """A client's handshake record; OpenSSL sends its first ClientHello in a 0x0301 record."""
    return tls_record(CT_HANDSHAKE, version, message)


def session_of(label):
    """The session ID openssl_client_hello(label) sends, for the server to echo."""
    return fixed_bytes(label + " session", 32)


def tls13_exchange(label, ch=None, sh=None, sh_record=0x0303, reply=None):
    """A connection's exchanges: ClientHello (default OpenSSL's TLS 1.3 one) in a 0x0301
    record, the server's TLS 1.3 flight around sh (default OpenSSL's ServerHello), and the
    client's reply (an alert record) if any."""
    ch = ch if ch is not None else openssl_client_hello(label)
    sh = sh if sh is not None else tls13_server_hello(label, session_of(label))
    out = [(True, client_record(ch)), (False, tls13_server_flight(label, sh, sh_record))]
    return out + ([(True, reply)] if reply else [])


def scenario_legacy_versions(path):
    """legacy_version out of place: TLS 1.3-era hellos whose legacy_version is not 0x0303.

    Five TLS connections (client ports 49152..49156 -> 443), one rule-breaking hello each,
    the other side OpenSSL 3.0's:
    1. ClientHello offering 0x0304..0x0301 in supported_versions, legacy_version 0x0301;
       answered with TLS 1.3 (the server reads only supported_versions, RFC 8446 4.2.1).
    2. The same with legacy_version 0x0304; answered with TLS 1.3.
    3. ClientHello with legacy_version 0x0304 and no supported_versions, but key_share,
       psk_key_exchange_modes and TLS 1.3 suites; a TLS 1.2-only server answers TLS 1.2
       (no downgrade sentinel: its own maximum is 1.2).
    4. OpenSSL's ClientHello; ServerHello selecting 0x0304 in supported_versions with
       legacy_version 0x0304.
    5. OpenSSL's ClientHello; ServerHello with legacy_version 0x0304 and no
       supported_versions; the client aborts with protocol_version (70)."""
    conns = []
    for label, legacy in (("legacy-1", 0x0301), ("legacy-2", 0x0304)):
        ch = openssl_client_hello(label, legacy_version=legacy)
        conns.append((tls13_exchange(label, ch=ch), "client"))
    label = "legacy-3"
    ch = openssl_client_hello(label, without(openssl_client_extensions(label),
                                             EXT_SUPPORTED_VERSIONS), legacy_version=0x0304)
    conns.append(([(True, client_record(ch)),
                   (False, tls12_server_flight(tls12_server_hello(label)))], "client"))
    label = "legacy-4"
    sh = tls13_server_hello(label, session_of(label), legacy_version=0x0304)
    conns.append((tls13_exchange(label, sh=sh), "client"))
    label = "legacy-5"
    sh = tls13_server_hello(label, session_of(label), legacy_version=0x0304, extensions=[
        ext_key_share_server(X25519, fixed_bytes(label + " server share", 32))])
    conns.append((tls13_exchange(label, sh=sh, reply=alert_record(ALERT_PROTOCOL_VERSION)),
                  "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def scenario_record_versions(path):
    """Record-layer versions that RFC 8446 5.1 / Appendix D do not expect on hellos.

    Seven TLS connections (client ports 49152..49158 -> 443), OpenSSL 3.0's hellos:
    1. ClientHello in a record of version 0x0101 (GM/T 0024, below 0x0300; tshark 4.0
       decodes no other record version outside 0x0300..0x0303); TLS 1.3 answer.
    2. ClientHello in an SSL 3.0 record (0x0300): allowed, no finding; TLS 1.3 answer.
    3. ClientHello, HelloRetryRequest, second ClientHello in a 0x0301 record (RFC 8446
       5.1: 0x0303 after a HelloRetryRequest), ServerHello.
    4. ClientHello, HelloRetryRequest in a 0x0301 record, second ClientHello (0x0303),
       ServerHello.
    5. ServerHello putting TLS 1.3 in force in a 0x0301 record.
    6. TLS 1.2 ClientHello (s_client -tls1_2); TLS 1.2 ServerHello in a 0x0301 record.
    7. TLS 1.2 ClientHello; a TLS 1.0 ServerHello in a 0x0301 record (record matches)."""
    conns = []
    for label, ch_record in (("record-1", 0x0101), ("record-2", 0x0300)):
        sh = tls13_server_hello(label, session_of(label))
        conns.append(([(True, client_record(openssl_client_hello(label), ch_record)),
                       (False, tls13_server_flight(label, sh))], "client"))
    for label, hrr_record, ch2_record in (("record-3", 0x0303, 0x0301),
                                          ("record-4", 0x0301, 0x0303)):
        sid = session_of(label)
        ch2 = openssl_client_hello(label, openssl_client_extensions(label)[:-1] + [
            ext_key_share_client([(SECP256R1, fixed_bytes(label + " p256", 65))])])
        sh = tls13_server_hello(label, sid, extensions=[
            ext_selected_version(0x0304),
            ext_key_share_server(SECP256R1, fixed_bytes(label + " server share", 65))])
        conns.append(([(True, client_record(openssl_client_hello(label))),
                       (False, tls_record(CT_HANDSHAKE, hrr_record, hello_retry_request(sid))
                        + CCS_RECORD),
                       (True, CCS_RECORD + client_record(ch2, ch2_record)),
                       (False, tls_record(CT_HANDSHAKE, 0x0303, sh) + tls_record(
                           23, 0x0303, fixed_bytes(label + " encrypted flight", 96)))],
                      "client"))
    label = "record-5"
    conns.append((tls13_exchange(label, sh_record=0x0301), "client"))
    for label, version, suite in (("record-6", 0x0303, 0xC02C), ("record-7", 0x0301, 0xC014)):
        sh = tls12_server_hello(label, version=version, suite=suite)
        conns.append(([(True, client_record(openssl_client_hello(label, tls13=False))),
                       (False, tls12_server_flight(sh, 0x0301))], "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def scenario_missing_extensions(path):
    """TLS 1.3 ClientHellos missing extensions RFC 8446 9.2 requires; an HRR without one.

    The ClientHellos lack what RFC 8446 9.2 requires; the HelloRetryRequest lacks
    supported_versions.

    Seven TLS connections (client ports 49152..49158 -> 443), OpenSSL 3.0's hello (offering
    0x0304..0x0301) with one change each; the server aborts as RFC 8446 says:
    1. key_share without supported_groups: alert missing_extension (109).
    2. supported_groups without key_share: alert 109.
    3. neither signature_algorithms nor pre_shared_key: alert 109.
    4. pre_shared_key (last) without psk_key_exchange_modes: alert 109.
    5. pre_shared_key not last (before supported_versions): alert illegal_parameter (47).
    6. OpenSSL's hello; a HelloRetryRequest without supported_versions (key_share only);
       the client gives up (FIN).
    7. no supported_versions, but key_share, psk_key_exchange_modes and TLS 1.3 suites;
       a TLS 1.2-only server answers TLS 1.2."""
    def aborted(label, exts, alert):
        return ([(True, client_record(openssl_client_hello(label, exts))),
                 (False, alert_record(alert))], "server")

    conns = []
    exts = openssl_client_extensions("missing-1")
    conns.append(aborted("missing-1", without(exts, EXT_SUPPORTED_GROUPS),
                         ALERT_MISSING_EXTENSION))
    exts = openssl_client_extensions("missing-2")
    conns.append(aborted("missing-2", without(exts, EXT_KEY_SHARE), ALERT_MISSING_EXTENSION))
    exts = openssl_client_extensions("missing-3")
    conns.append(aborted("missing-3", without(exts, EXT_SIGNATURE_ALGORITHMS),
                         ALERT_MISSING_EXTENSION))
    exts = openssl_client_extensions("missing-4")
    conns.append(aborted("missing-4", without(exts, EXT_PSK_KEY_EXCHANGE_MODES)
                         + [ext_pre_shared_key("missing-4")], ALERT_MISSING_EXTENSION))
    exts = openssl_client_extensions("missing-5")
    conns.append(aborted("missing-5", exts[:7] + [ext_pre_shared_key("missing-5")] + exts[7:],
                         ALERT_ILLEGAL_PARAMETER))
    label = "missing-6"
    hrr = hello_retry_request(session_of(label), extensions=[extension(EXT_KEY_SHARE,
                                                                       u16(SECP256R1))])
    conns.append(([(True, client_record(openssl_client_hello(label))),
                   (False, tls_record(CT_HANDSHAKE, 0x0303, hrr) + CCS_RECORD)], "client"))
    label = "missing-7"
    ch = openssl_client_hello(label, without(openssl_client_extensions(label),
                                             EXT_SUPPORTED_VERSIONS))
    conns.append(([(True, client_record(ch)),
                   (False, tls12_server_flight(tls12_server_hello(label)))], "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def scenario_supported_versions_malformed(path):
    """supported_versions lists no stack sends: broken encodings, a repeat, GREASE only.

    The first three and the sixth break RFC 8446 4.2.1's encoding; the fourth (a version
    listed twice) and the fifth (GREASE only: no version offered) are well-formed.
    Six TLS connections (client ports 49152..49157 -> 443), OpenSSL 3.0's hellos with the
    extension's bytes replaced:
    1. ClientHello list length 5 (odd): 0x0304 0x0303 and one byte 0x03; decode_error (50).
    2. ClientHello empty list (length 0); decode_error.
    3. ClientHello list length 6 in an extension of 9 bytes (0x0304 0x0303 0x0302, then
       0x0301 outside the list); decode_error.
    4. ClientHello list 0x0304 0x0303 0x0303 (a duplicate); OpenSSL answers TLS 1.3.
    5. ClientHello list of GREASE only (0x2a2a 0x3a3a); protocol_version (70).
    6. OpenSSL's ClientHello; ServerHello whose supported_versions has 3 bytes
       (03 04 00); the client aborts with decode_error."""
    def ch_with(label, sv_data):
        exts = openssl_client_extensions(label)
        exts[7] = extension(EXT_SUPPORTED_VERSIONS, sv_data)
        return openssl_client_hello(label, exts)

    conns = []
    for label, data, alert in (
            ("svmal-1", bytes.fromhex("050304030303"), ALERT_DECODE_ERROR),
            ("svmal-2", bytes.fromhex("00"), ALERT_DECODE_ERROR),
            ("svmal-3", bytes.fromhex("060304030303020301"), ALERT_DECODE_ERROR)):
        conns.append(([(True, client_record(ch_with(label, data))),
                       (False, alert_record(alert))], "server"))
    label = "svmal-4"
    ch = ch_with(label, vec8(u16_list([0x0304, 0x0303, 0x0303])))
    conns.append((tls13_exchange(label, ch=ch), "client"))
    label = "svmal-5"
    conns.append(([(True, client_record(ch_with(label, vec8(u16_list([0x2A2A, 0x3A3A]))))),
                   (False, alert_record(ALERT_PROTOCOL_VERSION))], "server"))
    label = "svmal-6"
    sh = tls13_server_hello(label, session_of(label), extensions=[
        extension(EXT_SUPPORTED_VERSIONS, bytes.fromhex("030400")),
        ext_key_share_server(X25519, fixed_bytes(label + " server share", 32))])
    conns.append((tls13_exchange(label, sh=sh, reply=alert_record(ALERT_DECODE_ERROR)),
                  "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def scenario_server_selects(path):
    """ServerHellos that select what they must not, or carry a downgrade sentinel.

    Nine TLS connections (client ports 49152..49160 -> 443); the client is OpenSSL 3.0
    (offering 0x0304..0x0301) unless said otherwise and reacts as RFC 8446 says:
    1. TLS 1.2 ClientHello with supported_versions 0x0303 only; ServerHello selecting
       0x0304; the client aborts with illegal_parameter (47).
    2. ServerHello selecting 0x0303 in supported_versions; illegal_parameter.
    3. ServerHello selecting the GREASE value 0x7a7a; illegal_parameter.
    4. TLS 1.3 ServerHello with the GREASE cipher suite 0x0a0a; illegal_parameter.
    5. TLS 1.3 ServerHello with a GREASE extension (0x1a1a, empty); unsupported_extension
       (110).
    6. TLS 1.3 ServerHello whose random ends DOWNGRD\\x01 (TLS 1.3 in force).
    7. TLS 1.2 ServerHello (no supported_versions) whose random ends DOWNGRD\\x01;
       illegal_parameter (RFC 8446 4.1.3).
    8. The same with BoringSSL's JDK 11 value edbfb4a8c24710ff; illegal_parameter.
    9. TLS 1.1 ServerHello in a 0x0302 record, random ending DOWNGRD\\x00;
       illegal_parameter (in a 0x0302 record)."""
    def sh13(label, **kw):
        return tls13_server_hello(label, session_of(label), **kw)

    share = lambda label: ext_key_share_server(X25519, fixed_bytes(label + " server share", 32))
    illegal = alert_record(ALERT_ILLEGAL_PARAMETER)
    conns = []
    label = "select-1"
    ch = openssl_client_hello(label, openssl_client_extensions(label, None)
                              + [ext_supported_versions([0x0303])], tls13=False)
    sh = tls13_server_hello(label, b"")  # the TLS 1.2 hello's session ID is empty
    conns.append((tls13_exchange(label, ch=ch, sh=sh, reply=illegal), "client"))
    label = "select-2"
    sh = tls12_server_hello(label, session_id=session_of(label), extensions=[
        extension(EXT_RENEGOTIATION_INFO, b"\x00"), ext_selected_version(0x0303),
        extension(EXT_EXTENDED_MASTER_SECRET, b"")])
    conns.append(([(True, client_record(openssl_client_hello(label))),
                   (False, tls12_server_flight(sh)), (True, illegal)], "client"))
    label = "select-3"
    conns.append((tls13_exchange(label, sh=sh13(label, version=0x7A7A), reply=illegal),
                  "client"))
    label = "select-4"
    conns.append((tls13_exchange(label, sh=sh13(label, suite=0x0A0A), reply=illegal), "client"))
    label = "select-5"
    sh = sh13(label, extensions=[extension(0x1A1A, b""), ext_selected_version(0x0304),
                                 share(label)])
    conns.append((tls13_exchange(label, sh=sh, reply=alert_record(ALERT_UNSUPPORTED_EXTENSION)),
                  "client"))
    label = "select-6"
    random = fixed_bytes(label + " server random", 32)[:24] + DOWNGRD_TLS12
    conns.append((tls13_exchange(label, sh=sh13(label, random=random)), "client"))
    for label, tail in (("select-7", DOWNGRD_TLS12), ("select-8", JDK11_DOWNGRADE)):
        sh = tls12_server_hello(label, random_tail=tail)
        conns.append(([(True, client_record(openssl_client_hello(label))),
                       (False, tls12_server_flight(sh)), (True, illegal)], "client"))
    label = "select-9"
    sh = tls12_server_hello(label, version=0x0302, suite=0xC014, random_tail=DOWNGRD_TLS11)
    conns.append(([(True, client_record(openssl_client_hello(label))),
                   (False, tls12_server_flight(sh, 0x0302)),
                   (True, alert_record(ALERT_ILLEGAL_PARAMETER, 0x0302))], "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def chrome_like_client_hello(label, g):
    """A Chrome-like ClientHello with GREASE (RFC 8701) in every place it may go: g maps
    cipher_suite, extension, group (also its key share), alpn, signature_algorithm,
    psk_mode, version, extension2 (the last extension) to the values to use."""
    suites = [g["cipher_suite"], 0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9,
              0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035]
    exts = [extension(g["extension"], b""),
            ext_server_name("localhost"),
            extension(EXT_EXTENDED_MASTER_SECRET, b""),
            extension(EXT_RENEGOTIATION_INFO, b"\x00"),
            extension(EXT_SUPPORTED_GROUPS,
                      vec16(u16_list([g["group"], X25519, SECP256R1, 0x0018]))),
            extension(EXT_EC_POINT_FORMATS, vec8(b"\x00")),
            extension(35, b""),
            ext_alpn([u16(g["alpn"]), b"h2", b"http/1.1"]),
            extension(5, bytes.fromhex("0100000000")),  # status_request (OCSP)
            extension(EXT_SIGNATURE_ALGORITHMS, vec16(u16_list(
                [g["signature_algorithm"], 0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501,
                 0x0806, 0x0601]))),
            extension(18, b""),  # signed_certificate_timestamp
            ext_key_share_client([(g["group"], b"\x00"),
                                  (X25519, fixed_bytes(label + " x25519", 32))]),
            extension(EXT_PSK_KEY_EXCHANGE_MODES, vec8(bytes([g["psk_mode"], 1]))),
            ext_supported_versions([g["version"], 0x0304, 0x0303]),
            extension(27, bytes.fromhex("020002")),  # compress_certificate: brotli
            extension(17513, vec16(vec8(b"h2"))),  # application_settings (ALPS)
            extension(g["extension2"], b"\x00")]
    return client_hello(0x0303, fixed_bytes(label + " client random", 32), session_of(label),
                        suites, exts)


def scenario_grease_client(path):
    """A Chrome-like ClientHello with GREASE everywhere, answered normally (no finding).

    Two TLS connections (client ports 49152, 49153 -> 443), each with its own GREASE values
    as Chrome picks them per connection: cipher suite, first and last extension type,
    supported group and key share (the same value, 1-byte share), ALPN, signature
    algorithm, PSK mode, supported_versions. 1: a TLS 1.3 server answers (cipher 0x1301).
    2: a TLS 1.2-only server answers (cipher 0xc02c, no sentinel)."""
    g1 = dict(cipher_suite=0x0A0A, extension=0x1A1A, group=0x2A2A, alpn=0x3A3A,
              signature_algorithm=0x4A4A, psk_mode=0x0B, version=0x5A5A, extension2=0x6A6A)
    g2 = dict(cipher_suite=0x7A7A, extension=0x8A8A, group=0x9A9A, alpn=0xAAAA,
              signature_algorithm=0xBABA, psk_mode=0x2A, version=0xCACA, extension2=0xDADA)
    label = "grease-1"
    conns = [(tls13_exchange(label, ch=chrome_like_client_hello(label, g1),
                             sh=tls13_server_hello(label, session_of(label), suite=0x1301)),
              "client")]
    label = "grease-2"
    conns.append(([(True, client_record(chrome_like_client_hello(label, g2))),
                   (False, tls12_server_flight(tls12_server_hello(label)))], "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def scenario_malformed(path):
    """Malformed ClientHellos, then a normal connection that must still be analysed.

    Six TLS connections (client ports 49152..49157 -> 443), OpenSSL 3.0's TLS 1.3 hello:
    1. extended_master_secret (23) twice; the server aborts with illegal_parameter (47).
    2. truncated: handshake length says 306 body bytes, the record carries 150 of them;
       the client then closes (tshark shows a ClientHello fragment it cannot complete).
    3. cut short inside the session ID: length 32 with 10 bytes left in the message
       (handshake and record lengths match the bytes); decode_error (50).
    4. a padding extension (21) at the end whose length (512) runs past the extensions
       block (100 bytes left); decode_error.
    5. three bytes after the extensions block, inside the handshake length; decode_error.
    6. the unchanged hello, answered with TLS 1.3."""
    conns = []

    def aborted(label, ch, alert):
        return ([(True, client_record(ch)), (False, alert_record(alert))], "server")

    label = "malformed-1"
    exts = openssl_client_extensions(label)
    conns.append(aborted(label, openssl_client_hello(label, exts[:6] + exts[5:]),
                         ALERT_ILLEGAL_PARAMETER))
    label = "malformed-2"
    ch = openssl_client_hello(label)
    conns.append(([(True, client_record(ch[:4 + 150]))], "client"))
    label = "malformed-3"
    body = openssl_client_hello(label)[4:]
    cut = body[:2 + 32 + 1 + 10]  # version, random, session ID length 32, 10 bytes of it
    conns.append(aborted(label, handshake(1, cut), ALERT_DECODE_ERROR))
    label = "malformed-4"
    exts = openssl_client_extensions(label) + [u16(EXT_PADDING) + u16(512) + b"\x00" * 100]
    conns.append(aborted(label, openssl_client_hello(label, exts), ALERT_DECODE_ERROR))
    label = "malformed-5"
    conns.append(aborted(label, handshake(1, openssl_client_hello(label)[4:] + b"\x00\x00\x00"),
                         ALERT_DECODE_ERROR))
    conns.append((tls13_exchange("malformed-6"), "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def dtls13_client_hello(label, legacy_version=0xFEFD):
    """A DTLS 1.3-era ClientHello: OpenSSL's TLS 1.3 hello in DTLS form (empty session ID
    and cookie), supported_versions 0xfefc 0xfefd (RFC 9147 5.3)."""
    return openssl_client_hello(label, openssl_client_extensions(label, DTLS13_OFFER),
                                legacy_version=legacy_version, cookie=b"")


def dtls13_server_flight(label):
    """A DTLS 1.3 ServerHello (legacy_version 0xfefd, supported_versions 0xfefc), message
    and record sequence 0, in a 0xfefd record."""
    sh = tls13_server_hello(label, b"", version=0xFEFC, legacy_version=0xFEFD)
    return dtls_record(CT_HANDSHAKE, 0xFEFD, 0, dtls_handshake(sh, 0))


def scenario_dtls13(path):
    """DTLS: wrong version fields, a retransmitted ClientHello, a DTLS 1.0 ServerHello.

    DTLS 1.3-era hellos with wrong version fields, a ClientHello sent twice, and a
    DTLS 1.0 ServerHello.

    Four UDP conversations (client ports 49152..49155 -> 4433):
    1. ClientHello with legacy_version 0xfefc (supported_versions 0xfefc 0xfefd); DTLS 1.3
       ServerHello.
    2. ClientHello in a record of version 0x0100 (OpenSSL's pre-standard DTLS; tshark 4.0
       decodes no 0xfefc record); DTLS 1.3 ServerHello.
    3. ClientHello, then the same message again in a new record (record sequence 1), as a
       client whose timer fired; DTLS 1.3 ServerHello.
    4. OpenSSL's DTLS 1.2 ClientHello (s_client -dtls1_2, no supported_versions, record
       0xfeff); a DTLS 1.0-only server answers DTLS 1.0 (0xfeff)."""
    convs = []
    label = "dtls-1"
    convs.append([(True, dtls_record(CT_HANDSHAKE, 0xFEFD, 0,
                                     dtls_handshake(dtls13_client_hello(label, 0xFEFC), 0))),
                  (False, dtls13_server_flight(label))])
    label = "dtls-2"
    convs.append([(True, dtls_record(CT_HANDSHAKE, 0x0100, 0,
                                     dtls_handshake(dtls13_client_hello(label), 0))),
                  (False, dtls13_server_flight(label))])
    label = "dtls-3"
    msg = dtls_handshake(dtls13_client_hello(label), 0)
    convs.append([(True, dtls_record(CT_HANDSHAKE, 0xFEFD, 0, msg)),
                  (True, dtls_record(CT_HANDSHAKE, 0xFEFD, 1, msg)),
                  (False, dtls13_server_flight(label))])
    label = "dtls-4"
    ch = openssl_client_hello(label, tls13=False, legacy_version=0xFEFD, cookie=b"")
    sh = tls12_server_hello(label, version=0xFEFF, suite=0xC014, extensions=[
        extension(EXT_RENEGOTIATION_INFO, b"\x00"),
        extension(EXT_EC_POINT_FORMATS, vec8(b"\x00\x01\x02")),
        extension(EXT_EXTENDED_MASTER_SECRET, b"")])
    flight = dtls_handshake(sh, 0) + dtls_handshake(handshake(14, b""), 1)
    convs.append([(True, dtls_record(CT_HANDSHAKE, 0xFEFF, 0, dtls_handshake(ch, 0))),
                  (False, dtls_record(CT_HANDSHAKE, 0xFEFF, 0, flight))])
    with PcapWriter(path) as pcap:
        udp_conversations(pcap, convs, 4433)


def quic_client_hello(label, scid, tls13=True, transport_parameters=True):
    """A QUIC client's ClientHello: OpenSSL's TLS 1.3 lists cut to TLS 1.3 (suites
    0x1301..0x1303, supported_versions 0x0304 only) with ALPN h3 and
    quic_transport_parameters; tls13=False: OpenSSL's -tls1_2 hello with ALPN h3."""
    if tls13:
        exts = [ext_server_name("localhost"),
                extension(EXT_SUPPORTED_GROUPS, vec16(u16_list(OPENSSL_TLS12_GROUPS))),
                extension(EXT_SIGNATURE_ALGORITHMS, vec16(u16_list(OPENSSL_SIGALGS))),
                ext_alpn([b"h3"]),
                ext_supported_versions([0x0304]),
                extension(EXT_PSK_KEY_EXCHANGE_MODES, vec8(b"\x01")),
                ext_key_share_client([(X25519, fixed_bytes(label + " x25519", 32))])]
        suites = [0x1301, 0x1302, 0x1303]
    else:
        exts = openssl_client_extensions(label, None) + [ext_alpn([b"h3"])]
        suites = OPENSSL_TLS12_SUITES
    if transport_parameters:
        exts.append(quic_transport_parameters(scid))
    return client_hello(0x0303, fixed_bytes(label + " client random", 32), b"", suites, exts)


def scenario_quic_tls12(path):
    """QUIC v1 Initial packets whose TLS handshake breaks RFC 9001's version rules.

    Three QUIC connections (client ports 49152..49154 -> 443), real Initial packet
    protection (needs python3-cryptography), every datagram padded to 1200 bytes:
    1. ClientHello offering only TLS 1.2 (no supported_versions), with transport
       parameters; the server closes with CRYPTO_ERROR 0x146 (protocol_version).
    2. ClientHello offering TLS 1.3 without quic_transport_parameters; the server closes
       with 0x16d (missing_extension).
    3. A normal TLS 1.3 ClientHello; the server's Initial carries a TLS 1.2 ServerHello;
       the client closes with 0x146."""
    convs = []
    for n, tls13, tp, alert in ((1, False, True, ALERT_PROTOCOL_VERSION),
                                (2, True, False, ALERT_MISSING_EXTENSION),
                                (3, True, True, None)):
        label = "quic-%d" % n
        odcid, cscid, sscid = (fixed_bytes(label + x, 8)
                               for x in (" dcid", " scid", " server cid"))
        ch = quic_client_hello(label, cscid, tls13, tp)
        dgrams = [(True, quic_initial(odcid, odcid, cscid, 0, quic_crypto_frame(ch), False))]
        if alert:
            dgrams.append((False, quic_initial(odcid, cscid, sscid, 0, quic_ack_frame(0)
                                               + quic_connection_close(alert), True)))
        else:
            sh = tls12_server_hello(label, suite=0xC02B)
            dgrams.append((False, quic_initial(odcid, cscid, sscid, 0, quic_ack_frame(0)
                                               + quic_crypto_frame(sh), True)))
            dgrams.append((True, quic_initial(odcid, sscid, cscid, 1, quic_ack_frame(0)
                                              + quic_connection_close(ALERT_PROTOCOL_VERSION),
                                              False)))
        convs.append(dgrams)
    with PcapWriter(path) as pcap:
        udp_conversations(pcap, convs, 443)


def scenario_quic_handshake_close(path):
    """QUIC v1: the server closes with a TLS alert in an Initial and a Handshake packet.

    One connection (192.0.2.100:49152 -> 192.0.2.20:443), written as pcapng with the
    connection's handshake secrets in a Decryption Secrets Block, so that Wireshark
    decrypts its Handshake packet as it would with the endpoints' key log:
    1. the client's Initial: a TLS 1.3 ClientHello (as in synth-quic-tls12's third);
    2. the server's Initial: ACK and its TLS 1.3 ServerHello (TLS_AES_128_GCM_SHA256);
    3. the server closes with CRYPTO_ERROR 0x150 (internal_error, 80) before the client
       has confirmed the handshake: one CONNECTION_CLOSE in an Initial packet and the
       same in a Handshake packet, coalesced in one datagram (RFC 9000 10.2.3: the client
       may not have Handshake keys yet). Only the Initial one is readable without keys."""
    label = "quic-hs-close"
    odcid, cscid, sscid = (fixed_bytes(label + x, 8) for x in (" dcid", " scid", " server cid"))
    ch = quic_client_hello(label, cscid)
    sh = tls13_server_hello(label, b"", suite=0x1301)
    secrets = {side: fixed_bytes(label + " " + side + " handshake traffic secret", 32)
               for side in ("CLIENT", "SERVER")}
    keylog = "".join("%s_HANDSHAKE_TRAFFIC_SECRET %s %s\n"
                     % (side, fixed_bytes(label + " client random", 32).hex(), secret.hex())
                     for side, secret in secrets.items())
    close = quic_connection_close(ALERT_INTERNAL_ERROR, frame_type=0)
    handshake_close = quic_long_packet(secrets["SERVER"], 2, cscid, sscid, 0, close)
    dgrams = [(True, quic_initial(odcid, odcid, cscid, 0, quic_crypto_frame(ch), False)),
              (False, quic_initial(odcid, cscid, sscid, 0, quic_ack_frame(0)
                                   + quic_crypto_frame(sh), True)),
              (False, quic_initial(odcid, cscid, sscid, 1, close, True,
                                   1200 - len(handshake_close)) + handshake_close)]
    with PcapngWriter(path, keylog) as pcap:
        udp_conversations(pcap, [dgrams], 443)


def scenario_resumption_version(path):
    """A TLS 1.2 session resumed at TLS 1.1 (resumption_version_change).

    One client (192.0.2.10), two connections to 192.0.2.20:443, two seconds apart:
    1. OpenSSL's -tls1_2 ClientHello, empty session ID; the TLS 1.2 ServerHello creates
       session ID S (32 bytes); ServerHelloDone follows.
    2. A TLS 1.1 ClientHello (legacy 0x0302, the -tls1_2 extensions and suites) offering S;
       the ServerHello echoes S at TLS 1.1 (an abbreviated handshake: ChangeCipherSpec and
       an encrypted Finished follow). OpenSSL will neither offer a session at another
       version nor resume one (pcaps/README-synthetic.md), so this one is synthetic."""
    sid = fixed_bytes("resumption session", 32)
    label = "resumption-1"
    ch1 = openssl_client_hello(label, tls13=False)
    sh1 = tls12_server_hello(label, session_id=sid)
    label = "resumption-2"
    ch2 = client_hello(0x0302, fixed_bytes(label + " client random", 32), sid,
                       OPENSSL_TLS12_SUITES, openssl_client_extensions(label, None))
    sh2 = tls12_server_hello(label, version=0x0302, session_id=sid)
    flight2 = (tls_record(CT_HANDSHAKE, 0x0302, sh2) + tls_record(20, 0x0302, b"\x01")
               + tls_record(22, 0x0302, fixed_bytes(label + " encrypted finished", 40)))
    with PcapWriter(path) as pcap:
        for i, (ch, flight) in enumerate([(ch1, tls12_server_flight(sh1)), (ch2, flight2)]):
            conv = TcpConversation(pcap, (CLIENT_IP, 49152 + i), (SERVER_IP, 443), t0=T0 + 2 * i)
            conv.open()
            conv.send(True, client_record(ch))
            conv.send(False, flight)
            conv.close(from_client=True)


def scenario_ignored_scsv_earlier(path):
    """TLS_FALLBACK_SCSV ignored by a server that put a higher version in force before.

    One client (192.0.2.10), two connections to 192.0.2.20:443, two seconds apart:
    1. OpenSSL's -tls1_2 ClientHello; a TLS 1.2 ServerHello (no sentinel) and
       ServerHelloDone.
    2. A TLS 1.1 ClientHello (legacy 0x0302, the -tls1_2 extensions, its suites then
       TLS_FALLBACK_SCSV, as s_client -tls1_1 -fallback_scsv sends them); the server
       answers TLS 1.1 with a plain random (no DOWNGRD) and ServerHelloDone, where RFC 7507
       section 3 wants inappropriate_fallback: it did TLS 1.2 with this client in the first
       connection. Synthetic because no stack here both ignores the SCSV and omits the
       sentinel: OpenSSL, GnuTLS and Go refuse the hello, Java marks its random
       (pcaps/ignored-scsv-java-tls11.pcap)."""
    label = "ignored-scsv-1"
    ch1 = openssl_client_hello(label, tls13=False)
    sh1 = tls12_server_hello(label)
    label = "ignored-scsv-2"
    ch2 = client_hello(0x0302, fixed_bytes(label + " client random", 32), b"",
                       OPENSSL_TLS12_SUITES + [0x5600], openssl_client_extensions(label, None))
    sh2 = tls12_server_hello(label, version=0x0302, suite=0xC014)
    flight2 = tls12_server_flight(sh2, record_version=0x0302)
    with PcapWriter(path) as pcap:
        for i, (ch, flight) in enumerate([(ch1, tls12_server_flight(sh1)), (ch2, flight2)]):
            conv = TcpConversation(pcap, (CLIENT_IP, 49152 + i), (SERVER_IP, 443), t0=T0 + 2 * i)
            conv.open()
            conv.send(True, client_record(ch))
            conv.send(False, flight)
            conv.close(from_client=True)


def key_share_client_hello(label, groups, shares):
    """OpenSSL 3.0's TLS 1.3 ClientHello with its supported_groups and key_share replaced:
    groups a list of code points, shares a list of (group, key length)."""
    exts = []
    for e in openssl_client_extensions(label):
        if ext_type(e) == EXT_SUPPORTED_GROUPS:
            e = extension(EXT_SUPPORTED_GROUPS, vec16(u16_list(groups)))
        elif ext_type(e) == EXT_KEY_SHARE:
            e = ext_key_share_client([(g, fixed_bytes("%s share %d" % (label, i), n))
                                      for i, (g, n) in enumerate(shares)])
        exts.append(e)
    return openssl_client_hello(label, exts)


def scenario_key_shares(path):
    """Key shares and groups out of place (RFC 8446 4.2.8, the ECDHE-MLKEM draft).

    Eight TLS connections (client ports 49152..49159 -> 443), each from its own client,
    an OpenSSL 3.0-like ClientHello whose supported_groups and key_share are set here,
    against a TLS 1.3 server flight (ServerHello, ChangeCipherSpec, one encrypted record);
    after a HelloRetryRequest the client closes:
    1. groups x25519; shares x25519 and secp256r1 (65 bytes): a share not listed.
    2. groups x25519, secp256r1; two x25519 shares.
    3. groups x25519, secp256r1; share x25519; a HelloRetryRequest asking for x25519.
    4. the same hello; a HelloRetryRequest asking for secp384r1, not listed.
    5. the same hello; a ServerHello sharing secp384r1 (97 bytes), not listed.
    6. the same hello; a ServerHello sharing secp256r1 (65 bytes), listed, not shared.
    7. groups X25519MLKEM768, x25519; shares X25519MLKEM768 of 1,184 bytes (the ML-KEM
       key without its X25519 part; 1,216 belong) and x25519; ServerHello x25519.
    8. the same groups, right shares (1,216 and 32); a ServerHello sharing X25519MLKEM768
       with 1,088 bytes (the ML-KEM ciphertext without X25519; 1,120 belong)."""
    hybrid = 0x11EC
    two = [X25519, SECP256R1]
    conns = []

    def sh(label, group, n):
        return tls13_server_hello(label, session_of(label), extensions=[
            ext_selected_version(0x0304),
            ext_key_share_server(group, fixed_bytes(label + " server share", n))])

    def hrr_flight(label, group):
        return tls_record(CT_HANDSHAKE, 0x0303, hello_retry_request(session_of(label), group)) \
            + CCS_RECORD

    label = "ks-1"
    ch = key_share_client_hello(label, [X25519], [(X25519, 32), (SECP256R1, 65)])
    conns.append((tls13_exchange(label, ch=ch), "client"))
    label = "ks-2"
    ch = key_share_client_hello(label, two, [(X25519, 32), (X25519, 32)])
    conns.append((tls13_exchange(label, ch=ch), "client"))
    for label, group in (("ks-3", X25519), ("ks-4", 0x0018)):
        ch = key_share_client_hello(label, two, [(X25519, 32)])
        conns.append(([(True, client_record(ch)), (False, hrr_flight(label, group))], "client"))
    for label, group, n in (("ks-5", 0x0018, 97), ("ks-6", SECP256R1, 65)):
        ch = key_share_client_hello(label, two, [(X25519, 32)])
        conns.append((tls13_exchange(label, ch=ch, sh=sh(label, group, n)), "client"))
    label = "ks-7"
    ch = key_share_client_hello(label, [hybrid, X25519], [(hybrid, 1184), (X25519, 32)])
    conns.append((tls13_exchange(label, ch=ch), "client"))
    label = "ks-8"
    ch = key_share_client_hello(label, [hybrid, X25519], [(hybrid, 1216), (X25519, 32)])
    conns.append((tls13_exchange(label, ch=ch, sh=sh(label, hybrid, 1088)), "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def scenario_hrr_retry(path):
    """Second ClientHellos that change what RFC 8446 4.1.2 forbids after a HelloRetryRequest.

    Each connection: OpenSSL's TLS 1.3 ClientHello sharing x25519, a HelloRetryRequest
    asking for secp256r1 (both with the middlebox-compatibility CCS), then
    1. a second ClientHello sharing secp256r1 whose first two cipher suites are swapped
       (0x1303, 0x1302): a change no HelloRetryRequest allows; the ServerHello.
    2. a second ClientHello sharing x25519 again, not the group asked for; the server
       aborts with illegal_parameter (47).
    3. a second ClientHello changed only as asked (the control); the ServerHello."""
    p256 = ext_key_share_client
    conns = []
    for label, suites, group, answer in (
            ("hrr-1", [0x1303, 0x1302] + OPENSSL_TLS13_SUITES[2:], SECP256R1, "sh"),
            ("hrr-2", None, X25519, "alert"),
            ("hrr-3", None, SECP256R1, "sh")):
        sid = session_of(label)
        n = 65 if group == SECP256R1 else 32
        ch2 = openssl_client_hello(label, openssl_client_extensions(label)[:-1] + [
            p256([(group, fixed_bytes(label + " second share", n))])], suites=suites)
        if answer == "sh":
            sh = tls13_server_hello(label, sid, extensions=[
                ext_selected_version(0x0304),
                ext_key_share_server(SECP256R1, fixed_bytes(label + " server share", 65))])
            reply = tls_record(CT_HANDSHAKE, 0x0303, sh) + tls_record(
                23, 0x0303, fixed_bytes(label + " encrypted flight", 96))
        else:
            reply = alert_record(47)
        conns.append(([(True, client_record(openssl_client_hello(label))),
                       (False, tls_record(CT_HANDSHAKE, 0x0303, hello_retry_request(sid))
                        + CCS_RECORD),
                       (True, CCS_RECORD + client_record(ch2, 0x0303)),
                       (False, reply)], "client"))
    with PcapWriter(path) as pcap:
        tcp_connections(pcap, conns)


def heartbeat_request(label):
    """A HeartbeatRequest (RFC 6520 4): type 1, a 16-byte payload and 16 bytes of padding, as
    sslscan sends one after its ClientHello (pcaps/scan-sslscan-tls12.pcap frame 78)."""
    return u8(1) + vec16(fixed_bytes(label + " heartbeat", 16)) + fixed_bytes(label + " pad", 16)


def scenario_alerts_after_hello(path):
    """Alerts before and after a ServerHello, over TCP and DTLS on one address and port.

    One server address and port, 192.0.2.20:443, over TCP and over UDP (DTLS), each
    connection from its own client address (192.0.2.100 ..., ports 49152 ...), one second
    apart:
    1. TCP: OpenSSL's -tls1_2 ClientHello; ServerHello and ServerHelloDone (TLS 1.2); the
       client sends a HeartbeatRequest record (content type 24), which the server, without
       the heartbeat extension, answers with a fatal unexpected_message (10): an alert after
       the ServerHello.
    2. TCP: the same, but the capture lost the ClientHello (the client's sequence number
       jumps by its length, the server acknowledges it): a connection that shows no
       ClientHello, whose server sends a ServerHello and then the alert.
    3. DTLS: OpenSSL's -dtls1_2 ClientHello (record 0xfeff, empty cookie); a
       HelloVerifyRequest (0xfeff, 20-byte cookie); the ClientHello again with the cookie;
       the server's plaintext fatal handshake_failure (40) in epoch 0: an alert before any
       ServerHello.
    4. DTLS: the ClientHello; ServerHello and ServerHelloDone (DTLS 1.2); the client's
       HeartbeatRequest in epoch 0; the server's plaintext fatal unexpected_message (10):
       an alert after the ServerHello."""
    with PcapWriter(path) as pcap:
        for i in range(2):
            label = "after-hello-%d" % (i + 1)
            ch = client_record(openssl_client_hello(label, tls13=False))
            conv = TcpConversation(pcap, (scenario_client(i), 49152 + i), (SERVER_IP, 443),
                                   t0=T0 + i)
            conv.open()
            if i == 0:
                conv.send(True, ch)
            else:
                conv.c.seq += len(ch)  # sent, but not in the capture
            conv.send(False, tls12_server_flight(tls12_server_hello(label)))
            conv.send(True, tls_record(24, 0x0303, heartbeat_request(label)))
            conv.send(False, alert_record(10))
            conv.close(from_client=False)
        cookie = fixed_bytes("after-hello-3 cookie", 20)
        label = "after-hello-3"
        ch = openssl_client_hello(label, tls13=False, legacy_version=0xFEFD, cookie=b"")
        ch2 = openssl_client_hello(label, tls13=False, legacy_version=0xFEFD, cookie=cookie)
        hvr = handshake(3, u16(0xFEFF) + vec8(cookie))
        udp_exchange(pcap, (scenario_client(2), 49154), (SERVER_IP, 443), [
            (True, dtls_record(CT_HANDSHAKE, 0xFEFF, 0, dtls_handshake(ch, 0))),
            (False, dtls_record(CT_HANDSHAKE, 0xFEFF, 0, dtls_handshake(hvr, 0))),
            (True, dtls_record(CT_HANDSHAKE, 0xFEFF, 1, dtls_handshake(ch2, 1))),
            (False, dtls_record(CT_ALERT, 0xFEFD, 1, u8(2) + u8(40)))], t0=T0 + 2)
        label = "after-hello-4"
        ch = openssl_client_hello(label, tls13=False, legacy_version=0xFEFD, cookie=b"")
        sh = tls12_server_hello(label, version=0xFEFD, extensions=[
            extension(EXT_RENEGOTIATION_INFO, b"\x00"),
            extension(EXT_EC_POINT_FORMATS, vec8(b"\x00\x01\x02")),
            extension(EXT_EXTENDED_MASTER_SECRET, b"")])
        flight = dtls_handshake(sh, 0) + dtls_handshake(handshake(14, b""), 1)
        udp_exchange(pcap, (scenario_client(3), 49155), (SERVER_IP, 443), [
            (True, dtls_record(CT_HANDSHAKE, 0xFEFF, 0, dtls_handshake(ch, 0))),
            (False, dtls_record(CT_HANDSHAKE, 0xFEFD, 0, flight)),
            (True, dtls_record(24, 0xFEFD, 1, heartbeat_request(label))),
            (False, dtls_record(CT_ALERT, 0xFEFD, 1, u8(2) + u8(10)))], t0=T0 + 3)


SCENARIOS = {
    "sslv2-client-hello": scenario_sslv2_client_hello,
    "synth-legacy-versions": scenario_legacy_versions,
    "synth-record-versions": scenario_record_versions,
    "synth-missing-extensions": scenario_missing_extensions,
    "synth-supported-versions-malformed": scenario_supported_versions_malformed,
    "synth-server-selects": scenario_server_selects,
    "synth-grease-client": scenario_grease_client,
    "synth-malformed": scenario_malformed,
    "synth-dtls13": scenario_dtls13,
    "synth-quic-tls12": scenario_quic_tls12,
    "synth-quic-handshake-close": scenario_quic_handshake_close,
    "synth-resumption-version": scenario_resumption_version,
    "synth-ignored-scsv-earlier": scenario_ignored_scsv_earlier,
    "synth-key-shares": scenario_key_shares,
    "synth-hrr-retry": scenario_hrr_retry,
    "sslv2-handshake": scenario_sslv2_handshake,
    "synth-alerts-after-hello": scenario_alerts_after_hello,
}

# The scenarios written as pcapng (a key log in the file).
PCAPNG = {scenario_quic_handshake_close}


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        for name, fn in SCENARIOS.items():
            print("%-28s %s" % (name, fn.__doc__.split("\n")[0]))
        return 0
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    outdir, names = argv[1], argv[2:] or list(SCENARIOS)
    for name in names:
        if name not in SCENARIOS:
            sys.stderr.write("unknown scenario %s\n" % name)
            return 2
        ext = "pcapng" if SCENARIOS[name] in PCAPNG else "pcap"
        SCENARIOS[name]("%s/%s.%s" % (outdir.rstrip("/"), name, ext))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
