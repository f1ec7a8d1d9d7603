#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Large benchmark captures: N TLS, DTLS and QUIC connections replayed from
real handshakes, re-addressed.

Every connection is the transcript of a real handshake from the project's
captures (pcaps/*.pcap) or the public reference captures (pcaps/public/),
replayed with a fresh client address and port through pcaps/synth.py's TCP
and UDP writers: the same TLS/DTLS/QUIC bytes in the same segments, new
IPv4/TCP/UDP headers (correct checksums), one ACK after each burst. A few
hellos are rewritten where no real stack here sends them: GREASE inserted
into curl's ClientHello the way Chrome does it, and the fallback dances
(a TLS 1.3 attempt that the server resets or drops, then a retry at a lower
version with TLS_FALLBACK_SCSV). QUIC connections get their own connection
IDs, their Initial packets decrypted and encrypted again under the new
client DCID (see QuicReplayer; needs python3-cryptography).

Streaming (constant memory) and deterministic: the same --seed and -n give a
byte-identical file. Fast: synth.py builds each template's packets once;
every connection copies them and patches addresses, client port and
checksums (about 3 minutes of CPU and 3.7 GB for 1M connections).

Usage:
  python3 -m bench.gen -n 100000 -o out.pcap [--seed 1]   write a capture of N connections
  python3 -m bench.gen --mix                               print the mix of connection kinds
"""
import argparse
import os
import random
import struct
import sys

from pcaps import synth  # pcaps/synth.py: the libpcap writer, TCP/UDP, TLS builders

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

PCAPS = os.path.join(REPO, "pcaps")
PUBLIC = os.path.join(REPO, "pcaps", "public")

GREASE = [0x0A0A + 0x1010 * i for i in range(16)]


# ---------------------------------------------------------------- reading the source captures

def read_pcap(path):
    """Yield (linktype, frame bytes) of a classic libpcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        endian = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        endian = ">"
    else:
        raise ValueError(f"{path}: not a classic libpcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        yield linktype, data[off:off + caplen]
        off += caplen


def ipv4_of(linktype, frame):
    """The IPv4 packet in a frame, or None (IPv6, ARP, ...)."""
    if linktype == 1:  # Ethernet
        if len(frame) < 14 or frame[12:14] != b"\x08\x00":
            return None
        return frame[14:]
    if linktype == 9:  # PPP: optional ff 03, then a 2-byte protocol
        if frame[:2] == b"\xff\x03":
            frame = frame[2:]
        return frame[2:] if frame[:2] == b"\x00\x21" else None
    raise ValueError(f"link type {linktype} not handled")


def packets(path):
    """Yield (proto, src, sport, dst, dport, flags, seq, payload) for TCP/UDP over IPv4."""
    for linktype, frame in read_pcap(path):
        ip = ipv4_of(linktype, frame)
        if not ip or ip[0] >> 4 != 4:
            continue
        ihl = (ip[0] & 15) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        proto, src, dst = ip[9], ip[12:16], ip[16:20]
        l4 = ip[ihl:total]
        if proto == 6:
            sport, dport, seq = struct.unpack("!HHI", l4[:8])
            doff = (l4[12] >> 4) * 4
            yield "tcp", src, sport, dst, dport, l4[13], seq, l4[doff:]
        elif proto == 17:
            sport, dport = struct.unpack("!HH", l4[:4])
            yield "udp", src, sport, dst, dport, 0, 0, l4[8:]


def tcp_transcript(path, conn=0):
    """The data segments of the conn-th TCP connection (by SYN), in capture
    order without retransmissions: ([(from_client, payload)], close), where
    close is 'fin' or 'rst'."""
    conns = []
    state = {}
    for proto, src, sport, dst, dport, flags, seq, payload in packets(path):
        if proto != "tcp":
            continue
        key = frozenset([(src, sport), (dst, dport)])
        if flags & synth.TCP_SYN and not flags & synth.TCP_ACK and key not in state:
            state[key] = {"client": (src, sport), "next": {}, "segs": [], "close": "fin"}
            conns.append(key)
        st = state.get(key)
        if st is None:
            continue
        from_client = (src, sport) == st["client"]
        nxt = st["next"]
        if flags & synth.TCP_SYN:
            nxt[from_client] = seq + 1
            continue
        if flags & synth.TCP_RST:
            st["close"] = "rst"
        if payload and seq == nxt.get(from_client):
            st["segs"].append((from_client, bytes(payload)))
            nxt[from_client] = seq + len(payload)
    return state[conns[conn]]["segs"], state[conns[conn]]["close"]


def udp_transcript(path, server_port):
    """The datagrams to and from server_port: [(from_client, payload)]."""
    out = []
    for proto, src, sport, dst, dport, _, _, payload in packets(path):
        if proto == "udp" and server_port in (sport, dport):
            out.append((dport == server_port, bytes(payload)))
    return out


# ---------------------------------------------------------------- rewriting a ClientHello

def parse_client_hello(msg):
    """A TLS ClientHello handshake message -> its fields (for rebuilding with synth)."""
    assert msg[0] == 1 and int.from_bytes(msg[1:4], "big") == len(msg) - 4
    b = msg[4:]
    legacy = int.from_bytes(b[0:2], "big")
    random_ = b[2:34]
    sid_len = b[34]
    sid = b[35:35 + sid_len]
    p = 35 + sid_len
    cs_len = int.from_bytes(b[p:p + 2], "big")
    suites = [int.from_bytes(b[p + 2 + i:p + 4 + i], "big") for i in range(0, cs_len, 2)]
    p += 2 + cs_len
    comp = b[p + 1:p + 1 + b[p]]
    p += 1 + b[p]
    exts = None
    if p < len(b):
        exts = []
        end = p + 2 + int.from_bytes(b[p:p + 2], "big")
        p += 2
        while p < end:
            t, n = struct.unpack("!HH", b[p:p + 4])
            exts.append((t, b[p + 4:p + 4 + n]))
            p += 4 + n
    return legacy, random_, sid, suites, comp, exts


def build_client_hello(legacy, random_, sid, suites, comp, exts):
    return synth.client_hello(legacy, random_, sid, suites,
                              None if exts is None else [synth.extension(t, d) for t, d in exts],
                              compression=comp)


def single_record(segment):
    """(record version, message) of a segment that is exactly one handshake record."""
    ctype, version, length = struct.unpack("!BHH", segment[:5])
    assert ctype == synth.CT_HANDSHAKE and length == len(segment) - 5, "not one record"
    return version, segment[5:]


def grease_client_hello(segment, g):
    """Insert GREASE the way Chrome does (RFC 8701): first cipher suite, an empty
    first extension and a one-byte last one, first in supported_versions,
    supported_groups and key_share. g picks the code points."""
    version, msg = single_record(segment)
    legacy, random_, sid, suites, comp, exts = parse_client_hello(msg)
    gv = lambda k: GREASE[(g + k) % 16]  # noqa: E731
    suites = [gv(0)] + suites
    out = [(gv(1), b"")]
    for t, d in exts:
        if t == 43:  # supported_versions: vec8 of versions
            d = synth.vec8(synth.u16(gv(2)) + d[1:])
        elif t == 10:  # supported_groups: vec16 of groups
            d = synth.vec16(synth.u16(gv(3)) + d[2:])
        elif t == 51:  # key_share: vec16 of (group, vec16 key)
            d = synth.vec16(synth.u16(gv(3)) + synth.vec16(b"\x00") + d[2:])
        out.append((t, d))
    # before a trailing padding or pre_shared_key, which must stay last
    last = len(out) - 1 if out[-1][0] in (21, 41) else len(out)
    out.insert(last, (gv(4), b"\x00"))
    return synth.tls_record(synth.CT_HANDSHAKE, version,
                            build_client_hello(legacy, random_, sid, suites, comp, out))


def fallback_client_hello(segment, legacy_version):
    """The retry of a fallback dance: no supported_versions, a lower
    legacy_version, TLS_FALLBACK_SCSV last among the suites (RFC 7507)."""
    version, msg = single_record(segment)
    _, random_, sid, suites, comp, exts = parse_client_hello(msg)
    exts = [(t, d) for t, d in exts if t not in (43, 51, 45, 41, 42)]
    return synth.tls_record(synth.CT_HANDSHAKE, version,
                            build_client_hello(legacy_version, random_, sid, suites + [0x5600],
                                               comp, exts))


# ---------------------------------------------------------------- QUIC: new connection IDs

# Wireshark's QUIC dissector finds a connection by its connection IDs: a replay
# with the same IDs joins the first connection and its CRYPTO frames count as
# retransmissions (measured: 1 of 78 replayed handshakes decoded). So every
# replay gets its own IDs, and the Initial packets, whose keys derive from the
# client's first Destination Connection ID (RFC 9001 5.2), are decrypted and
# encrypted again under the new one: the same frames, the same hello bytes.
# Handshake and 1-RTT packets cannot be decrypted without the TLS secrets:
# only their connection ID bytes change.

QUIC_V1_SALT = bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a")


def _hkdf_expand_label(secret, label, length):
    import hashlib
    import hmac
    full = b"tls13 " + label
    info = synth.u16(length) + synth.vec8(full) + synth.vec8(b"")
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(secret, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


class QuicInitialKeys:
    def __init__(self, dcid, client):
        import hashlib
        import hmac
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        initial = hmac.new(QUIC_V1_SALT, dcid, hashlib.sha256).digest()
        secret = _hkdf_expand_label(initial, b"client in" if client else b"server in", 32)
        self.aead = AESGCM(_hkdf_expand_label(secret, b"quic key", 16))
        self.iv = _hkdf_expand_label(secret, b"quic iv", 12)
        self.hp = Cipher(algorithms.AES(_hkdf_expand_label(secret, b"quic hp", 16)), modes.ECB())

    def mask(self, sample):
        enc = self.hp.encryptor()
        return enc.update(sample) + enc.finalize()

    def nonce(self, pn):
        return bytes(a ^ b for a, b in zip(self.iv, pn.to_bytes(12, "big")))


def _varint(b, p):
    """(value, next offset) of the QUIC variable-length integer at b[p]."""
    n = 1 << (b[p] >> 6)
    return int.from_bytes(bytes([b[p] & 0x3F]) + b[p + 1:p + n], "big"), p + n


def quic_readdress(datagrams, cid_map, old_keys, new_keys):
    """datagrams: [(from_client, payload)] of one QUIC v1 connection. cid_map:
    old connection ID -> new one of the same length. old_keys/new_keys:
    {True: client keys, False: server keys} for the original and the new
    first DCID. Returns the datagrams with the IDs replaced."""
    out = []
    short_cid_len = {len(c) for c in cid_map}
    for from_client, dg in datagrams:
        orig = dg
        dg = bytearray(dg)
        p = 0
        while p < len(dg):
            first = dg[p]
            if not first & 0x80:  # short header: DCID, then protected data to the end
                for n in short_cid_len:
                    new = cid_map.get(bytes(dg[p + 1:p + 1 + n]))
                    if new:
                        dg[p + 1:p + 1 + n] = new
                        break
                break
            if first == 0 and not any(dg[p:]):  # padding after the last packet
                break
            q = p + 5
            dcid = bytes(dg[q + 1:q + 1 + dg[q]])
            dg[q + 1:q + 1 + len(dcid)] = cid_map.get(dcid, dcid)
            q += 1 + dg[q]
            scid = bytes(dg[q + 1:q + 1 + dg[q]])
            dg[q + 1:q + 1 + len(scid)] = cid_map.get(scid, scid)
            q += 1 + dg[q]
            ptype = (first >> 4) & 3
            if ptype == 0:  # Initial: a token before the length
                tlen, q = _varint(dg, q)
                q += tlen
            length, pn_off = _varint(dg, q)
            end = pn_off + length
            if ptype == 0:
                old, new = old_keys[from_client], new_keys[from_client]
                mask = old.mask(bytes(dg[pn_off + 4:pn_off + 20]))
                b0 = first ^ (mask[0] & 0x0F)
                pn_len = (b0 & 3) + 1
                pn_bytes = bytes(x ^ m for x, m in zip(dg[pn_off:pn_off + pn_len], mask[1:]))
                pn = int.from_bytes(pn_bytes, "big")
                old_header = bytes([b0]) + orig[p + 1:pn_off] + pn_bytes
                plain = old.aead.decrypt(old.nonce(pn), bytes(dg[pn_off + pn_len:end]),
                                         old_header)
                # the same header, new IDs already in place
                new_header = bytes([b0]) + bytes(dg[p + 1:pn_off]) + pn_bytes
                sealed = new.aead.encrypt(new.nonce(pn), plain, new_header)
                dg[pn_off + pn_len:end] = sealed
                mask = new.mask(bytes(dg[pn_off + 4:pn_off + 20]))
                dg[p] = b0 ^ (mask[0] & 0x0F)
                for k in range(pn_len):
                    dg[pn_off + k] = pn_bytes[k] ^ mask[1 + k]
            p = end
        out.append((from_client, bytes(dg)))
    return out


class QuicReplayer:
    """Per-connection QUIC v1 datagrams with their own connection IDs."""

    def __init__(self, datagrams):
        self.datagrams = datagrams
        dg = datagrams[0][1]
        assert datagrams[0][0] and dg[0] & 0xF0 == 0xC0, "first datagram: a client Initial"
        self.odcid = dg[6:6 + dg[5]]
        # every other connection ID in the long headers
        self.cids = set()
        for _, d in datagrams:
            if d[0] & 0x80:
                q = 5
                for _ in range(2):
                    cid = d[q + 1:q + 1 + d[q]]
                    if cid and cid != self.odcid:
                        self.cids.add(bytes(cid))
                    q += 1 + d[q]
        self.cids = sorted(self.cids)
        self.old_keys = {c: QuicInitialKeys(self.odcid, c) for c in (True, False)}

    def connection(self, i):
        def new_id(label, old):
            return synth.fixed_bytes("%s %d" % (label, i), len(old))
        cid_map = {self.odcid: new_id("odcid", self.odcid)}
        for k, c in enumerate(self.cids):
            cid_map[c] = new_id("cid%d" % k, c)
        new_keys = {c: QuicInitialKeys(cid_map[self.odcid], c) for c in (True, False)}
        return quic_readdress(self.datagrams, cid_map, self.old_keys, new_keys)


# ---------------------------------------------------------------- the connection kinds

def public(*parts):
    path = os.path.join(PUBLIC, *parts)
    if not os.path.exists(path):
        raise SystemExit(f"gen.py: {path} is missing (the public captures in pcaps/public/)")
    return path


class Templates:
    """Everything the connections replay, read once."""

    def __init__(self):
        p = lambda name: os.path.join(PCAPS, name)  # noqa: E731
        self.tls13 = [tcp_transcript(p(n)) for n in
                      ("tls13-openssl.pcap", "tls13-gnutls.pcap", "tls13-curl.pcap",
                       "tls13-python.pcap", "client-hello-many-records.pcap",
                       "client-hello-many-segments.pcap")]
        self.tls12 = [tcp_transcript(p("tls12-only-server.pcap")),
                      tcp_transcript(p("tls12-client-tls13-server.pcap")),
                      tcp_transcript(public("zeek", "tls1.2.pcap")),
                      tcp_transcript(public("zeek", "chrome-34-google.pcap"))]
        self.hrr = tcp_transcript(p("tls13-hrr.pcap"))
        # GREASE: Chrome 67's real hello (draft-23), and curl's with GREASE inserted.
        self.chrome67 = tcp_transcript(public("zeek", "tls13draft23-chrome67.0.3368.0-canary.pcap"))
        curl_segs, curl_close = tcp_transcript(p("tls13-curl.pcap"))
        self.greased = [([(True, grease_client_hello(curl_segs[0][1], g))] + curl_segs[1:],
                         curl_close) for g in range(16)]
        # Fallback dances: first attempt at TLS 1.3, then a retry with TLS_FALLBACK_SCSV.
        first = tcp_transcript(p("tls13-openssl.pcap"))[0][0][1]
        t12_client = tcp_transcript(p("tls12-client-tls13-server.pcap"))[0][0][1]
        t12_segs, t12_close = tcp_transcript(p("tls12-only-server.pcap"))
        # (a) a version-intolerant server resets the 1.3 attempt; the 1.2 retry works.
        self.dance_intolerant = [
            ([(True, first)], "rst"),
            ([(True, fallback_client_hello(t12_client, 0x0303))] + t12_segs[1:], t12_close)]
        # (b) the first attempt dies unanswered; a TLS 1.3 server rejects the
        # TLS 1.1 retry with inappropriate_fallback (alert 86).
        alert86 = synth.tls_record(synth.CT_ALERT, 0x0302, b"\x02\x56")
        self.dance_rejected = [
            ([(True, first)], "fin"),
            ([(True, fallback_client_hello(t12_client, 0x0302)), (False, alert86)], "fin")]
        # DTLS 1.2 (HelloVerifyRequest cookie exchange) and QUIC v1 (quic-go).
        self.dtls = udp_transcript(p("dtls12-openssl.pcap"), 44305)
        self.quic = QuicReplayer(udp_transcript(public("zeek", "quic-go-handshake.pcap"), 443))


# Connection kinds and how often each is picked: 93 picks make 100 connections (a
# dance is two).
MIX = [
    ("tls13", 34, "TLS 1.3 (OpenSSL, GnuTLS, curl, Python; one hello over 3 records, one over 11 segments)"),
    ("tls12", 14, "TLS 1.2 (1.3 client + 1.2 server, 1.2 client + 1.3 server with DOWNGRD, two internet captures)"),
    ("grease", 14, "GREASE (Chrome 67 draft-23 as captured; curl's hello with Chrome-style GREASE, 16 variants)"),
    ("hrr", 8, "TLS 1.3 with HelloRetryRequest"),
    ("dance", 7, "fallback dances (7 dances = 14 connections), each: 1.3 attempt reset or dropped, retry with TLS_FALLBACK_SCSV"),
    ("dtls", 8, "DTLS 1.2 with HelloVerifyRequest (OpenSSL)"),
    ("quic", 8, "QUIC v1 (quic-go), own connection IDs, Initials encrypted again"),
]


def client_addr(i):
    """A distinct client address and port per connection."""
    return "10.%d.%d.%d" % ((i >> 16) & 255, (i >> 8) & 255, i & 255), 20000 + (i * 7919) % 40000


def server_ip(rng):
    n = rng.randrange(4096)
    return "198.18.%d.%d" % (n >> 8, n & 255)


# ---------------------------------------------------------------- fast replay

# synth.py builds every packet of a template once, with reference addresses;
# each connection then copies those frames and patches the addresses, the
# client port and the IPv4/TCP/UDP checksums (incrementally, RFC 1624). The
# bytes are the ones synth.py would have written for the new addresses.

REF_CLIENT = ("10.255.255.254", 65000)
REF_SERVER_IP = "198.19.255.254"
ETH, IP_SRC, IP_DST, IP_CSUM, L4 = 14, 26, 30, 24, 34
TCP_CSUM, UDP_CSUM = L4 + 16, L4 + 6


class _Recorder:
    """A synth.PcapWriter stand-in that keeps the packets."""

    def __init__(self):
        self.packets = []

    def packet(self, frame, ts):
        self.packets.append((frame, ts))


def _sum16(b):
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))


def _fold(s):
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _adjust(csum, delta):
    return ~_fold((~csum & 0xFFFF) + delta) & 0xFFFF


class Replay:
    """One connection's packets, ready to be re-addressed."""

    def __init__(self, build, server_port):
        rec = _Recorder()
        end = build(rec, REF_CLIENT, (REF_SERVER_IP, server_port))
        self.duration = end
        self.ref = synth.ip_bytes(REF_CLIENT[0]) + synth.ip_bytes(REF_SERVER_IP)
        self.ref_sum = _sum16(self.ref) + REF_CLIENT[1]
        self.packets = []
        for frame, ts in rec.packets:
            assert frame[12:14] == b"\x08\x00" and frame[ETH] == 0x45
            from_client = frame[IP_SRC:IP_SRC + 4] == self.ref[:4]
            csum_at = TCP_CSUM if frame[ETH + 9] == 6 else UDP_CSUM
            self.packets.append((frame, ts, from_client, csum_at))

    def write(self, pcap, client, server_ip, t0):
        cip, sip = synth.ip_bytes(client[0]), synth.ip_bytes(server_ip)
        new_sum = _sum16(cip + sip) + client[1]
        # ones' complement: add the new words and the complement of the old ones
        d_ip = _fold(_sum16(cip + sip) + 0x3FFFC - _sum16(self.ref))
        d_l4 = _fold(new_sum + 0x4FFFB - self.ref_sum)
        port = struct.pack("!H", client[1])
        for frame, ts, from_client, csum_at in self.packets:
            f = bytearray(frame)
            if from_client:
                f[IP_SRC:IP_SRC + 8] = cip + sip
                f[L4:L4 + 2] = port
            else:
                f[IP_SRC:IP_SRC + 8] = sip + cip
                f[L4 + 2:L4 + 4] = port
            c = int.from_bytes(f[IP_CSUM:IP_CSUM + 2], "big")
            f[IP_CSUM:IP_CSUM + 2] = _adjust(c, d_ip).to_bytes(2, "big")
            c = int.from_bytes(f[csum_at:csum_at + 2], "big")
            if csum_at == TCP_CSUM:
                f[csum_at:csum_at + 2] = _adjust(c, d_l4).to_bytes(2, "big")
            elif c:  # UDP: 0 means no checksum, a computed 0 is sent as 0xffff
                f[csum_at:csum_at + 2] = (_adjust(c, d_l4) or 0xFFFF).to_bytes(2, "big")
            pcap.packet(bytes(f), t0 + ts)
        return t0 + self.duration


def tcp_replay(transcript):
    segs, close = transcript

    def build(pcap, client, server):
        conv = synth.TcpConversation(pcap, client, server, t0=0.0, step=0.0001)
        conv.open()
        for k, (from_client, payload) in enumerate(segs):
            last_of_burst = k + 1 == len(segs) or segs[k + 1][0] != from_client
            conv.send(from_client, payload, ack=last_of_burst)
        if close == "rst":
            conv.reset(from_client=False)
        else:
            conv.close(from_client=True)
        return conv.t
    return Replay(build, 443)


def udp_replay(datagrams, server_port):
    return Replay(lambda pcap, client, server: synth.udp_exchange(
        pcap, client, server, datagrams, t0=0.0, step=0.0001), server_port)


def generate(path, n, seed=1):
    tpl = Templates()
    tls13 = [tcp_replay(tr) for tr in tpl.tls13]
    tls12 = [tcp_replay(tr) for tr in tpl.tls12]
    chrome67 = tcp_replay(tpl.chrome67)
    greased = [tcp_replay(tr) for tr in tpl.greased]
    hrr = tcp_replay(tpl.hrr)
    dances = [[tcp_replay(tr) for tr in d] for d in (tpl.dance_intolerant, tpl.dance_rejected)]
    dtls = udp_replay(tpl.dtls, 4433)
    rng = random.Random(seed)
    kinds = [k for k, _, _ in MIX]
    weights = [w for _, w, _ in MIX]
    counts = dict.fromkeys(kinds, 0)
    t = synth.T0
    i = 0
    with synth.PcapWriter(path) as pcap:
        while i < n:
            kind = rng.choices(kinds, weights)[0]
            if kind == "dance" and i + 2 > n:
                continue
            counts[kind] += 1
            sip = server_ip(rng)
            if kind == "tls13":
                t = rng.choice(tls13).write(pcap, client_addr(i), sip, t)
            elif kind == "tls12":
                t = rng.choice(tls12).write(pcap, client_addr(i), sip, t)
            elif kind == "grease":
                r = chrome67 if rng.random() < 0.3 else greased[rng.randrange(16)]
                t = r.write(pcap, client_addr(i), sip, t)
            elif kind == "hrr":
                t = hrr.write(pcap, client_addr(i), sip, t)
            elif kind == "dance":
                cip = client_addr(i)[0]
                for k, r in enumerate(dances[0] if rng.random() < 0.5 else dances[1]):
                    t = r.write(pcap, (cip, client_addr(i + k)[1]), sip, t) + 0.001
                i += 1
            elif kind == "dtls":
                t = dtls.write(pcap, client_addr(i), sip, t)
            elif kind == "quic":
                # new connection IDs, new Initial encryption: built per connection
                t = synth.udp_exchange(pcap, client_addr(i), (sip, 443), tpl.quic.connection(i),
                                       t0=t, step=0.0001)
            t += 0.001
            i += 1
    return counts


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--connections", type=int)
    ap.add_argument("-o", "--out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mix", action="store_true", help="print the connection mix and exit")
    a = ap.parse_args(argv)
    if a.mix:
        for kind, w, what in MIX:
            share = 2 * w if kind == "dance" else w  # of 100 connections
            print(f"| {kind} | {share} % | {what} |")
        return 0
    if not a.connections or not a.out:
        ap.error("-n and -o are required")
    counts = generate(a.out, a.connections, a.seed)
    sys.stderr.write("gen.py: %d connections -> %s (%s)\n" % (
        a.connections, a.out, ", ".join("%s %d" % kv for kv in counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
