#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-quic-captures.sh: regenerate quic-pq-curl-split-hello.pcap: curl's
# HTTP/3 ClientHello with an X25519MLKEM768 key share (about 1.5 KB), too
# long for one Initial packet, sent as CRYPTO data in order over two
# Initial datagrams, to an aioquic server that completes the handshake.
#
# Stacks, from a Debian 13 (trixie) root filesystem: curl 8.14 (HTTP/3 over
# OpenSSL 3.5's QUIC, X25519MLKEM768 by default) and python3-aioquic 1.2
# (pcaps/h3server.py). Network: a network namespace of its own (unshare),
# its loopback only, captured with the chroot's tcpdump.
#
# Usage (as root: namespace, chroot):
#   pcaps/make-quic-captures.sh                # writes pcaps/quic-pq-curl-split-hello.pcap
#   OUT=/some/dir pcaps/make-quic-captures.sh  # write elsewhere
#   KEEP_TMP=1 pcaps/make-quic-captures.sh     # keep the temp dir (logs) in the chroot
#
# The root filesystem: $PQ_CHROOT, default
# ${TLSNEG_CHROOT_DIR:-/var/cache/tlsneg-chroots}/trixie-pq (made by
# make-pq-captures.sh), with python3-aioquic installed in it
# (chroot ROOT apt-get install python3-aioquic). Each run gives new randoms,
# keys, ports and timings (the server's ACK may come before or after the
# second Initial, which moves the frame numbers); the committed capture is
# the reference pcaps/README-post-quantum.md describes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here}
root=${PQ_CHROOT:-${TLSNEG_CHROOT_DIR:-/var/cache/tlsneg-chroots}/trixie-pq}
name=quic-pq-curl-split-hello
me=make-quic-captures
# shellcheck source=SCRIPTDIR/capture-common.sh
. "$here/capture-common.sh"

[ "$(id -u)" -eq 0 ] || die "run as root (network namespace, chroot)"
[ -x "$root/usr/bin/curl" ] || die "no trixie root filesystem at $root (make-pq-captures.sh makes it)"
chroot "$root" python3 -c 'import aioquic' 2>/dev/null ||
    die "no aioquic in $root: chroot $root apt-get install python3-aioquic"

tmp_rel=$(chroot "$root" mktemp -d /tmp/quiccaps.XXXXXX)
tmp=$root$tmp_rel
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
cp "$here/h3server.py" "$tmp/"

# Everything below runs in one new network namespace (its loopback only) and
# mount namespace (the /proc mounted for the chroot goes with it); the
# server and tcpdump are killed by pid.
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --net --mount sh -c '
set -e
ip link set lo up
mount -t proc proc "$0/proc"
c() { exec chroot "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin HOME=/tmp LANG=C.UTF-8 "$@"; }
(c openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$1/key.pem" -out "$1/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null)
c python3 "$1/h3server.py" 127.0.0.1 4433 "$1/cert.pem" "$1/key.pem" >"$0$1/server.log" 2>&1 &
server=$!
c tcpdump -i lo --immediate-mode -U -w "$1/capture.pcap" udp port 4433 2>"$0$1/tcpdump.log" &
dump=$!
for i in $(seq 100); do
    grep -q ready "$0$1/server.log" && grep -q listening "$0$1/tcpdump.log" && break
    sleep 0.05
done
(c curl -sk --http3-only --max-time 3 -o /dev/null https://127.0.0.1:4433/) || true
sleep 1
kill "$dump" "$server"
wait "$dump" "$server" 2>/dev/null || true
' "$root" "$tmp_rel"

cp "$tmp/capture.pcap" "$out/$name.pcap"
# The ClientHello came in two Initial datagrams, tshark's TLS put it
# together over them (tls.handshake.fragment), and carries X25519MLKEM768.
expect_count "$name" 'tls.handshake.type == 1 && tls.handshake.fragment' 1
expect_count "$name" 'tls.handshake.type == 1 && tls.handshake.extensions_key_share_group == 0x11ec' 1
expect_count "$name" 'tls.handshake.type == 2' 1
log "wrote $out/$name.pcap"
