#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Pull every ClientHello, ServerHello and HelloVerifyRequest out of a capture
with tshark's own dissection (no tlsneg involved), as tshark sees them.

Prints one JSON object per message: frame, wire (tls, dtls, quic), the raw
message bytes in hex (from tshark's *_raw output), and tshark's own reading of
legacy_version, supported_versions, the extension types in order, the
message length, supported_groups, the key shares (group and key_exchange
length) and a HelloRetryRequest's selected_group. The
differential test feeds the hex to tlsneg-dump and compares; the hex lines
also seed the unit-test vectors and the fuzz corpus.
"""
import collections
import glob
import json
import os
import sys

from tests.captures import tsharkbox

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_captures():
    """Every capture under pcaps/ (the public ones in pcaps/public/ included)."""
    return sorted(glob.glob(os.path.join(ROOT, "pcaps", "**", "*.pcap*"), recursive=True))


def pairs(items):
    d = collections.OrderedDict()
    for k, v in items:
        d.setdefault(k, []).append(v)
    return d


def first(d, key):
    v = d.get(key)
    return v[0] if v else None


def collect(node, key, out):
    """Every value of key under node, in document (wire) order."""
    if isinstance(node, dict):
        for k, vals in node.items():
            for v in vals:
                if k == key:
                    out.append(v)
                else:
                    collect(v, key, out)
    elif isinstance(node, list):
        for v in node:
            collect(v, key, out)
    return out


def messages(node, proto, wire, frame, found):
    """Walk tshark's JSON; a dict holding '<proto>.handshake' lists the
    messages, and '<proto>.handshake_raw' (same order) their bytes."""
    if isinstance(node, list):
        for v in node:
            messages(v, proto, wire, frame, found)
        return
    if not isinstance(node, dict):
        return
    hs_key, raw_key = proto + ".handshake", proto + ".handshake_raw"
    if proto == "tls" and "tls.record" in node and "tls.record_raw" in node:
        sslv2_records(node, frame, found)
    if hs_key in node and raw_key in node:
        for hs, raw in zip(node[hs_key], node[raw_key]):
            if not isinstance(hs, dict):
                continue
            t = first(hs, proto + ".handshake.type")
            if t is None or int(t) not in (1, 2, 3):
                continue
            found.append({
                "frame": frame,
                "wire": wire,
                "type": int(t),
                "hex": raw[0] if isinstance(raw, list) else raw,
                # where the message sits in its data source (-x: [hex, pos, len, ...])
                "pos": raw[1] if isinstance(raw, list) and len(raw) > 1 else None,
                "legacy_version": first(hs, proto + ".handshake.version"),
                "supported_versions": collect(hs, proto + ".handshake.extensions.supported_version", []),
                "extension_types": [int(x) for x in collect(hs, proto + ".handshake.extension.type", [])],
                "length": first(hs, proto + ".handshake.length"),
                "groups": [int(x, 0) for x in
                           collect(hs, proto + ".handshake.extensions_supported_group", [])],
                "key_share_groups": [int(x, 0) for x in collect(
                    hs, proto + ".handshake.extensions_key_share_group", [])],
                "key_share_lengths": [int(x, 0) for x in collect(
                    hs, proto + ".handshake.extensions_key_share_key_exchange_length", [])],
                "selected_group": [int(x, 0) for x in collect(
                    hs, proto + ".handshake.extensions_key_share_selected_group", [])],
            })
    for k, vals in node.items():
        if k in (hs_key, raw_key):
            continue
        for v in vals:
            messages(v, proto, wire, frame, found)


def sslv2_records(node, frame, found):
    """SSLv2-compatible ClientHellos and SSL 2.0 hellos sit directly in a record whose
    generated version is SSL 2.0; the message starts after the 2-byte record header."""
    for rec, raw in zip(node["tls.record"], node["tls.record_raw"]):
        if not isinstance(rec, dict) or first(rec, "tls.record.version") != "0x0002":
            continue
        # 4.0 names the SSLv2 handshake type tls.handshake.type, 4.4 and
        # later tls.ssl2.handshake.type.
        # The CLIENT-HELLO (1, also SSLv2-compatible) and the SSL 2.0 SERVER-HELLO (4), which
        # tlsneg reads as a ServerHello; CLIENT-MASTER-KEY and the rest are no hellos.
        ssl2_type = first(rec, "tls.handshake.type") or first(rec, "tls.ssl2.handshake.type")
        if ssl2_type not in ("1", "4"):
            continue
        hexed = raw[0] if isinstance(raw, list) else raw
        pos = raw[1] + 2 if isinstance(raw, list) and len(raw) > 1 else None
        found.append({"frame": frame, "wire": "ssl2", "type": 1 if ssl2_type == "1" else 2,
                      "hex": hexed[4:], "pos": pos,
                      "legacy_version": first(rec, "tls.handshake.version"),
                      "supported_versions": [], "extension_types": []})


def quic_alerts(packet):
    """The TLS alerts that one QUIC packet of tshark's JSON (an item of a
    packet's "quic" layers, which are its coalesced packets in order)
    carries, read as RFC 9001 4.8 puts them: the error code of a
    CONNECTION_CLOSE of type 0x1c (quic.cc.error_code; 0x1d's is
    quic.cc.error_code.app) that is a crypto error, 0x0100 + the alert
    description (0x0100-0x01ff, RFC 9000 20.1). Initial packets only
    (quic.header_form 1, quic.long.packet_type 0, or 1 for version 2):
    the packets anyone can decrypt (RFC 9001 5.2), the only ones tlsneg
    reads."""
    if not isinstance(packet, dict) or first(packet, "quic.header_form") != "1":
        return []
    if not (first(packet, "quic.long.packet_type") == "0"
            or first(packet, "quic.long.packet_type_v2") == "1"):
        return []
    codes = [int(c) for c in collect(packet, "quic.cc.error_code", [])]
    return [c - 0x100 for c in codes if 0x100 <= c <= 0x1ff]


def dissection(path, tshark="tshark"):
    """tshark's own dissection of a capture, every packet with its bytes
    (-T json -x, TCP segments reassembled out of order too), parsed with
    pairs(): made once per ctest run and shared by the runners that read it
    (tsharkbox.plain_run)."""
    out = tsharkbox.plain_run(["-r", path, "-T", "json", "-x", "-o",
                               "tcp.reassemble_out_of_order:TRUE"], tshark, share=True).stdout
    return json.loads(out, object_pairs_hook=pairs)


def extract(path, tshark="tshark"):
    found = []
    for pkt in dissection(path, tshark):
        layers = pkt["_source"][0]["layers"][0]
        frame = int(first(first(layers, "frame"), "frame.number"))
        for proto, wire in (("tls", "tls"), ("dtls", "dtls")):
            for layer in layers.get(proto, []):
                messages(layer, proto, wire, frame, found)
        for layer in layers.get("quic", []):
            messages(layer, "tls", "quic", frame, found)
    return found


if __name__ == "__main__":
    for path in sys.argv[1:]:
        for m in extract(path):
            m["capture"] = path
            print(json.dumps(m))
