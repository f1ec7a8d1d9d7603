#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Capture tests: tshark with the fresh tlsneg build against the hand-written
manifests in expect/, in every mode a user runs (README.md here)."""
import argparse
import collections
import glob
import itertools
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

from tests.captures import tsharkbox
from tests.captures.extract_hellos import dissection, first, quic_alerts
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Every public tlsneg field, in the order -T fields asks for them.
FIELDS = ["msg_type", "hrr", "record_version", "legacy_version", "offered_version",
          "offered_max", "selected_version", "negotiated_version", "grease_value",
          "grease_family", "grease_count", "sni", "fallback_scsv", "downgrade_sentinel",
          "group", "key_share_group", "key_share_length", "group_selected", "pq_offered",
          "pq_key_share", "pq_selected", "hello_length", "hello_segments",
          "finding", "alert", "alert_level", "client_hello_frame", "after_peer_frame",
          "retransmission_of", "fallback",
          "fallback.prev_frame", "fallback.retry_frame", "fallback.from", "fallback.to",
          "fallback.cause", "fallback.chain", "server_intolerant", "inconsistent_with",
          "session_frame", "retry_of", "attempts", "failure_other_cause", "aborted_after", "probe",
          "failed_in", "failure", "offered_max_short", "negotiated_short", "below_tls13",
          "scsv_offered", "hrr_frame", "hrr_retry_frame", "hrr_changes"]
UNCHECKED = {"summary"}
# Strings of one value each, spaces included.
TEXTS = {"sni", "fallback.cause", "fallback.chain", "server_intolerant", "attempts",
         "failure_other_cause", "failure", "hrr_changes"}
STRINGS = {"grease_family", "finding", "expert", "offered_max_short", "negotiated_short"} | TEXTS
# Display helpers (docs/fields.md) not listed in manifests: each is checked
# against the checked field it derives from (derived_problems).
DERIVED = {"offered_max_short": "offered_max", "negotiated_short": "negotiated_version",
           "below_tls13": "negotiated_version", "scsv_offered": "fallback_scsv"}
SHORT_NAMES = {0x0002: "SSL 2.0", 0x0300: "SSL 3.0", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1",
               0x0303: "TLS 1.2", 0x0304: "TLS 1.3", 0xfeff: "DTLS 1.0", 0xfefd: "DTLS 1.2",
               0xfefc: "DTLS 1.3", 0x0100: "DTLS 1.0-pre"}
BELOW_13 = {False: {0x0002, 0x0300, 0x0301, 0x0302, 0x0303}, True: {0x0100, 0xfeff, 0xfefd}}
# Order does not matter within a message for these (rules.def order is shown).
UNORDERED = {"finding", "expert"}


def load_rules():
    """expert name -> (finding, group, severity), straight from rules.def."""
    text = open(os.path.join(ROOT, "lib", "analysis", "rules.def"), encoding="utf-8").read()
    rows = re.findall(r'^TLSNEG_RULE\(\s*\w+,\s*"(\w+)",\s*"(\w+)",\s*(\w+),\s*(\w+),',
                      text, re.M)
    return {name: (finding, group, sev) for name, finding, group, sev in rows}


RULES = load_rules()
# epan/proto.h: PI_SEVERITY and PI_GROUP values as PDML shows them.
SEVERITY = {"NOTE": 0x00400000, "WARN": 0x00600000, "ERROR": 0x00800000}
GROUP = {"MALFORMED": 0x07000000, "PROTOCOL": 0x09000000, "SECURITY": 0x0a000000,
         "DEPRECATED": 0x0e000000, "RESPONSE_CODE": 0x03000000}


def norm(field, value):
    """One spelling per value: numbers as ints, booleans as 0/1."""
    if field in STRINGS:
        return value
    if value in ("True", "true"):
        return 1
    if value in ("False", "false"):
        return 0
    return int(value, 0)


# later: what a message shows only once the capture has been read (-2, the
# GUI): links back from a failed attempt to what came after it.
# dist: in a frame=* block, fields whose value varies from message to message,
# given as how many messages have each value (`hello_segments 1:361 2:224 -:388`,
# `-` for absent), each read off the bytes.
Block = collections.namedtuple("Block", "frame type count fields line later dist")


def parse_values(key, words):
    if key in TEXTS:
        return [" ".join(words)]
    return [norm(key, v) for v in words]


def add_expert_findings(fields):
    if "expert" in fields:
        # Every expert adds tlsneg.finding with its rule's name.
        fields["finding"] = [RULES[e][0] for e in fields["expert"]]


def load_manifest(path):
    capture, blocks, cur = None, [], None
    for no, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        words = line.split()
        if words[0] == "capture":
            capture = words[1]
        elif words[0] == "decode_as":
            rules = tsharkbox.DECODE_AS.setdefault(tsharkbox.box_name(capture), [])
            if words[1] not in rules:
                rules.append(words[1])
        elif words[0] in ("msg", "alert") and not line[0].isspace():
            attrs = dict(w.split("=", 1) for w in words[1:])
            msg_type = int(attrs["type"]) if words[0] == "msg" else None
            cur = Block(attrs["frame"], msg_type, int(attrs.get("count", 1)), {}, no, {}, {})
            if msg_type is not None:
                cur.fields["msg_type"] = [msg_type]
            blocks.append(cur)
        else:
            if cur is None:
                raise ValueError(f"{path}:{no}: field outside a msg or alert block")
            target = cur.fields
            if words[0] == "later":
                target, words = cur.later, words[1:]
            key = words[0]
            if cur.frame == "*" and words[1:] and all(":" in w for w in words[1:]):
                dist = collections.Counter({v: int(n) for v, n in (w.rsplit(":", 1) for w in words[1:])})
                if sum(dist.values()) != cur.count:
                    raise ValueError(f"{path}:{no}: {key}'s counts add up to {sum(dist.values())}, "
                                     f"not {cur.count}")
                cur.dist[key] = dist
                continue
            target[key] = parse_values(key, words[1:])
            unknown = [e for e in target.get("expert", []) if e not in RULES]
            if unknown:
                raise ValueError(f"{path}:{no}: no such rule {unknown}")
    if capture is None:
        raise ValueError(f"{path}: no capture line")
    for b in blocks:
        add_expert_findings(b.fields)
        sort_unordered(b.fields)
    return capture, blocks


def read_once(blocks):
    """The manifest as a second pass shows it: the later values added."""
    out = []
    for b in blocks:
        fields = {k: list(v) for k, v in b.fields.items()}
        for k, v in b.later.items():
            fields[k] = fields.get(k, []) + v
        add_expert_findings(fields)
        out.append(b._replace(fields=sort_unordered(fields)))
    return out


def resolve_capture(name):
    return os.path.join(ROOT, name)


def add_value(fields, name, show):
    """Record one tlsneg field; an expert info counts under "expert"."""
    key = name[len("tlsneg."):]
    if key.startswith("expert."):
        fields.setdefault("expert", []).append(key[len("expert."):])
    elif key not in UNCHECKED:
        fields.setdefault(key, []).append(norm(key, show))


def sort_unordered(fields):
    for key in UNORDERED & set(fields):
        fields[key] = sorted(fields[key])
    return fields


def expert_problems(proto):
    """Experts whose severity or group differs from their row in rules.def."""
    problems = []
    for ex in proto.iter("field"):
        if ex.get("name") != "_ws.expert":
            continue
        kids = {f.get("name"): f for f in ex.findall("field")}
        names = [n for n in kids if n.startswith("tlsneg.expert.")]
        for n in names:
            rule = RULES.get(n[len("tlsneg.expert."):])
            sev = int(kids["_ws.expert.severity"].get("show"))
            group = int(kids["_ws.expert.group"].get("show"))
            if rule is None or (sev, group) != (SEVERITY[rule[2]], GROUP[rule[1]]):
                problems.append(f"{n}: severity {sev:#x} group {group:#x}, rule {rule}")
    return problems


def messages_from_pdml(text, problems=None):
    """[(frame, {field: [values]})] for every tlsneg item, in order."""
    msgs = []
    for packet in ET.fromstring(text).iter("packet"):
        frame = None
        for proto in packet.findall("proto"):
            if proto.get("name") == "geninfo":
                frame = int(proto.find("field[@name='num']").get("show"))
            if proto.get("name") != "tlsneg":
                continue
            fields = collections.OrderedDict()
            for f in proto.iter("field"):
                name = f.get("name", "")
                if name.startswith("tlsneg."):
                    add_value(fields, name, f.get("show"))
            if problems is not None:
                problems.extend(f"frame {frame}: {p}" for p in expert_problems(proto))
            msgs.append((frame, sort_unordered(dict(fields))))
    return msgs


def derived_problems(got):
    """The display helpers against the fields they derive from: short names
    of the RFC versions (and drafts: TLS 1.3-dNN, DTLS 1.3-dNN), below 1.3 by
    family (a DTLS hello's legacy_version is 0xfeff, 0xfefd or 0x0100), the
    SCSV mark only when offered."""
    dtls = bool(set(got.get("legacy_version", [])) & {0xfeff, 0xfefd, 0x0100})

    def short(v):
        if (v >> 8) == 0x7f:
            return f"{'DTLS' if dtls else 'TLS'} 1.3-d{v & 0xff}"
        return SHORT_NAMES.get(v)
    want = {}
    for key in ("offered_max_short", "negotiated_short"):
        base = got.get(DERIVED[key])
        want[key] = [short(base[0])] if base and short(base[0]) else got.get(key) if base else None
    neg = got.get("negotiated_version")
    want["below_tls13"] = [int(neg[0] in BELOW_13[dtls])] if neg else None
    want["scsv_offered"] = [1] if got.get("fallback_scsv") == [1] else None
    return [f"{k}: expected {want[k]} (from {DERIVED[k]}), got {got.get(k)}"
            for k in DERIVED if want[k] != got.get(k)]


def diff_message(block, got):
    problems = derived_problems(got)
    got = {k: v for k, v in got.items() if k not in DERIVED}
    for key in sorted(set(block.fields) | set(got)):
        want, have = block.fields.get(key), got.get(key)
        if want != have:
            problems.append(f"{key}: expected {want}, got {have}")
    return problems


def compare_manifest(blocks, msgs):
    """Problems found matching tshark's messages against the manifest."""
    problems = []
    specific = [b for b in blocks if b.frame != "*"]
    wildcard = [b for b in blocks if b.frame == "*"]
    by_frame = collections.defaultdict(list)
    for b in specific:
        by_frame[int(b.frame)].append(b)
    seen = collections.defaultdict(int)
    rest = 0
    got_dist = collections.defaultdict(collections.Counter)
    for frame, got in msgs:
        idx = seen[frame]
        seen[frame] += 1
        if frame in by_frame:
            if idx >= len(by_frame[frame]):
                problems.append(f"frame {frame}: unexpected message #{idx + 1}: {got}")
                continue
            b = by_frame[frame][idx]
        elif wildcard:
            b = wildcard[0]
            rest += 1
            for key in b.dist:
                v = got.get(key)
                got_dist[key][" ".join(map(str, v)) if v else "-"] += 1
            got = {k: v for k, v in got.items() if k not in b.dist}
        else:
            problems.append(f"frame {frame}: message not in the manifest: {got}")
            continue
        for p in diff_message(b, got):
            problems.append(f"frame {frame} (manifest line {b.line}): {p}")
    for frame, bs in by_frame.items():
        if seen[frame] < len(bs):
            problems.append(f"frame {frame}: {len(bs) - seen[frame]} expected message(s) missing")
    if wildcard and rest != wildcard[0].count:
        problems.append(f"frame=*: expected {wildcard[0].count} messages, got {rest}")
    for key, want in (wildcard[0].dist.items() if wildcard else ()):
        if got_dist[key] != want:
            problems.append(f"frame=*: {key}: expected {dict(want)}, got {dict(got_dist[key])}")
    return problems


def per_frame(msgs):
    """Aggregate messages per frame the way -T fields does: field -> values in order."""
    frames = collections.OrderedDict()
    for frame, fields in msgs:
        agg = frames.setdefault(frame, collections.defaultdict(list))
        for k, v in fields.items():
            if k != "expert":  # an expert info is not a -e field
                agg[k].extend(v)
    for agg in frames.values():
        sort_unordered(agg)
    return frames


def fields_output(box, name):
    args = ["-r", name, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
            "-e", "frame.number"] + [x for f in FIELDS for x in ("-e", "tlsneg." + f)]
    frames = collections.OrderedDict()
    for line in box.run(args).stdout.splitlines():
        cols = line.split("\t")
        values = {}
        for f, col in zip(FIELDS, cols[1:]):
            if col:
                values[f] = [norm(f, box.field_text(v)) for v in col.split("|")]
        if values:
            frames[int(cols[0])] = sort_unordered(values)
    return frames


def flatten(node, fields):
    """tlsneg values under node, depth first (subtrees are nested objects)."""
    for k, vals in node.items():
        for v in vals:
            if isinstance(v, dict):
                flatten(v, fields)
            elif k.startswith("tlsneg."):
                for x in (v if isinstance(v, list) else [v]):
                    add_value(fields, k, x)


def json_messages(box, name):
    def pairs(items):
        d = collections.defaultdict(list)
        for k, v in items:
            d[k].append(v)
        return d

    out = box.run(["-r", name, "-T", "json", "-J", "tlsneg frame"]).stdout
    msgs = []
    for pkt in json.loads(out, object_pairs_hook=pairs):
        layers = pkt["_source"][0]["layers"][0]
        frame = int(layers["frame"][0]["frame.number"][0])
        for proto in layers.get("tlsneg", []):
            fields = {}
            flatten(proto, fields)
            msgs.append((frame, sort_unordered(fields)))
    return msgs


# RFC 8446 6 and the TLS Alerts registry: the names a failure note uses.
ALERT_NAMES = {0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac",
               21: "decryption_failed", 22: "record_overflow", 30: "decompression_failure",
               40: "handshake_failure", 41: "no_certificate", 42: "bad_certificate",
               43: "unsupported_certificate", 44: "certificate_revoked",
               45: "certificate_expired", 46: "certificate_unknown", 47: "illegal_parameter",
               48: "unknown_ca", 49: "access_denied", 50: "decode_error", 51: "decrypt_error",
               60: "export_restriction", 70: "protocol_version", 71: "insufficient_security",
               80: "internal_error", 86: "inappropriate_fallback", 90: "user_canceled",
               100: "no_renegotiation", 109: "missing_extension", 110: "unsupported_extension",
               112: "unrecognized_name", 116: "certificate_required",
               120: "no_application_protocol"}
# Checked against the bytes by check_failures once read (-2), on every
# failed attempt; listed in a manifest only where one pass shows them too: an
# attempt the server ended before its ClientHello was complete is known to
# have failed when that ClientHello is.
FAILURE_FIELDS = ("failed_in", "failure", "fallback.failed_in")
# Checked only against the bytes (check_failures), in both passes, never
# listed in a manifest: a retry's link to the frame its attempt failed in.
BYTES_ONLY = ("fallback.failed_in",)


def without(msgs, keys):
    return [(f, {k: v for k, v in m.items() if k not in keys}) for f, m in msgs]


# RFC 8446 4.1.3: the random that makes a ServerHello a HelloRetryRequest.
HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"


def check_failures(box, res, label, name, path):
    """Every failed attempt's ClientHello, once read (-2), names the frame
    that made it fail and how: that frame, read with tshark's own tcp.*,
    udp.*, tls.*, dtls.* and quic.* fields, is in the hello's TCP stream (UDP
    stream for DTLS and QUIC), and is the first TCP reset, FIN or fatal alert
    there after it (a QUIC CONNECTION_CLOSE's alert has no level and is
    fatal: extract_hellos.quic_alerts),
    or the server's first one while the hello was in flight (after its first
    segment, tcp.segment); an alert before any ServerHello is "alert NAME
    (N)", one from the client after it "the client aborted with alert NAME
    (N)"."""
    cols = ["frame.number", "tcp.stream", "udp.stream", "tlsneg.failed_in", "tlsneg.failure"]
    notes = []
    out = box.run(["-r", name, "-2", "-Y", "tlsneg.failed_in", "-T", "fields", "-E",
                   "occurrence=f"] + [x for c in cols for x in ("-e", c)]).stdout
    for line in out.splitlines():
        frame, tcp, udp, failed_in, text = line.split("\t")
        notes.append((int(frame), f"tcp {tcp}" if tcp else f"udp {udp}", int(failed_in), text))
    if not notes:
        return
    wire = ["frame.number", "tcp.stream", "udp.stream", "tcp.flags.reset", "tcp.flags.fin",
            "tls.alert_message.level", "tls.alert_message.desc", "tls.handshake.type",
            "tls.handshake.random", "dtls.alert_message.level", "dtls.alert_message.desc",
            "dtls.handshake.type", "dtls.handshake.random", "tcp.segment", "ip.src", "ipv6.src"]
    rows = []
    # The TLS alerts of QUIC CONNECTION_CLOSE frames, by frame (their
    # Initial packets: tshark's JSON says which packet holds which frame).
    quic = {}
    for pkt in dissection(path, box.tshark):
        layers = pkt["_source"][0]["layers"][0]
        found = [a for q in layers.get("quic", []) for a in quic_alerts(q)]
        if found:
            quic[int(first(first(layers, "frame"), "frame.number"))] = found
    out = box.run(["-r", name, "-Y", "tcp.flags.reset == 1 || tcp.flags.fin == 1 || "
                   "tls.alert_message || tls.handshake.type || dtls.alert_message || "
                   "dtls.handshake.type || quic.cc.error_code", "-T", "fields", "-E",
                   "occurrence=a", "-E", "aggregator=,"] + [x for c in wire for x in ("-e", c)]
                  ).stdout
    for line in out.splitlines():
        r = dict(zip(wire, line.split("\t")))
        # One stream key for both transports; a DTLS record's fields as its
        # TLS counterpart's.
        r["stream"] = f"tcp {r['tcp.stream']}" if r["tcp.stream"] else f"udp {r['udp.stream']}"
        for k in ("alert_message.level", "alert_message.desc", "handshake.type",
                  "handshake.random"):
            r["tls." + k] = ",".join(x for x in (r["tls." + k], r["dtls." + k]) if x)
        rows.append(r)
    def sender(r):
        return r["ip.src"] or r["ipv6.src"]

    def expected(hello, stream):
        """(frame, failure text) the bytes show for the attempt of ClientHello hello."""
        h = next((r for r in rows if int(r["frame.number"]) == hello), None)
        segs = [int(x) for x in (h["tcp.segment"] if h else "").split(",") if x]
        start = min(segs) if segs else hello
        # The server's endings while the hello was in flight, then all after it.
        during = [r for r in rows if r["stream"] == stream and
                  start < int(r["frame.number"]) < hello and sender(r) != sender(h)]
        after = during + [r for r in rows
                          if r["stream"] == stream and int(r["frame.number"]) > hello]
        answered = False
        for r in after:
            types = [t for t in r["tls.handshake.type"].split(",") if t]
            levels = [l for l in r["tls.alert_message.level"].split(",") if l]
            descs = [d for d in r["tls.alert_message.desc"].split(",") if d]
            f = int(r["frame.number"])
            fatal = [int(d) for l, d in zip(levels, descs) if l == "2"] + quic.get(f, [])
            if fatal:
                n = fatal[0]
                how = "the client aborted with alert" if answered else "alert"
                return (f, f"failed: {how} {ALERT_NAMES.get(n, 'unknown')} ({n}), frame {f}")
            if "2" in types and HRR_RANDOM not in r["tls.handshake.random"].replace(":", ""):
                answered = True  # a ServerHello; a HelloRetryRequest answers nothing yet
                continue
            if answered:
                continue
            if r["tcp.flags.reset"] in ("1", "True"):
                return (f, f"failed: TCP reset, frame {f}")
            if r["tcp.flags.fin"] in ("1", "True"):
                return (f, f"failed: connection closed (FIN), frame {f}")
        return None

    problems = []
    for hello, stream, failed_in, text in notes:
        expect = expected(hello, stream)
        if expect != (failed_in, text):
            problems.append(f"frame {hello}: tlsneg says {failed_in} {text!r}, the bytes {expect}")
    # A fallback retry's Failure line names and links the frame where the
    # attempt it retries failed (tlsneg.fallback.failed_in), in one pass too.
    streams = {int(r["frame.number"]): r["stream"] for r in rows}
    retries = 0
    for args in ([], ["-2"]):
        out = box.run(["-r", name, "-Y", "tlsneg.fallback.prev_frame", "-T", "fields", "-E",
                       "occurrence=a", "-E", "aggregator=,"] + args +
                      [x for c in ("frame.number", "tlsneg.fallback.prev_frame",
                                   "tlsneg.fallback.failed_in") for x in ("-e", c)]).stdout
        for line in out.splitlines():
            frame, prevs, fails = line.split("\t")
            for prev, fail in itertools.zip_longest(prevs.split(","), fails.split(",") if fails else []):
                retries += 1
                expect = expected(int(prev), streams.get(int(prev)))
                if (int(fail) if fail else None) != (expect[0] if expect else None):
                    problems.append(f"frame {frame} {args}: the retry of frame {prev} says it "
                                    f"failed in {fail}, the bytes {expect}")
    res.check(not problems, f"{label}: each of {len(notes)} failed attempts names the frame and "
              f"the way it failed, as the bytes show, and so do {retries // 2} fallback retries "
              "(one pass and -2)", "\n".join(problems))


def check_capture(box, res, manifest, sweep=False):
    """Every mode; sweep: only one pass and two passes against the manifest
    (the sanitizer build's sweep of the plugin over every capture)."""
    capture, blocks = load_manifest(manifest)
    path = resolve_capture(capture)
    label = capture
    if not os.path.exists(path):
        res.check(False, f"{label}: capture exists", path)
        return
    name = box.add_capture(path)
    nitems = sum(b.count for b in blocks)
    nmsgs = sum(b.count for b in blocks if b.type is not None)

    severity_problems = []
    one = without(messages_from_pdml(box.run(["-r", name, "-T", "pdml"]).stdout,
                                     severity_problems), BYTES_ONLY)
    res.check(not (p := compare_manifest(blocks, one)), f"{label}: one pass matches manifest",
              "\n".join(p))
    res.check(not severity_problems, f"{label}: every expert has its rule's group and severity",
              "\n".join(severity_problems))
    two = [(f, {k: v for k, v in m.items() if k not in FAILURE_FIELDS})
           for f, m in messages_from_pdml(box.run(["-r", name, "-2", "-T", "pdml"]).stdout)]
    check_failures(box, res, label, name, path)
    once = [b._replace(fields={k: v for k, v in b.fields.items() if k not in FAILURE_FIELDS})
            for b in read_once(blocks)]
    res.check(not (p := compare_manifest(once, two)),
              f"{label}: -2 matches the manifest, links back included", "\n".join(p))
    if sweep:
        return
    want_frames = per_frame(one)
    got_frames = fields_output(box, name)
    res.check({k: dict(v) for k, v in want_frames.items()} == got_frames,
              f"{label}: -T fields without -Y gives the same values",
              f"pdml {list(want_frames.items())[:2]}\nfields {list(got_frames.items())[:2]}")
    res.check(without(json_messages(box, name), BYTES_ONLY) == one,
              f"{label}: -T json gives the same messages")
    filtered = box.run(["-r", name, "-Y", "tlsneg", "-T", "fields", "-e", "frame.number"]).stdout.split()
    res.check([int(x) for x in filtered] == list(want_frames),
              f"{label}: -Y tlsneg shows exactly the frames with hellos",
              f"{filtered[:10]} vs {list(want_frames)[:10]}")
    verbose = box.run(["-r", name, "-V"]).stdout
    res.check(verbose.count("\nTLS Version Negotiation: ") == nitems,
              f"{label}: -V shows {nitems} tlsneg trees")
    stat = box.run(["-r", name, "-q", "-z", "io,stat,0,COUNT(tlsneg.msg_type)tlsneg.msg_type"]).stdout
    m = re.search(r"\|\s*[\d.]+\s*<>\s*(?:End|[\d.]+)\s*\|\s*(\d+)\s*\|", stat)
    res.check(m is not None and int(m.group(1)) == nmsgs,
              f"{label}: -q -z io,stat counts {nmsgs} messages", stat[-600:])
    check_expert_stat(box, res, label, name, blocks)


def check_expert_stat(box, res, label, name, blocks):
    """tshark -z expert counts every tlsneg expert the manifest expects."""
    want = sum(b.count * len(b.fields.get("expert", [])) for b in blocks)
    out = box.run(["-r", name, "-q", "-z", "expert"]).stdout
    # Only TLSNEG rows count. Per-version note: 4.4 and later add expert infos
    # of their own to hellos (TLS, Deprecated: "This legacy_version field MUST
    # be ignored. The supported_versions extension is present and MUST be used
    # instead."; "Vector length 512 is too large" on a broken extension).
    got = sum(int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+.*?\s+TLSNEG\s", out, re.M))
    res.check(got == want, f"{label}: -z expert counts {want} tlsneg findings", out[-800:])


def check_field_reference(box, res):
    """docs/fields.md lists exactly the fields the plugin registers, docs/rules.md
    exactly its expert infos and every preference."""
    registered = {l.split("\t")[2] for l in box.run(["-G", "fields"]).stdout.splitlines()
                  if l.startswith("F\t") and l.split("\t")[4:5] == ["tlsneg"]}
    experts = {f for f in registered if f.startswith("tlsneg.expert.")}
    prefs = {l.split(":")[0].lstrip("#") for l in box.run(["-G", "defaultprefs"]).stdout.splitlines()
             if l.startswith("#tlsneg.")}

    def rows(doc):
        text = open(os.path.join(ROOT, "docs", doc), encoding="utf-8").read()
        return set(re.findall(r"^\| `(tlsneg\.[a-z0-9_.]+)` \|", text, re.M))

    fields, rules = rows("fields.md"), rows("rules.md")
    res.check(prefs and prefs <= rules, "docs/rules.md documents every tlsneg preference",
              f"undocumented: {sorted(prefs - rules)}")
    res.check(experts and experts == rules - prefs,
              "docs/rules.md lists every registered expert info and no other",
              f"registered only: {sorted(experts - rules)}\n"
              f"documented only: {sorted(rules - prefs - experts)}")
    res.check(registered - experts and registered - experts == fields,
              "docs/fields.md lists every registered field and no other",
              f"registered only: {sorted(registered - experts - fields)}\n"
              f"documented only: {sorted(fields - (registered - experts))}")


# The fields the postdissector reads (watched_fields in plugin/tlsneg-tree.c), as
# each Wireshark version names them: a renamed field would silently hide
# messages from tlsneg.
WATCHED_FIELDS = ["tls.record.version", "tls.handshake.type", "dtls.record.version",
                  "dtls.handshake.type", "dtls.fragments", "tls.alert_message.desc",
                  "dtls.alert_message.desc", "tcp.flags", "tcp.segment", "tls.handshake.fragment",
                  "dtls.fragment", "quic.crypto.fragment", "quic.header_form",
                  "quic.long.packet_type", "quic.long.packet_type_v2", "quic.cc.error_code"]


def check_watched_fields(box, res):
    rows = [l.split("\t") for l in box.run(["-G", "fields"]).stdout.splitlines()
            if l.startswith("F\t")]
    names = {r[2] for r in rows}
    missing = [f for f in WATCHED_FIELDS if f not in names]
    res.check(not missing, f"Wireshark {box.ws_version} has every field tlsneg reads", f"missing: {missing}")
    # A QUIC error code is a 62-bit varint: the plugin reads it as a 64-bit
    # integer (tlsneg_fi_uint64), which Wireshark allows on FT_UINT40 to
    # FT_UINT64 only.
    types = {r[3] for r in rows if r[2] == "quic.cc.error_code"}
    res.check(types == {"FT_UINT64"},
              f"Wireshark {box.ws_version}: quic.cc.error_code is FT_UINT64", f"types: {types}")
    # Per-version note: 4.0 names the SSLv2 ClientHello's handshake type
    # tls.handshake.type (a second field of that name); 4.4 renamed it
    # tls.ssl2.handshake.type (ws-compat.h, TLSNEG_FIELD_SSL2_HANDSHAKE_TYPE).
    renamed = tuple(int(x) for x in box.ws_version.split(".")) >= (4, 4)
    res.check(("tls.ssl2.handshake.type" in names) == renamed,
              f"Wireshark {box.ws_version}: the SSLv2 handshake type is "
              + ("tls.ssl2.handshake.type" if renamed else "tls.handshake.type"))


def check_family_names(box, res):
    """One name table for every family (issue 26, item 8): a DTLS 1.3 draft is
    named DTLS in a custom column (the field's own name), a DTLS message's
    rules cite RFC 9147 or RFC 6347 where DTLS has the rule, a PSK mode's
    GREASE is one byte. Expected values read off tshark's own fields."""
    nss = box.add_capture(resolve_capture("pcaps/dtls13draft-nss-client.pcap"))
    sv = box.run(["-r", nss, "-Y", "frame.number == 1", "-T", "fields",
                  "-e", "dtls.handshake.extensions.supported_version"]).stdout.split()
    cols = box.run(["-r", nss, "-Y", "frame.number == 1", "-o",
                    'gui.column.format:"Highest","%Cus:tlsneg.offered_max"']).stdout.strip()
    res.check(sv == ["0x7f2b,0xfefd"] and cols == "DTLS 1.3 draft-43 (0x7f2b)",
              "dtls13draft-nss-client.pcap: the offered_max column names 0x7f2b in DTLS DTLS 1.3 "
              "draft-43", f"tshark: {sv}; column: {cols!r}")
    syn = box.add_capture(resolve_capture("pcaps/synth-dtls13.pcap"))
    out = box.run(["-r", syn, "-2", "-Y", "frame.number == 1 || frame.number == 3", "-T", "fields",
                   "-e", "dtls.handshake.version", "-e", "dtls.record.version",
                   "-e", "_ws.expert.message"]).stdout.splitlines()
    want = [("0xfefc", "[RFC 9147 5.3, 5.4]"), ("0xfefd", "[RFC 9147 4; RFC 6347 4.1]")]
    res.check(len(out) == 2 and all(l.startswith(v) and r in l and "RFC 8446" not in l
                                    for l, (v, r) in zip(out, want)),
              "synth-dtls13.pcap: DTLS rules cite RFC 9147 and RFC 6347, not RFC 8446",
              "\n".join(out))
    gr = box.add_capture(resolve_capture("pcaps/synth-grease-client.pcap"))
    modes = box.run(["-r", gr, "-Y", "frame.number == 4", "-T", "fields",
                     "-e", "tls.extension.psk_ke_mode"]).stdout.split()
    tree = box.run(["-r", gr, "-Y", "frame.number == 4", "-O", "tlsneg", "-V"]).stdout
    res.check(modes == ["11,1"] and "GREASE: 0x0b (psk_mode)" in tree and "0x000b" not in tree,
              "synth-grease-client.pcap: the GREASE PSK mode 11 is shown in one byte, 0x0b",
              f"tshark: {modes}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    ap.add_argument("--sweep", action="store_true",
                    help="one pass and two passes only (the sanitizer build's sweep)")
    ap.add_argument("manifests", nargs="*", help="default: every expect/*.expect")
    args = ap.parse_args()
    manifests = args.manifests or sorted(glob.glob(os.path.join(HERE, "expect", "*.expect")))
    res = Results()
    box = TsharkBox.from_args(args)
    try:
        res.check(True, f"tshark loads exactly {box.plugin}")
        check_field_reference(box, res)
        check_watched_fields(box, res)
        check_family_names(box, res)
        for m in manifests:
            capture, _ = load_manifest(m)
            if not res.check(os.path.isfile(resolve_capture(capture)),
                             f"{os.path.basename(m)}: its capture {capture} exists"):
                continue
            check_capture(box, res, m, args.sweep)
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
