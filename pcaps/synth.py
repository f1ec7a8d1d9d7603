#!/usr/bin/env python3
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
sslv2_client_hello, plus u8/u16/u24 and the vec8/vec16 length prefixes.
"""
import hashlib
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
                 compression=b"\x00"):
    """ClientHello handshake message; extensions=None leaves the block out entirely."""
    body = u16(legacy_version) + random + vec8(session_id)
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


SCENARIOS = {
    "sslv2-client-hello": scenario_sslv2_client_hello,
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
