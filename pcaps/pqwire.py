#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A userspace wire between two network namespaces, for make-pq-captures.sh.
Standard library only (ctypes for setns).

  pqwire.py NETNS_A TAP_A NETNS_B TAP_B HOLD_MS

Creates the TAP device TAP_A in the named network namespace NETNS_A (as made by
`ip netns add`, so /run/netns/NETNS_A) and TAP_B in NETNS_B (no packet
information header, no offloads: the kernel hands over every frame as it would
put it on a 1,500-byte Ethernet, segmented and with full checksums), prints
"ready" once both exist, then copies every frame read from one device to the
other until it is killed. The devices go away with the process.

One exception makes a "read once" server fail reliably, as the kernel here has
no netem: the later segments of a TCP connection's first flight from A to B
(every data segment after the connection's first one, as long as B has sent no
data, FIN or RST on that connection) are held back HOLD_MS milliseconds, and
every later frame of that connection from A waits behind them, in order. Without
it both segments of a split ClientHello usually reach the server before its
single read. Everything else (ACKs, SYNs, FINs, RSTs, retransmissions of the
first segment, every frame from B to A, non-TCP frames) passes at once.
"""
import ctypes
import fcntl
import heapq
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000

libc = ctypes.CDLL(None, use_errno=True)


def enter_netns(name):
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "setns %s: %s" % (name, os.strerror(err)))
    finally:
        os.close(fd)


def open_tap(netns, name):
    """A TAP device NAME created in NETNS (the device lives in the namespace this
    thread is in when /dev/net/tun is opened)."""
    enter_netns(netns)
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def tcp_segment(frame):
    """(connection key, from-side key, seq, payload length, flags) of an IPv4 TCP
    frame, or None."""
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    if ip[9] != 6 or len(ip) < ihl + 20:
        return None
    total = struct.unpack("!H", ip[2:4])[0]
    tcp = ip[ihl:total]
    sport, dport, seq = struct.unpack("!HHI", tcp[0:8])
    doff = (tcp[12] >> 4) * 4
    src, dst = ip[12:16], ip[16:20]
    return (src, sport, dst, dport), seq, len(tcp) - doff, tcp[13]


class Wire:
    def __init__(self, fd_a, fd_b, hold):
        self.fd_a, self.fd_b, self.hold = fd_a, fd_b, hold
        self.first_seq = {}    # A->B connection: seq of its first data segment
        self.b_spoke = set()   # connections on which B has sent data
        self.held = []         # heap of (release time, order, frame)
        self.until = {}        # A->B connection: release time of its last held frame
        self.order = 0

    def hold_back(self, conn, until, frame):
        self.order += 1
        self.until[conn] = until
        heapq.heappush(self.held, (until, self.order, frame))

    def from_a(self, frame):
        seg = tcp_segment(frame)
        if seg:
            conn, seq, plen, flags = seg
            now = time.monotonic()
            if flags & 0x02:  # SYN: a new connection on this 4-tuple
                self.first_seq.pop(conn, None)
                self.b_spoke.discard(conn)
            if self.until.get(conn, 0) > now:
                # Behind a held-back frame of its connection: keep the order.
                self.hold_back(conn, self.until[conn], frame)
                return
            if plen and not flags & 0x02:
                first = self.first_seq.setdefault(conn, seq)
                if seq != first and conn not in self.b_spoke:
                    self.hold_back(conn, now + self.hold, frame)
                    return
        os.write(self.fd_b, frame)

    def from_b(self, frame):
        seg = tcp_segment(frame)
        if seg and (seg[2] or seg[3] & 0x05):  # data, FIN or RST: B has spoken
            src, sport, dst, dport = seg[0]
            self.b_spoke.add((dst, dport, src, sport))
        os.write(self.fd_a, frame)

    def release(self):
        now = time.monotonic()
        while self.held and self.held[0][0] <= now:
            os.write(self.fd_b, heapq.heappop(self.held)[2])

    def run(self):
        while True:
            timeout = max(0.0, self.held[0][0] - time.monotonic()) if self.held else None
            ready, _, _ = select.select([self.fd_a, self.fd_b], [], [], timeout)
            for fd in ready:
                frame = os.read(fd, 65536)
                (self.from_a if fd == self.fd_a else self.from_b)(frame)
            self.release()


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    fd_a = open_tap(argv[1], argv[2])
    fd_b = open_tap(argv[3], argv[4])
    print("ready", flush=True)
    Wire(fd_a, fd_b, int(argv[5]) / 1000.0).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
