# SPDX-License-Identifier: GPL-2.0-or-later
"""The pieces of pcaps/synth.py's synthetic captures: a classic libpcap writer
(Ethernet, IPv4, TCP or UDP, with correct IPv4/TCP/UDP checksums; a pcapng one that
carries a TLS key log, PcapngWriter), TCP and UDP
conversations, and TLS, DTLS and QUIC message builders. Standard library only,
except quic_initial (python3-cryptography, imported when it runs). Deterministic:
fixed addresses, timestamps and "random" bytes.

Reuse: build a scenario from the pieces below and register it in synth.py's SCENARIOS.
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
and quic_long_packet (QUIC v1 Initial and Handshake packets with real packet protection:
the only piece that needs more than the standard library, python3-cryptography, imported
only when a QUIC scenario runs).
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


class PcapngWriter(PcapWriter):
    """pcapng file (one section, one Ethernet interface, microsecond timestamps) whose
    Decryption Secrets Block holds a TLS key log (keylog: its text), so that Wireshark
    decrypts with it without a key file of its own (pcapng 4.7, secrets type TLSK)."""

    def __init__(self, path, keylog, linktype=LINKTYPE_ETHERNET, snaplen=65535):
        self._f = open(path, "wb")
        self.snaplen = snaplen
        self._block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
        self._block(1, struct.pack("<HHI", linktype, 0, snaplen))
        secrets = keylog.encode()
        self._block(0x0A, struct.pack("<II", 0x544C534B, len(secrets)) + secrets)

    def _block(self, block_type, body):
        body += b"\x00" * (-len(body) % 4)
        self._f.write(struct.pack("<II", block_type, len(body) + 12) + body
                      + struct.pack("<I", len(body) + 12))

    def packet(self, frame, ts):
        usec = int(round(ts * 1e6))
        cap = frame[: self.snaplen]
        self._block(6, struct.pack("<IIIII", 0, usec >> 32, usec & 0xFFFFFFFF, len(cap),
                                   len(frame)) + cap)


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
ALERT_INTERNAL_ERROR = 80
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


def quic_connection_close(tls_alert, frame_type=0x06):
    """CONNECTION_CLOSE (0x1c) with CRYPTO_ERROR 0x100 + alert, raised by a frame of
    frame_type (a CRYPTO frame; 0: none in particular)."""
    return (u8(0x1C) + quic_varint(0x100 + tls_alert) + quic_varint(frame_type)
            + quic_varint(0))


def quic_transport_parameters(scid):
    """quic_transport_parameters (57): max_idle_timeout 30000, initial_max_data 1 MiB,
    initial_max_stream_data_bidi_local 256 KiB, initial_max_streams_bidi 100,
    initial_source_connection_id."""
    params = [(0x01, quic_varint(30000)), (0x04, quic_varint(1048576)),
              (0x05, quic_varint(262144)), (0x08, quic_varint(100)), (0x0F, scid)]
    return extension(EXT_QUIC_TRANSPORT_PARAMETERS,
                     b"".join(quic_varint(i) + quic_varint(len(v)) + v for i, v in params))


def quic_initial_secret(original_dcid, from_server):
    """The Initial secret of one side (RFC 9001 5.2): from the client's original
    Destination Connection ID."""
    initial = hmac.new(QUIC_V1_SALT, original_dcid, hashlib.sha256).digest()  # HKDF-Extract
    return hkdf_expand_label(initial, "server in" if from_server else "client in", 32)


def quic_long_packet(secret, packet_type, dcid, scid, pn, frames, min_datagram=0):
    """One QUIC v1 long-header packet (RFC 9000 17.2; packet_type 0 Initial, 2
    Handshake) protected with the keys of secret (RFC 9001 5: AES-128-GCM payload,
    AES-ECB header protection, as for TLS_AES_128_GCM_SHA256); PADDING frames fill it up
    to min_datagram bytes (RFC 9000 14.1). AES is not in the standard library: this
    needs python3-cryptography."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    key = hkdf_expand_label(secret, "quic key", 16)
    iv = hkdf_expand_label(secret, "quic iv", 12)
    hp = hkdf_expand_label(secret, "quic hp", 16)
    pn_len = 2
    head = u8(0xC0 | packet_type << 4 | (pn_len - 1)) + struct.pack("!I", 1)
    head += vec8(dcid) + vec8(scid)
    if packet_type == 0:
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


def quic_initial(original_dcid, dcid, scid, pn, frames, from_server, min_datagram=1200):
    """One QUIC v1 Initial packet with Initial packet protection (RFC 9001 5): keys from
    the client's original Destination Connection ID; PADDING up to min_datagram bytes."""
    return quic_long_packet(quic_initial_secret(original_dcid, from_server), 0, dcid, scid, pn,
                            frames, min_datagram)
