#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Synthetic capture writer for the scenarios no real TLS stack produces on demand.

Standard library only. Writes classic libpcap files (Ethernet, IPv4, TCP or UDP,
with correct IPv4/TCP/UDP checksums). The output is deterministic: fixed
addresses, fixed timestamps, fixed "random" bytes, so re-running a scenario
gives a byte-identical file.

Usage:
  synth.py OUTDIR [SCENARIO ...]     write OUTDIR/<scenario>.pcap (all scenarios if none given)
  synth.py --list                    list the scenarios

Reuse: build a scenario from the pieces below and register it in SCENARIOS.
  with PcapWriter(path) as pcap:
      conv = TcpConversation(pcap, CLIENT, (SERVER_IP, 443))
      conv.open()
      conv.send(True, client_bytes, segment=None)   # True: client -> server
      conv.send(False, server_bytes)
      conv.close()                                  # or conv.reset(from_client=False)
  udp_exchange(pcap, CLIENT, (SERVER_IP, 4433), [(True, datagram), (False, datagram)])
TLS builders: tls_record, handshake, extension, client_hello, server_hello,
sslv2_client_hello, plus u8/u16/u24 and the vec8/vec16 length prefixes; DTLS:
dtls_record, dtls_handshake; OpenSSL 3.0's hellos piece by piece (openssl_client_hello,
openssl_client_extensions, tls13_server_hello, tls12_server_hello, hello_retry_request);
tcp_connections / udp_conversations for files of independent connections; quic_initial
(QUIC v1 Initial packets with real packet protection: the only piece that needs more than
the standard library, python3-cryptography, imported only when a QUIC scenario runs).
"""
import hashlib
import hmac
import struct
import sys

LINKTYPE_ETHERNET = 1
T0 = 1704067200.0  # 2024-01-01T00:00:00Z; every synthetic capture starts here

CLIENT_MAC = bytes.fromhex("020000000001")
SERVER_MAC = bytes.fromhex("020000000002")
CLIENT_IP = "192.0.2.10"  # RFC 5737 TEST-NET-1
SERVER_IP = "192.0.2.20"
CLIENT = (CLIENT_IP, 49152)


# ---------------------------------------------------------------- byte helpers

def u8(v):
    return struct.pack("!B", v)


def u16(v):
    return struct.pack("!H", v)


def u24(v):
    return struct.pack("!I", v)[1:]


def vec8(body):
    return u8(len(body)) + body


def vec16(body):
    return u16(len(body)) + body


def fixed_bytes(label, n):
    """Deterministic stand-in for random bytes: SHA-256 of label, repeated as needed."""
    out = b""
    counter = 0
    while len(out) < n:
        out += hashlib.sha256(label.encode() + u16(counter)).digest()
        counter += 1
    return out[:n]


# ---------------------------------------------------------------- libpcap

class PcapWriter:
    """Classic libpcap file, microsecond timestamps."""

    def __init__(self, path, linktype=LINKTYPE_ETHERNET, snaplen=65535):
        self._f = open(path, "wb")
        self._f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype))
        self.snaplen = snaplen

    def packet(self, frame, ts):
        sec = int(ts)
        usec = int(round((ts - sec) * 1e6))
        if usec >= 1000000:
            sec, usec = sec + 1, usec - 1000000
        cap = frame[: self.snaplen]
        self._f.write(struct.pack("<IIII", sec, usec, len(cap), len(frame)))
        self._f.write(cap)

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------- Ethernet / IPv4 / TCP / UDP

def ip_bytes(addr):
    return bytes(int(x) for x in addr.split("."))


def inet_checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ethernet(src_mac, dst_mac, payload, ethertype=0x0800):
    return dst_mac + src_mac + u16(ethertype) + payload


def ipv4(src, dst, proto, payload, ident, ttl=64):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000,
                      ttl, proto, 0, ip_bytes(src), ip_bytes(dst))
    hdr = hdr[:10] + u16(inet_checksum(hdr)) + hdr[12:]
    return hdr + payload


def _pseudo_header(src, dst, proto, length):
    return ip_bytes(src) + ip_bytes(dst) + struct.pack("!BBH", 0, proto, length)


TCP_FIN, TCP_SYN, TCP_RST, TCP_PSH, TCP_ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def tcp_segment(src, dst, sport, dport, seq, ack, flags, payload, window=65535):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      5 << 4, flags, window, 0, 0)
    csum = inet_checksum(_pseudo_header(src, dst, 6, len(hdr) + len(payload)) + hdr + payload)
    return hdr[:16] + u16(csum) + hdr[18:] + payload


def udp_datagram_bytes(src, dst, sport, dport, payload):
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    csum = inet_checksum(_pseudo_header(src, dst, 17, length) + hdr + payload) or 0xFFFF
    return hdr[:6] + u16(csum) + payload


class _Endpoint:
    def __init__(self, addr, mac, isn):
        self.ip, self.port = addr
        self.mac = mac
        self.seq = isn


class TcpConversation:
    """One TCP connection; every data segment is acknowledged by the peer."""

    def __init__(self, pcap, client, server, t0=T0, step=0.0005,
                 client_mac=CLIENT_MAC, server_mac=SERVER_MAC, isn=(0x1000, 0x8000)):
        self.pcap = pcap
        self.t = t0
        self.step = step
        self.c = _Endpoint(client, client_mac, isn[0])
        self.s = _Endpoint(server, server_mac, isn[1])
        self.ident = 1

    def _emit(self, from_client, flags, payload=b""):
        a, b = (self.c, self.s) if from_client else (self.s, self.c)
        seg = tcp_segment(a.ip, b.ip, a.port, b.port, a.seq, b.seq if flags & TCP_ACK else 0,
                          flags, payload)
        self.pcap.packet(ethernet(a.mac, b.mac, ipv4(a.ip, b.ip, 6, seg, self.ident)), self.t)
        self.ident += 1
        self.t += self.step
        a.seq += len(payload) + (1 if flags & (TCP_SYN | TCP_FIN) else 0)

    def open(self):
        self._emit(True, TCP_SYN)
        self._emit(False, TCP_SYN | TCP_ACK)
        self._emit(True, TCP_ACK)

    def send(self, from_client, payload, segment=None, ack=True):
        """Send payload in segments of at most `segment` bytes (one segment if None)."""
        size = segment or len(payload)
        for off in range(0, len(payload), size):
            self._emit(from_client, TCP_PSH | TCP_ACK, payload[off:off + size])
        if ack:
            self._emit(not from_client, TCP_ACK)

    def close(self, from_client=True):
        self._emit(from_client, TCP_FIN | TCP_ACK)
        self._emit(not from_client, TCP_FIN | TCP_ACK)
        self._emit(from_client, TCP_ACK)

    def reset(self, from_client=False):
        self._emit(from_client, TCP_RST | TCP_ACK)


def tcp_conversation(pcap, client, server, exchanges, close="fin", t0=T0):
    """exchanges: list of (from_client: bool, payload: bytes[, segment size])."""
    conv = TcpConversation(pcap, client, server, t0=t0)
    conv.open()
    for item in exchanges:
        conv.send(item[0], item[1], item[2] if len(item) > 2 else None)
    if close == "fin":
        conv.close()
    elif close == "rst":
        conv.reset(from_client=False)
    return conv


def udp_exchange(pcap, client, server, datagrams, t0=T0, step=0.0005,
                 client_mac=CLIENT_MAC, server_mac=SERVER_MAC):
    """datagrams: list of (from_client: bool, payload: bytes)."""
    t = t0
    for ident, (from_client, payload) in enumerate(datagrams, 1):
        (a, amac), (b, bmac) = ((client, client_mac), (server, server_mac))
        if not from_client:
            (a, amac), (b, bmac) = (b, bmac), (a, amac)
        udp = udp_datagram_bytes(a[0], b[0], a[1], b[1], payload)
        pcap.packet(ethernet(amac, bmac, ipv4(a[0], b[0], 17, udp, ident)), t)
        t += step
    return t


# ---------------------------------------------------------------- TLS builders

CT_HANDSHAKE, CT_ALERT = 22, 21


def tls_record(content_type, version, body):
    return u8(content_type) + u16(version) + vec16(body)


def handshake(msg_type, body):
    return u8(msg_type) + u24(len(body)) + body


def extension(ext_type, data):
    return u16(ext_type) + vec16(data)


def client_hello(legacy_version, random, session_id, cipher_suites, extensions,
                 compression=b"\x00", cookie=None):
    """ClientHello handshake message; extensions=None leaves the block out entirely;
    cookie (bytes, may be empty) makes it a DTLS ClientHello."""
    body = u16(legacy_version) + random + vec8(session_id)
    if cookie is not None:
        body += vec8(cookie)
    body += vec16(b"".join(u16(c) for c in cipher_suites)) + vec8(compression)
    if extensions is not None:
        body += vec16(b"".join(extensions))
    return handshake(1, body)


def server_hello(legacy_version, random, session_id, cipher_suite, extensions,
                 compression=0):
    body = u16(legacy_version) + random + vec8(session_id) + u16(cipher_suite) + u8(compression)
    if extensions is not None:
        body += vec16(b"".join(extensions))
    return handshake(2, body)


def sslv2_client_hello(version, cipher_specs, challenge, session_id=b""):
    """SSL 2.0-compatible CLIENT-HELLO (RFC 5246 Appendix E.2, RFC 4346 E.1),
    with its 2-byte record header (high bit set, 15-bit length)."""
    body = u8(1) + u16(version) + u16(3 * len(cipher_specs)) + u16(len(session_id))
    body += u16(len(challenge)) + b"".join(u24(c) for c in cipher_specs)
    body += session_id + challenge
    assert len(body) < 0x8000
    return u16(0x8000 | len(body)) + body


def sslv2_record(body):
    """An SSL 2.0 record with the 2-byte header (high bit set, 15-bit length, no padding)."""
    assert len(body) < 0x8000
    return u16(0x8000 | len(body)) + body


def sslv2_server_hello(certificate, cipher_specs, connection_id, version=0x0002,
                       session_id_hit=0, certificate_type=1):
    """SSL 2.0 SERVER-HELLO (draft-hickman-netscape-ssl-00): type 4, SESSION-ID-HIT,
    CERTIFICATE-TYPE (1: X.509), SERVER-VERSION, the lengths of the certificate, the cipher
    specs and the connection ID, then the three."""
    body = (u8(4) + u8(session_id_hit) + u8(certificate_type) + u16(version)
            + u16(len(certificate)) + u16(3 * len(cipher_specs)) + u16(len(connection_id))
            + certificate + b"".join(u24(c) for c in cipher_specs) + connection_id)
    return sslv2_record(body)


def sslv2_client_master_key(cipher_kind, clear_key, encrypted_key, key_arg=b""):
    """SSL 2.0 CLIENT-MASTER-KEY: type 2, CIPHER-KIND (3 bytes), the lengths of the clear
    key, the encrypted key and the key argument, then the three."""
    body = (u8(2) + u24(cipher_kind) + u16(len(clear_key)) + u16(len(encrypted_key))
            + u16(len(key_arg)) + clear_key + encrypted_key + key_arg)
    return sslv2_record(body)


def dtls_record(content_type, version, seq, body, epoch=0):
    """DTLSPlaintext (RFC 6347 4.1): type, version, epoch, 48-bit sequence number, length."""
    seq48 = struct.pack("!Q", seq)[2:]
    return u8(content_type) + u16(version) + u16(epoch) + seq48 + vec16(body)


def dtls_handshake(message, message_seq):
    """A TLS handshake message (type, length, body) as one unfragmented DTLS message:
    type, length, message_seq, fragment_offset 0, fragment_length = length, body."""
    body = message[4:]
    return u8(message[0]) + u24(len(body)) + u16(message_seq) + u24(0) + u24(len(body)) + body


def alert_record(description, version=0x0303, level=2):
    """A plaintext alert record (level 2: fatal)."""
    return tls_record(CT_ALERT, version, u8(level) + u8(description))


# Alert descriptions (RFC 8446 6)
ALERT_ILLEGAL_PARAMETER, ALERT_DECODE_ERROR, ALERT_PROTOCOL_VERSION = 47, 50, 70
ALERT_MISSING_EXTENSION, ALERT_UNSUPPORTED_EXTENSION = 109, 110


# ---------------------------------------------------------------- realistic hello pieces

# OpenSSL 3.0.19 s_client, byte for byte as in pcaps/tls13-openssl.pcap (frame 4) and,
# with -tls1_2, pcaps/tls12-client-tls13-server.pcap (frame 4); its s_server's answers as
# in pcaps/tls13-openssl.pcap (frame 6), tls13-hrr.pcap (frame 6), tls12-only-server.pcap
# (frame 6). Randoms, session IDs and keys are fixed_bytes() stand-ins.
OPENSSL_TLS12_SUITES = [
    0xC02C, 0xC030, 0x009F, 0xCCA9, 0xCCA8, 0xCCAA, 0xC02B, 0xC02F, 0x009E, 0xC024, 0xC028,
    0x006B, 0xC023, 0xC027, 0x0067, 0xC00A, 0xC014, 0x0039, 0xC009, 0xC013, 0x0033, 0x009D,
    0x009C, 0x003D, 0x003C, 0x0035, 0x002F, 0x00FF]
OPENSSL_TLS13_SUITES = [0x1302, 0x1303, 0x1301] + OPENSSL_TLS12_SUITES
OPENSSL_GROUPS = [0x001D, 0x0017, 0x001E, 0x0019, 0x0018,
                  0x0100, 0x0101, 0x0102, 0x0103, 0x0104]
OPENSSL_TLS12_GROUPS = OPENSSL_GROUPS[:5]
OPENSSL_SIGALGS = [0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0809, 0x080A, 0x080B, 0x0804,
                   0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0303, 0x0301, 0x0302, 0x0402,
                   0x0502, 0x0602]
TLS13_OFFER = [0x0304, 0x0303, 0x0302, 0x0301]
DTLS13_OFFER = [0xFEFC, 0xFEFD]
X25519, SECP256R1 = 0x001D, 0x0017
HRR_RANDOM = bytes.fromhex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")
DOWNGRD_TLS12 = b"DOWNGRD\x01"
DOWNGRD_TLS11 = b"DOWNGRD\x00"
JDK11_DOWNGRADE = bytes.fromhex("edbfb4a8c24710ff")  # BoringSSL's kJDK11DowngradeRandom

(EXT_SERVER_NAME, EXT_SUPPORTED_GROUPS, EXT_EC_POINT_FORMATS, EXT_SIGNATURE_ALGORITHMS,
 EXT_ALPN, EXT_PADDING, EXT_EXTENDED_MASTER_SECRET, EXT_PRE_SHARED_KEY,
 EXT_SUPPORTED_VERSIONS, EXT_PSK_KEY_EXCHANGE_MODES, EXT_KEY_SHARE,
 EXT_QUIC_TRANSPORT_PARAMETERS, EXT_RENEGOTIATION_INFO) = (
    0, 10, 11, 13, 16, 21, 23, 41, 43, 45, 51, 57, 0xFF01)


def ext_type(ext):
    return struct.unpack("!H", ext[:2])[0]


def without(extensions, *types):
    """The extensions list without the given types."""
    return [e for e in extensions if ext_type(e) not in types]


def u16_list(values):
    return b"".join(u16(v) for v in values)


def ext_server_name(host):
    return extension(EXT_SERVER_NAME, vec16(u8(0) + vec16(host.encode())))


def ext_supported_versions(versions):
    """ClientHello form: a 1-byte length, then the versions."""
    return extension(EXT_SUPPORTED_VERSIONS, vec8(u16_list(versions)))


def ext_selected_version(version):
    """ServerHello / HelloRetryRequest form: one version."""
    return extension(EXT_SUPPORTED_VERSIONS, u16(version))


def ext_key_share_client(shares):
    return extension(EXT_KEY_SHARE, vec16(b"".join(u16(g) + vec16(k) for g, k in shares)))


def ext_key_share_server(group, key):
    return extension(EXT_KEY_SHARE, u16(group) + vec16(key))


def ext_alpn(protocols):
    return extension(EXT_ALPN, vec16(b"".join(vec8(p) for p in protocols)))


def ext_pre_shared_key(label):
    """One PSK identity (a 32-byte ticket stand-in, obfuscated_ticket_age) and its
    32-byte binder (RFC 8446 4.2.11)."""
    identity = vec16(fixed_bytes(label + " ticket", 32)) + fixed_bytes(label + " age", 4)
    return extension(EXT_PRE_SHARED_KEY,
                     vec16(identity) + vec16(vec8(fixed_bytes(label + " binder", 32))))


def openssl_client_extensions(label, versions=TLS13_OFFER):
    """OpenSSL 3.0 s_client's extensions, in its order: 0, 11, 10, 35, 22, 23, 13, 43, 45,
    51 (one X25519 share). versions=None gives its -tls1_2 set: 0, 11, 10 (five groups),
    35, 22, 23, 13."""
    exts = [ext_server_name("localhost"),
            extension(EXT_EC_POINT_FORMATS, vec8(b"\x00\x01\x02")),
            extension(EXT_SUPPORTED_GROUPS,
                      vec16(u16_list(OPENSSL_GROUPS if versions else OPENSSL_TLS12_GROUPS))),
            extension(35, b""),  # session_ticket
            extension(22, b""),  # encrypt_then_mac
            extension(EXT_EXTENDED_MASTER_SECRET, b""),
            extension(EXT_SIGNATURE_ALGORITHMS, vec16(u16_list(OPENSSL_SIGALGS)))]
    if versions:
        exts += [ext_supported_versions(versions),
                 extension(EXT_PSK_KEY_EXCHANGE_MODES, vec8(b"\x01")),  # psk_dhe_ke
                 ext_key_share_client([(X25519, fixed_bytes(label + " x25519", 32))])]
    return exts


def openssl_client_hello(label, extensions=None, legacy_version=0x0303, tls13=True,
                         suites=None, cookie=None):
    """OpenSSL's ClientHello: TLS 1.3 (31 suites, 32-byte session ID for middlebox
    compatibility) or, tls13=False, its -tls1_2 hello (28 suites, empty session ID).
    cookie (bytes) makes it a DTLS ClientHello body."""
    if extensions is None:
        extensions = openssl_client_extensions(label, TLS13_OFFER if tls13 else None)
    if suites is None:
        suites = OPENSSL_TLS13_SUITES if tls13 else OPENSSL_TLS12_SUITES
    session_id = fixed_bytes(label + " session", 32) if tls13 and cookie is None else b""
    return client_hello(legacy_version, fixed_bytes(label + " client random", 32), session_id,
                        suites, extensions, cookie=cookie)


def tls13_server_hello(label, session_id, version=0x0304, legacy_version=0x0303,
                       suite=0x1302, random=None, extensions=None, group=X25519):
    """OpenSSL s_server's TLS 1.3 ServerHello: supported_versions, then key_share."""
    if extensions is None:
        extensions = [ext_selected_version(version),
                      ext_key_share_server(group, fixed_bytes(label + " server share", 32))]
    if random is None:
        random = fixed_bytes(label + " server random", 32)
    return server_hello(legacy_version, random, session_id, suite, extensions)


def hello_retry_request(session_id, group=SECP256R1, extensions=None):
    """OpenSSL s_server's HelloRetryRequest: supported_versions 0x0304, key_share group."""
    if extensions is None:
        extensions = [ext_selected_version(0x0304), extension(EXT_KEY_SHARE, u16(group))]
    return server_hello(0x0303, HRR_RANDOM, session_id, 0x1302, extensions)


def tls12_server_hello(label, version=0x0303, suite=0xC02C, random_tail=None, session_id=b"",
                       extensions=None):
    """OpenSSL s_server -tls1_2's ServerHello: no supported_versions, extensions 65281, 11,
    35, 23. random_tail replaces the last bytes of the random (a downgrade sentinel)."""
    random = fixed_bytes(label + " server random", 32)
    if random_tail:
        random = random[:32 - len(random_tail)] + random_tail
    if extensions is None:
        extensions = [extension(EXT_RENEGOTIATION_INFO, b"\x00"),
                      extension(EXT_EC_POINT_FORMATS, vec8(b"\x00\x01\x02")),
                      extension(35, b""), extension(EXT_EXTENDED_MASTER_SECRET, b"")]
    return server_hello(version, random, session_id, suite, extensions)


CCS_RECORD = tls_record(20, 0x0303, b"\x01")


def tls13_server_flight(label, sh, record_version=0x0303):
    """ServerHello, the middlebox-compatibility ChangeCipherSpec, then one encrypted record
    standing in for EncryptedExtensions..Finished (opaque bytes)."""
    return (tls_record(CT_HANDSHAKE, record_version, sh) + CCS_RECORD
            + tls_record(23, 0x0303, fixed_bytes(label + " encrypted flight", 96)))


def tls12_server_flight(sh, record_version=0x0303):
    """ServerHello and ServerHelloDone in one record."""
    return tls_record(CT_HANDSHAKE, record_version, sh + handshake(14, b""))


def scenario_client(i):
    """The client of the i-th independent connection of a scenario: its own address, so
    that separate cases never look like one client's retries (192.0.2.100, .101, ...)."""
    return f"192.0.2.{100 + i}"


def tcp_connections(pcap, connections, server_port=443):
    """One TCP connection per entry, each from its own client address (scenario_client),
    client ports 49152, 49153, ..., one second apart.
    An entry is (exchanges, closer): exchanges a list of (from_client, payload), each
    acknowledged by the peer; closer "client" or "server" sends the first FIN."""
    for i, (exchanges, closer) in enumerate(connections):
        conv = TcpConversation(pcap, (scenario_client(i), 49152 + i), (SERVER_IP, server_port),
                               t0=T0 + i)
        conv.open()
        for from_client, payload in exchanges:
            conv.send(from_client, payload)
        conv.close(from_client=closer == "client")


def udp_conversations(pcap, conversations, server_port):
    """One UDP conversation per list of (from_client, payload), each from its own client
    address (scenario_client), client ports 49152, ..., one second apart."""
    for i, datagrams in enumerate(conversations):
        udp_exchange(pcap, (scenario_client(i), 49152 + i), (SERVER_IP, server_port), datagrams,
                     t0=T0 + i)


# ---------------------------------------------------------------- QUIC v1 Initial packets

QUIC_V1_SALT = bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a")  # RFC 9001 5.2


def hkdf_expand_label(secret, label, length):
    """TLS 1.3 HKDF-Expand-Label with SHA-256 and an empty context (RFC 8446 7.1)."""
    info = u16(length) + vec8(b"tls13 " + label.encode()) + vec8(b"")
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(secret, block + info + u8(counter), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def quic_varint(v):
    """RFC 9000 16 variable-length integer, shortest form."""
    if v < 0x40:
        return u8(v)
    if v < 0x4000:
        return u16(0x4000 | v)
    return struct.pack("!I", 0x80000000 | v)


def quic_crypto_frame(data, offset=0):
    return u8(0x06) + quic_varint(offset) + quic_varint(len(data)) + data


def quic_ack_frame(largest):
    """ACK of packets 0..largest: delay 0, no extra ranges."""
    return (u8(0x02) + quic_varint(largest) + quic_varint(0) + quic_varint(0)
            + quic_varint(largest))


def quic_connection_close(tls_alert):
    """CONNECTION_CLOSE (0x1c) with CRYPTO_ERROR 0x100 + alert, raised by a CRYPTO frame."""
    return u8(0x1C) + quic_varint(0x100 + tls_alert) + quic_varint(0x06) + quic_varint(0)


def quic_transport_parameters(scid):
    """quic_transport_parameters (57): max_idle_timeout 30000, initial_max_data 1 MiB,
    initial_max_stream_data_bidi_local 256 KiB, initial_max_streams_bidi 100,
    initial_source_connection_id."""
    params = [(0x01, quic_varint(30000)), (0x04, quic_varint(1048576)),
              (0x05, quic_varint(262144)), (0x08, quic_varint(100)), (0x0F, scid)]
    return extension(EXT_QUIC_TRANSPORT_PARAMETERS,
                     b"".join(quic_varint(i) + quic_varint(len(v)) + v for i, v in params))


def quic_initial(original_dcid, dcid, scid, pn, frames, from_server, min_datagram=1200):
    """One QUIC v1 Initial packet with Initial packet protection (RFC 9001 5): keys from
    the client's original Destination Connection ID, AES-128-GCM payload, AES-ECB header
    protection; PADDING frames fill the datagram up to min_datagram bytes (RFC 9000 14.1).
    AES is not in the standard library: this needs python3-cryptography."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    initial = hmac.new(QUIC_V1_SALT, original_dcid, hashlib.sha256).digest()  # HKDF-Extract
    secret = hkdf_expand_label(initial, "server in" if from_server else "client in", 32)
    key = hkdf_expand_label(secret, "quic key", 16)
    iv = hkdf_expand_label(secret, "quic iv", 12)
    hp = hkdf_expand_label(secret, "quic hp", 16)
    pn_len = 2
    head = u8(0xC0 | (pn_len - 1)) + struct.pack("!I", 1) + vec8(dcid) + vec8(scid)
    head += quic_varint(0)  # no token
    fixed = len(head) + 2 + pn_len + 16  # 2-byte Length field, packet number, AEAD tag
    payload = frames + b"\x00" * max(0, min_datagram - fixed - len(frames))
    header = head + u16(0x4000 | (pn_len + len(payload) + 16)) + pn.to_bytes(pn_len, "big")
    nonce = bytes(a ^ b for a, b in zip(iv, pn.to_bytes(12, "big")))
    sealed = AESGCM(key).encrypt(nonce, payload, header)
    sample = sealed[4 - pn_len:4 - pn_len + 16]
    mask = Cipher(algorithms.AES(hp), modes.ECB()).encryptor().update(sample)
    pn_at = len(header) - pn_len
    protected = u8(header[0] ^ (mask[0] & 0x0F)) + header[1:pn_at]
    protected += bytes(a ^ b for a, b in zip(header[pn_at:], mask[1:1 + pn_len]))
    return protected + sealed


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
    """supported_versions extensions that break RFC 8446 4.2.1's encoding.

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


def scenario_resumption_version(path):
    """A TLS 1.2 session resumed at TLS 1.1 (resumption_version_change).

    One client (192.0.2.10), two connections to 192.0.2.20:443, two seconds apart:
    1. OpenSSL's -tls1_2 ClientHello, empty session ID; the TLS 1.2 ServerHello creates
       session ID S (32 bytes); ServerHelloDone follows.
    2. A TLS 1.1 ClientHello (legacy 0x0302, the -tls1_2 extensions and suites) offering S;
       the ServerHello echoes S at TLS 1.1 (an abbreviated handshake: ChangeCipherSpec and
       an encrypted Finished follow). OpenSSL will neither offer a session at another
       version nor resume one (pcaps/README.md), so this one is synthetic."""
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
    "synth-resumption-version": scenario_resumption_version,
    "synth-ignored-scsv-earlier": scenario_ignored_scsv_earlier,
    "synth-key-shares": scenario_key_shares,
    "sslv2-handshake": scenario_sslv2_handshake,
}


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
        SCENARIOS[name]("%s/%s.pcap" % (outdir.rstrip("/"), name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
