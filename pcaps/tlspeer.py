#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Small TLS peers on Python's ssl module (OpenSSL), used by make-captures.sh.

  tlspeer.py server  PORT CERT KEY        accept one TLS connection, echo one line, close
  tlspeer.py client  PORT CAFILE          connect as "localhost", send one line, close
  tlspeer.py chunked PORT CAFILE SIZE MS  like client, but the ClientHello is obtained
                                          through ssl.MemoryBIO and written to a
                                          TCP_NODELAY socket SIZE bytes at a time, with
                                          MS milliseconds between writes, so it is
                                          carried by many TCP segments; the rest of the
                                          handshake goes through the same BIOs.
  tlspeer.py draft-fallback PORT CAFILE   a client of the TLS 1.3 draft era with the
                                          old-style fallback: its first ClientHello is
                                          Python's TLS 1.2 hello (from ssl.MemoryBIO)
                                          with what a draft-23 client adds: TLS 1.3
                                          suites 0x1301-0x1303 in front, supported_versions
                                          0x7f17 0x0303 0x0302 0x0301, psk_key_exchange_modes
                                          and an X25519 key_share; when the server fails it,
                                          it retries once with the plain TLS 1.2 hello (no
                                          TLS_FALLBACK_SCSV), as browsers did before RFC 7507.
  tlspeer.py preconnect PORT CAFILE       as a browser that opens a spare connection: two
                                          TCP connections at once, the second opened before
                                          the first's ClientHello; the TLS handshake on the
                                          first must fail (a reset), then the same hello on
                                          the second, which must succeed.

Every socket has a timeout, so no mode can hang. The server listens on, and the clients
connect to, 127.0.0.1 or $TLSPEER_HOST.
"""
import os
import socket
import ssl
import struct
import sys
import time

TIMEOUT = 5.0
HOST = os.environ.get("TLSPEER_HOST", "127.0.0.1")
SNI = "localhost"
LINE = b"tlsneg ping\n"


def server(port, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    with socket.create_server((HOST, port)) as lsock:
        lsock.settimeout(TIMEOUT)
        conn, _ = lsock.accept()
        conn.settimeout(TIMEOUT)
        with ctx.wrap_socket(conn, server_side=True) as tls:
            data = tls.recv(1024)
            tls.sendall(data)
            try:
                tls.unwrap()
            except (OSError, ssl.SSLError):
                pass


def client_context(cafile):
    """Python's defaults; the server's certificate is verified for "localhost"."""
    return ssl.create_default_context(cafile=cafile)


def client(port, cafile):
    ctx = client_context(cafile)
    with socket.create_connection((HOST, port), timeout=TIMEOUT) as sock:
        with ctx.wrap_socket(sock, server_hostname=SNI) as tls:
            tls.sendall(LINE)
            tls.recv(1024)
            try:
                tls.unwrap()
            except (OSError, ssl.SSLError):
                pass


def pump(sock, incoming, outgoing, step):
    """Run one BIO operation to completion, moving bytes between the BIOs and sock."""
    while True:
        try:
            result = step()
        except ssl.SSLWantReadError:
            flush(sock, outgoing)
            data = sock.recv(65536)
            if not data:
                raise ConnectionError("peer closed during handshake")
            incoming.write(data)
            continue
        flush(sock, outgoing)
        return result


def flush(sock, outgoing):
    data = outgoing.read()
    if data:
        sock.sendall(data)


def chunked(port, cafile, size, delay_ms):
    ctx = client_context(cafile)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(incoming, outgoing, server_hostname=SNI)
    with socket.create_connection((HOST, port), timeout=TIMEOUT) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            tls.do_handshake()
        except ssl.SSLWantReadError:
            pass
        hello = outgoing.read()
        for off in range(0, len(hello), size):
            sock.sendall(hello[off:off + size])
            time.sleep(delay_ms / 1000.0)
        pump(sock, incoming, outgoing, tls.do_handshake)
        pump(sock, incoming, outgoing, lambda: tls.write(LINE))
        pump(sock, incoming, outgoing, lambda: tls.read(1024))
        try:
            pump(sock, incoming, outgoing, tls.unwrap)
        except (OSError, ssl.SSLError, ConnectionError):
            pass


def tls12_context(cafile):
    ctx = client_context(cafile)
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def draft_hello(record):
    """Python's TLS 1.2 ClientHello record, turned into a draft-23 era hello."""
    msg = record[5:]
    body = msg[4:]
    at = 2 + 32
    at += 1 + body[at]                                    # session_id
    n = struct.unpack(">H", body[at:at + 2])[0]
    suites = b"\x13\x01\x13\x02\x13\x03" + body[at + 2:at + 2 + n]
    head = body[:at] + struct.pack(">H", len(suites)) + suites
    at += 2 + n
    head += body[at:at + 1 + body[at]]                    # compression methods
    at += 1 + body[at]
    exts = body[at + 2:]
    exts += struct.pack(">HHB", 43, 9, 8) + bytes.fromhex("7f17030303020301")
    exts += struct.pack(">HHBB", 45, 2, 1, 1)
    share = os.urandom(32)
    exts += struct.pack(">HHHHH", 51, 38, 36, 0x001d, 32) + share
    body = head + struct.pack(">H", len(exts)) + exts
    msg = b"\x01" + len(body).to_bytes(3, "big") + body
    return record[:3] + struct.pack(">H", len(msg)) + msg


def draft_fallback(port, cafile):
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = tls12_context(cafile).wrap_bio(incoming, outgoing, server_hostname=SNI)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = draft_hello(outgoing.read())
    failed = False
    with socket.create_connection((HOST, port), timeout=TIMEOUT) as sock:
        sock.sendall(hello)
        try:
            answer = sock.recv(4096)
            failed = not answer or answer[0] == 21        # EOF or an alert record
        except (ConnectionError, socket.timeout):
            failed = True
    if not failed:
        raise SystemExit("the draft hello was not refused")
    with socket.create_connection((HOST, port), timeout=TIMEOUT) as sock:
        with tls12_context(cafile).wrap_socket(sock, server_hostname=SNI) as tls:
            tls.sendall(LINE)
            tls.recv(1024)
            try:
                tls.unwrap()
            except (OSError, ssl.SSLError):
                pass


def preconnect(port, cafile):
    ctx = client_context(cafile)
    first = socket.create_connection((HOST, port), timeout=TIMEOUT)
    spare = socket.create_connection((HOST, port), timeout=TIMEOUT)
    try:
        with ctx.wrap_socket(first, server_hostname=SNI):
            raise SystemExit("the first handshake did not fail")
    except (ConnectionError, ssl.SSLError, socket.timeout):
        pass
    time.sleep(0.2)
    with ctx.wrap_socket(spare, server_hostname=SNI) as tls:
        tls.sendall(LINE)
        tls.recv(1024)
        try:
            tls.unwrap()
        except (OSError, ssl.SSLError):
            pass


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "server" and len(argv) == 5:
        server(int(argv[2]), argv[3], argv[4])
    elif mode == "client" and len(argv) == 4:
        client(int(argv[2]), argv[3])
    elif mode == "draft-fallback" and len(argv) == 4:
        draft_fallback(int(argv[2]), argv[3])
    elif mode == "preconnect" and len(argv) == 4:
        preconnect(int(argv[2]), argv[3])
    elif mode == "chunked" and len(argv) == 6:
        chunked(int(argv[2]), argv[3], int(argv[4]), int(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
