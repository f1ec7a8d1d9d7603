#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A small TCP proxy in front of a real TLS server, used by make-captures.sh to play
the parts no real stack plays on demand: a man in the middle that hides the client's
TLS 1.3 offer, and version-intolerant servers. Standard library only.

  tlsproxy.py strip-sv   LISTEN BACKEND
      One connection. The ClientHello is forwarded without its supported_versions
      extension (43), every length fixed (extensions block, handshake message,
      record); everything else, both ways, is relayed unchanged.

  tlsproxy.py cap-version LISTEN BACKEND VER
      One connection. The ClientHello is forwarded with legacy_version VER (hex, e.g.
      0302) and without supported_versions: a man in the middle that makes the server
      negotiate VER although the client offered more. Everything else is relayed
      unchanged.

  tlsproxy.py intolerant LISTEN BACKEND MAXVER KIND N
      N connections, one after the other. A ClientHello that offers a version above
      MAXVER (hex, e.g. 0303) in its legacy_version or in supported_versions (GREASE
      ignored) is answered by KIND; any other is relayed to BACKEND unchanged.

  tlsproxy.py fail-first LISTEN BACKEND KIND N
      N connections, one after the other: the first fails by KIND whatever it offers,
      the others are relayed to BACKEND unchanged.

  KIND: rst    close at once with SO_LINGER 0 (the kernel sends a TCP RST)
        alert  a fatal handshake_failure alert (level 2, description 40) in a record
               whose version is MAXVER (0x0303 for fail-first), then FIN
        close  FIN, nothing sent
  After alert or close the proxy reads (and drops) whatever the client still sends,
  until the client's FIN, then closes: no RST.

The whole ClientHello is read before any failure, so that a FIN is a FIN (closing a
socket with unread data would make the kernel send a RST). Listens on 127.0.0.1
(or $TLSPROXY_LISTEN), connects to 127.0.0.1:BACKEND (or $TLSPROXY_BACKEND) only when
it relays. Every socket has a timeout.
"""
import os
import select
import socket
import struct
import sys

HOST = os.environ.get("TLSPROXY_LISTEN", "127.0.0.1")
BACKEND_HOST = os.environ.get("TLSPROXY_BACKEND", "127.0.0.1")
TIMEOUT = 5.0
ALERT_HANDSHAKE_FAILURE = 40


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("peer closed before %d bytes" % n)
        buf += chunk
    return buf


def read_client_hello(sock):
    """Read handshake records until one whole handshake message is there.

    Returns (raw bytes as received, first record version, the handshake message)."""
    raw, payload, rec_version = b"", b"", None
    while True:
        hdr = read_exact(sock, 5)
        ctype, version, length = hdr[0], struct.unpack("!H", hdr[1:3])[0], struct.unpack("!H", hdr[3:5])[0]
        body = read_exact(sock, length)
        raw += hdr + body
        if ctype != 22:
            raise ValueError("first record is not a handshake record (type %d)" % ctype)
        if rec_version is None:
            rec_version = version
        payload += body
        if len(payload) >= 4:
            mlen = int.from_bytes(payload[1:4], "big")
            if len(payload) >= 4 + mlen:
                if payload[0] != 1:
                    raise ValueError("first handshake message is not a ClientHello")
                return raw, rec_version, payload[:4 + mlen]


def split_hello(msg):
    """ClientHello message -> (bytes before the extensions block, [(type, data)])."""
    body = msg[4:]
    p = 2 + 32
    p += 1 + body[p]                                   # session id
    p += 2 + int.from_bytes(body[p:p + 2], "big")      # cipher suites
    p += 1 + body[p]                                   # compression methods
    head = body[:p]
    exts = []
    if p < len(body):
        total = int.from_bytes(body[p:p + 2], "big")
        q, end = p + 2, p + 2 + total
        if end != len(body):
            raise ValueError("extensions block length does not fit")
        while q < end:
            etype, elen = struct.unpack("!HH", body[q:q + 4])
            exts.append((etype, body[q + 4:q + 4 + elen]))
            q += 4 + elen
    return head, exts


def is_grease(v):
    return (v & 0x0F0F) == 0x0A0A and (v >> 8) == (v & 0xFF)


def offered_versions(msg):
    head, exts = split_hello(msg)
    versions = [int.from_bytes(head[0:2], "big")]
    for etype, data in exts:
        if etype == 43 and data:
            versions += [int.from_bytes(data[1 + i:3 + i], "big") for i in range(0, data[0], 2)]
    return [v for v in versions if not is_grease(v)]


def without_supported_versions(msg, rec_version, legacy_version=None):
    head, exts = split_hello(msg)
    if legacy_version is not None:
        head = struct.pack("!H", legacy_version) + head[2:]
    ext_bytes = b"".join(struct.pack("!HH", t, len(d)) + d for t, d in exts if t != 43)
    body = head + struct.pack("!H", len(ext_bytes)) + ext_bytes
    hs = b"\x01" + len(body).to_bytes(3, "big") + body
    return struct.pack("!BHH", 22, rec_version, len(hs)) + hs


def fail(conn, kind, alert_version):
    if kind == "rst":
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    elif kind == "alert":
        conn.sendall(struct.pack("!BHHBB", 21, alert_version, 2, 2, ALERT_HANDSHAKE_FAILURE))
    elif kind != "close":
        raise ValueError("unknown failure kind %s" % kind)
    if kind != "rst":
        # Half-close, then read what the client still sends (OpenSSL answers an
        # unexpected EOF with an alert) until its FIN: a full close would make
        # the kernel answer those bytes with a RST.
        conn.shutdown(socket.SHUT_WR)
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass
    conn.close()


def relay(client, first_bytes, backend_port):
    """Send first_bytes to the backend, then copy both ways; a FIN is passed on as a FIN."""
    server = socket.create_connection((BACKEND_HOST, backend_port), timeout=TIMEOUT)
    server.sendall(first_bytes)
    peers = {client: server, server: client}
    open_in = {client, server}
    while open_in:
        ready, _, _ = select.select(list(open_in), [], [], TIMEOUT)
        if not ready:
            break
        for s in ready:
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                data = b""
            if data:
                peers[s].sendall(data)
            else:
                open_in.discard(s)
                try:
                    peers[s].shutdown(socket.SHUT_WR)
                except OSError:
                    pass
    server.close()
    client.close()


def serve(listen_port, connections, handle):
    with socket.create_server((HOST, listen_port)) as lsock:
        lsock.settimeout(60.0)
        for i in range(connections):
            conn, _ = lsock.accept()
            conn.settimeout(TIMEOUT)
            handle(i, conn)


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "strip-sv" and len(argv) == 4:
        backend = int(argv[3])

        def handle(_, conn):
            _, rec_version, msg = read_client_hello(conn)
            relay(conn, without_supported_versions(msg, rec_version), backend)

        serve(int(argv[2]), 1, handle)
    elif mode == "cap-version" and len(argv) == 5:
        backend, ver = int(argv[3]), int(argv[4], 16)

        def handle(_, conn):
            _, rec_version, msg = read_client_hello(conn)
            relay(conn, without_supported_versions(msg, rec_version, ver), backend)

        serve(int(argv[2]), 1, handle)
    elif mode == "intolerant" and len(argv) == 7:
        backend, maxver, kind, n = int(argv[3]), int(argv[4], 16), argv[5], int(argv[6])

        def handle(_, conn):
            raw, _, msg = read_client_hello(conn)
            if max(offered_versions(msg)) > maxver:
                fail(conn, kind, maxver)
            else:
                relay(conn, raw, backend)

        serve(int(argv[2]), n, handle)
    elif mode == "fail-first" and len(argv) == 6:
        backend, kind, n = int(argv[3]), argv[4], int(argv[5])

        def handle(i, conn):
            raw, _, _ = read_client_hello(conn)
            if i == 0:
                fail(conn, kind, 0x0303)
            else:
                relay(conn, raw, backend)

        serve(int(argv[2]), n, handle)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
