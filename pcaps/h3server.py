# SPDX-License-Identifier: GPL-2.0-or-later
"""h3server.py: a QUIC server that completes handshakes and answers nothing
(aioquic, Debian 13's python3-aioquic), for pcaps/make-quic-captures.sh.

  python3 h3server.py ADDR PORT CERT KEY
"""
import asyncio
import sys

from aioquic.asyncio import serve
from aioquic.quic.configuration import QuicConfiguration


async def main(addr, port, cert, key):
    cfg = QuicConfiguration(is_client=False, alpn_protocols=["h3"])
    cfg.load_cert_chain(cert, key)
    await serve(addr, port, configuration=cfg)
    print("ready", flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]))
