#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg's wire items sit on their bytes.

Every tlsneg item read from the wire (record_version, legacy_version, each
offered_version, selected_version, each GREASE value and its family, the
TLS_FALLBACK_SCSV cipher suite, the downgrade sentinel, the SNI, and whether a
ServerHello is a HelloRetryRequest, on its random) must be tied
to the bytes it was read from, in the data source where the hello was
reassembled. The expected positions are tshark's own: for each tied tlsneg
item, a field of the TLS or DTLS dissector (tls.handshake.version,
tls.handshake.extensions.supported_version, tls.handshake.ciphersuite, ...)
must have the same pos and size in the same packet and the same bytes
(pdml `value`), and those bytes must read as the item's value. Checked in one
pass and with -2, which must also give the same positions.

PDML prints a field's pos as its parent's pos plus its own when its own is
smaller (print.c): for a message reassembled from DTLS fragments, whose
fields sit at the start of the reassembled data source, pos is then not the
field's offset. There the positions are read from `-T json -x`, whose _raw
arrays give [bytes, offset, length] as the field has them.
"""
import argparse
import collections
import json
import os
import sys
import xml.etree.ElementTree as ET

from tests.captures import tsharkbox
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# capture, and whether every record_version there must be tied: a record
# header sits in the message's data source unless the message was
# reassembled from several TLS records or DTLS fragments.
CAPTURES = [
    ("pcaps/tls13-openssl.pcap", "all"),
    ("pcaps/tls13-hrr.pcap", "all"),
    ("pcaps/synth-grease-client.pcap", "all"),
    ("pcaps/public/zeek/tls13draft23-chrome67.0.3368.0-canary.pcap", "all"),
    ("pcaps/sslv2-client-hello.pcap", "sslv2"),
    ("pcaps/dtls12-openssl.pcap", "all"),
    ("pcaps/public/zeek/dtls13-cid.pcap", "all"),
    ("pcaps/public/zeek/quic-go-handshake.pcap", "none"),
    ("pcaps/client-hello-many-segments.pcap", "all"),
    ("pcaps/client-hello-many-records.pcap", "some"),
    ("pcaps/tls12-client-tls13-server.pcap", "all"),
    ("pcaps/fallback-scsv-tls12.pcap", "all"),
    # ClientHellos reassembled from DTLS fragments: record headers elsewhere.
    ("pcaps/public/zeek/dtls1_2.pcap", "json"),
]

# tshark's own fields (without the tls./dtls. prefix) that hold the same
# bytes as each tlsneg wire item.
OWN = {
    "tlsneg.record_version": {"record.version"},
    "tlsneg.legacy_version": {"handshake.version", "handshake.server_version"},
    "tlsneg.offered_version": {"handshake.extensions.supported_version"},
    "tlsneg.selected_version": {"handshake.extensions.supported_version"},
    "tlsneg.sni": {"handshake.extensions_server_name"},
    # The random alone says whether a ServerHello is a HelloRetryRequest.
    "tlsneg.hrr": {"handshake.random"},
    # 4.4 renamed the SSLv2 cipher spec tls.ssl2.handshake.cipherspec.
    "tlsneg.fallback_scsv": {"handshake.ciphersuite", "handshake.cipherspec",
                             "ssl2.handshake.cipherspec"},
}
GREASE_OWN = {
    "cipher_suite": {"handshake.ciphersuite"},
    "extension": {"handshake.extension.type"},
    "group": {"handshake.extensions_supported_group"},
    "key_share": {"handshake.extensions_key_share_group"},
    "signature_algorithm": {"handshake.sig_hash_alg"},
    "version": {"handshake.extensions.supported_version"},
    "psk_mode": {"extension.psk_ke_mode"},
    "alpn": {"handshake.extensions_alpn_str"},
}
HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
WIRE = set(OWN) | {"tlsneg.grease_value", "tlsneg.grease_family", "tlsneg.downgrade_sentinel"}


def own_name(name):
    for prefix in ("tls.", "dtls."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return None


def item(el):
    return {"name": el.get("name"), "pos": int(el.get("pos", 0)), "size": int(el.get("size", 0)),
            "value": el.get("value", ""), "show": el.get("show", "")}


def packets(pdml):
    """Per packet: its frame number, tshark's own TLS/DTLS fields, and its
    tlsneg messages (each a list of tlsneg items in tree order)."""
    out = []
    for pkt in ET.fromstring(pdml).iter("packet"):
        frame = None
        own, msgs = [], []
        for proto in pkt.findall("proto"):
            if proto.get("name") == "frame":
                for f in proto.iter("field"):
                    if f.get("name") == "frame.number":
                        frame = int(f.get("show"))
            elif proto.get("name") == "tlsneg":
                msgs.append([item(f) for f in proto.iter("field")
                             if (f.get("name") or "").startswith("tlsneg.")])
            else:
                own += [item(f) for f in proto.iter("field") if own_name(f.get("name") or "")]
        if msgs:
            out.append((frame, own, msgs))
    return out


def json_items(node, keep, out):
    """Items of a -T json -x object in order: a field's _raw array comes
    just before its value."""
    raw = {}
    for k, v in node:
        if isinstance(v, list) and k.endswith("_raw") and len(v) >= 3 and isinstance(v[1], int):
            raw[k[:-4]] = v
        elif isinstance(v, list) and v and isinstance(v[0], tuple):
            if keep(k):
                it = {"name": k, "pos": 0, "size": 0, "value": "", "show": ""}
                out.append(it)
            json_items(v, keep, out)
        elif isinstance(v, list):
            for x in v:  # a repeated key without its own object
                if keep(k) and isinstance(x, str):
                    out.append(raw_item(k, raw.pop(k, None), x))
        elif keep(k):
            out.append(raw_item(k, raw.pop(k, None), v))
    return out


def raw_item(name, raw, show):
    if raw:
        return {"name": name, "pos": raw[1], "size": raw[2], "value": raw[0], "show": str(show)}
    return {"name": name, "pos": 0, "size": 0, "value": "", "show": str(show)}


def packets_json(text):
    """The same as packets(), from -T json -x."""
    pkts = json.loads(text, object_pairs_hook=lambda pairs: pairs)
    out = []
    for pkt in pkts:
        layers = dict(pkt)["_source"]
        layers = dict(layers)["layers"]
        frame = None
        own, msgs = [], []
        for k, v in layers:
            if k == "frame":
                frame = int(dict(v)["frame.number"])
            elif k == "tlsneg":
                msgs.append(json_items(v, lambda n: n.startswith("tlsneg."), []))
            elif not k.endswith("_raw") and isinstance(v, list):
                own += json_items(v, lambda n: own_name(n) is not None, [])
        if msgs:
            out.append((frame, own, msgs))
    return out


def reads_as(it):
    """Whether an item's bytes (pdml value) read as the value it shows."""
    v, show, name = it["value"], it["show"], it["name"]
    if len(v) != 2 * it["size"]:
        return False
    if name == "tlsneg.sni":
        return bytes.fromhex(v).decode("latin-1") == show
    if name == "tlsneg.fallback_scsv":
        return show in ("1", "True", "true") and v in ("5600", "005600")
    if name == "tlsneg.downgrade_sentinel":
        return show in ("0", "1") and v == "444f574e475244" + "0" + show
    if name == "tlsneg.grease_family":
        return True  # checked with its grease_value
    if name == "tlsneg.hrr":  # RFC 8446 4.1.3: SHA-256("HelloRetryRequest")
        return (v == HRR_RANDOM) == (show in ("1", "True", "true"))
    return int(v, 16) == int(show, 0)


def check_message(frame, own, msg, record_rule):
    """Problems with one tlsneg message's wire items."""
    problems = []
    tied = [it for it in msg if it["name"] in WIRE and it["size"] > 0]
    family_of = {}
    for i, it in enumerate(msg):
        if it["name"] == "tlsneg.grease_value":
            nxt = msg[i + 1] if i + 1 < len(msg) else None
            if not nxt or nxt["name"] != "tlsneg.grease_family":
                problems.append(f"frame {frame}: grease_value at {it['pos']} without its family")
                continue
            if (nxt["pos"], nxt["size"], nxt["value"]) != (it["pos"], it["size"], it["value"]):
                problems.append(f"frame {frame}: grease_family not on its value's bytes: {nxt} {it}")
            family_of[id(it)] = nxt["show"]
            if not it["show"] or nxt["show"] not in it.get("showname", nxt["show"]):
                pass
    for it in msg:
        name = it["name"]
        if name not in WIRE:
            continue
        # PDML shows a boolean as 0/1 in Wireshark 4.0, False/True from 4.4 on.
        must = name != "tlsneg.record_version" and not (
            name == "tlsneg.fallback_scsv" and it["show"] in ("0", "False", "false"))
        if name == "tlsneg.record_version":
            must = record_rule == "all" or (record_rule == "sslv2" and it["show"] != "2")
            if record_rule == "sslv2" and it["show"] == "2" and it["size"]:
                problems.append(f"frame {frame}: SSLv2 record version 0x0002 is not in the bytes, "
                                f"yet tied: {it}")
        if it["size"] == 0:
            if must:
                problems.append(f"frame {frame}: {name} = {it['show']} is generated, not tied")
            continue
        if not reads_as(it):
            problems.append(f"frame {frame}: {name}: bytes {it['value']} do not read as {it['show']}")
        if name == "tlsneg.downgrade_sentinel":
            rnd = [o for o in own if own_name(o["name"]) == "handshake.random" and o["size"] == 32
                   and o["pos"] + 24 == it["pos"] and o["value"][48:] == it["value"]]
            if len(rnd) != 1:
                problems.append(f"frame {frame}: sentinel at {it['pos']} is not the last 8 bytes "
                                f"of tshark's handshake.random")
            continue
        if name == "tlsneg.grease_family":
            continue
        want = GREASE_OWN.get(family_of.get(id(it)), set()) if name == "tlsneg.grease_value" \
            else OWN[name]
        same = [o for o in own if own_name(o["name"]) in want and o["pos"] == it["pos"]
                and o["size"] == it["size"] and o["value"] == it["value"]]
        if not same:
            near = [o for o in own if o["pos"] == it["pos"]]
            problems.append(f"frame {frame}: {name} {it['show']} at pos {it['pos']} size "
                            f"{it['size']} value {it['value']}: no tshark field {sorted(want)} "
                            f"there (at that pos: {[(o['name'], o['size'], o['value']) for o in near]})")
    return problems, len(tied)


def wire_items(pkts):
    return [(frame, [[(it["name"], it["pos"], it["size"], it["value"], it["show"]) for it in m
                      if it["name"] in WIRE] for m in msgs]) for frame, _, msgs in pkts]


def check_capture(box, res, path, record_rule):
    name = box.add_capture(os.path.join(ROOT, path))
    args = ["-o", "tcp.try_heuristic_first:TRUE", "-o", "tcp.reassemble_out_of_order:TRUE"]
    by_mode = {}
    for label, extra in (("one pass", []), ("-2", ["-2"])):
        if record_rule == "json":
            label += ", -T json -x"
            pkts = packets_json(box.run(["-r", name, "-T", "json", "-x"] + extra + args).stdout)
            record_rule = "json"
        else:
            pkts = packets(box.run(["-r", name, "-T", "pdml"] + extra + args).stdout)
        by_mode[label] = pkts
        problems, ntied, nmsgs = [], 0, 0
        for frame, own, msgs in pkts:
            for msg in msgs:
                if not any(it["name"] == "tlsneg.legacy_version" for it in msg):
                    continue  # an alert
                nmsgs += 1
                p, n = check_message(frame, own, msg, record_rule)
                problems += p
                ntied += n
        res.check(nmsgs > 0 and ntied > 0 and not problems,
                  f"{path} ({label}): {ntied} wire items in {nmsgs} hellos sit on tshark's own "
                  "fields' bytes", "\n".join(problems))
        if record_rule in ("some", "json"):
            recs = [it for _, _, msgs in pkts for m in msgs for it in m
                    if it["name"] == "tlsneg.record_version"]
            res.check(any(r["size"] for r in recs) and any(not r["size"] for r in recs),
                      f"{path} ({label}): record_version tied where the record header is in the "
                      "message's data source, generated where the message was reassembled from "
                      "records")
    modes = list(by_mode.values())
    res.check(wire_items(modes[0]) == wire_items(modes[1]),
              f"{path}: -2 ties every item to the same bytes as one pass")


def check_grease_lines(box, res):
    """One line per GREASE value: value and family in its text, no child."""
    name = box.add_capture(os.path.join(ROOT, "pcaps/synth-grease-client.pcap"))
    out = box.run(["-r", name, "-V", "-Y", "tlsneg.grease_count > 0", "-c", "4"]).stdout
    lines = [l.strip() for l in out.splitlines() if "GREASE: 0x" in l or "Found in:" in l]
    res.check(lines and all(l.startswith("GREASE: 0x") and l.endswith(")") for l in lines),
              "-V: each GREASE value is one line that names its family", "\n".join(lines[:12]))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    args = ap.parse_args()
    res = Results()
    box = TsharkBox.from_args(args)
    try:
        for path, rule in CAPTURES:
            check_capture(box, res, path, rule)
        check_grease_lines(box, res)
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
