#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A small TCP front in front of real TLS servers, for make-pq-captures.sh: the
split-hello intolerance of "tldr.fail", and a mixed server pool. Standard
library only; shares tlsproxy.py's hello reader and relay.

  pqfront.py once KIND LISTEN_PORT BACKEND_PORT N
      N connections, one after the other. Reads the ClientHello with one recv().
      If that read holds a whole TLS record and the whole handshake message in
      it, relays the connection to BACKEND_PORT unchanged; otherwise the hello
      was split over TCP segments and the front fails by KIND.

  pqfront.py pool LISTEN_PORT BACKEND_PORT[,BACKEND_PORT...] N
      N connections, one after the other. Reads the whole ClientHello (as many
      reads as it takes) and relays connection i to the (i mod k)-th backend: one
      address and port answered by several servers in turn.

  KIND: rst     close at once with SO_LINGER 0 (the kernel sends a TCP RST)
        close   FIN, nothing sent
        alert   a fatal decode_error alert (level 2, description 50) in a record
                of version 0x0303, then FIN
  After close or alert the front reads (and drops) what the client still sends
  until the client's FIN, then closes (no RST from this side for those bytes).

Listens on $PQFRONT_LISTEN (default 127.0.0.1), connects to 127.0.0.1. Prints
one line per connection: its number, "relay" or "fail KIND", the bytes read.
"""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TLSPROXY_LISTEN", os.environ.get("PQFRONT_LISTEN", "127.0.0.1"))
import tlsproxy  # noqa: E402  (reads TLSPROXY_LISTEN at import)

ALERT_DECODE_ERROR = 50


def whole_hello(buf):
    """True if buf holds a whole TLS record and the whole handshake message
    that starts in it."""
    if len(buf) < 5:
        return False
    rlen = struct.unpack("!H", buf[3:5])[0]
    if len(buf) < 5 + rlen or rlen < 4:
        return False
    return 4 + int.from_bytes(buf[6:9], "big") <= rlen


def fail(conn, kind):
    if kind == "rst":
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
        return
    if kind == "alert":
        conn.sendall(struct.pack("!BHHBB", 21, 0x0303, 2, 2, ALERT_DECODE_ERROR))
    elif kind != "close":
        raise ValueError("unknown failure kind %s" % kind)
    conn.shutdown(socket.SHUT_WR)
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass
    conn.close()


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "once" and len(argv) == 6:
        kind, backend, n = argv[2], int(argv[4]), int(argv[5])
        if kind not in ("rst", "close", "alert"):
            sys.stderr.write(__doc__)
            return 2

        def handle(i, conn):
            buf = conn.recv(65536)
            if whole_hello(buf):
                print(i, "relay", len(buf), flush=True)
                tlsproxy.relay(conn, buf, backend)
            else:
                print(i, "fail", kind, len(buf), flush=True)
                fail(conn, kind)

        tlsproxy.serve(int(argv[3]), n, handle)
    elif mode == "pool" and len(argv) == 5:
        backends, n = [int(p) for p in argv[3].split(",")], int(argv[4])

        def handle(i, conn):
            raw, _, _ = tlsproxy.read_client_hello(conn)
            print(i, "relay", len(raw), "to", backends[i % len(backends)], flush=True)
            tlsproxy.relay(conn, raw, backends[i % len(backends)])

        tlsproxy.serve(int(argv[2]), n, handle)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
