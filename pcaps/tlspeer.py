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

Every socket has a timeout, so no mode can hang.
"""
import socket
import ssl
import sys
import time

TIMEOUT = 5.0
HOST = "127.0.0.1"
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


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "server" and len(argv) == 5:
        server(int(argv[2]), argv[3], argv[4])
    elif mode == "client" and len(argv) == 4:
        client(int(argv[2]), argv[3])
    elif mode == "chunked" and len(argv) == 6:
        chunked(int(argv[2]), argv[3], int(argv[4]), int(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
