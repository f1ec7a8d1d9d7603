#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Report tests: tshark -z tlsneg,jsonl / report / csv and the stats tree,
checked against the hand-written manifests and against facts read off the
captures (pcaps/README.md), never against tlsneg's own output."""
import argparse
import csv
import glob
import io
import json
import os
import re
import sys

from tests.captures import run, tsharkbox
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

MSG_NAMES = {1: "ClientHello", 2: "ServerHello", 3: "HelloVerifyRequest"}
# The SSL 2.0 hellos, as the manifests' types name them.
SSL2_NAMES = {"SSLv2-compatible ClientHello": "ClientHello", "SSLv2 CLIENT-HELLO": "ClientHello",
              "SSLv2 SERVER-HELLO": "ServerHello"}


def vhex(v):
    return None if v is None else f"0x{v:04x}"


def one(fields, key):
    v = fields.get(key)
    return v[0] if v else None


def findings_of(fields):
    """The tlsneg.finding names of a manifest block's experts (rules.def)."""
    return sorted(run.RULES[e][0] for e in fields.get("expert", []))


def jsonl_problems(blocks, lines):
    """The JSON lines against the manifest: one hello record per message,
    one alert outcome per alert, same values."""
    problems = []
    records = [json.loads(l) for l in lines]
    if not records or records[0] != {"record": "header", "schema": "tlsneg-jsonl", "version": 1,
                                     "records": ["hello", "outcome", "probe"]}:
        problems.append(f"first line is not the schema-1 header: {records[:1]}")
    hellos = [r for r in records if r["record"] == "hello"]
    alerts = [r for r in records if r["record"] == "outcome" and r["outcome"] == "alert"]
    want_hellos, want_alerts = [], []
    for b in blocks:
        if b.frame == "*":
            continue  # wildcard blocks: counted below
        (want_hellos if b.type is not None else want_alerts).append(b)
    wildcard = sum(b.count for b in blocks if b.frame == "*")
    if len(hellos) != len(want_hellos) + wildcard:
        problems.append(f"{len(hellos)} hello records, manifest has {len(want_hellos) + wildcard}")
    by_frame = {}
    for r in hellos:
        by_frame.setdefault(r["frame"], []).append(r)
    for b in want_hellos:
        got = by_frame.get(int(b.frame), [])
        if not got:
            problems.append(f"frame {b.frame}: no hello record")
            continue
        r = got.pop(0)
        f = b.fields
        hrr = one(f, "hrr") == 1
        want = {"msg": "HelloRetryRequest" if hrr else MSG_NAMES[b.type],
                "legacy_version": vhex(one(f, "legacy_version")),
                "findings": findings_of(f), "experts": sorted(f.get("expert", []))}
        have = {"msg": SSL2_NAMES.get(r["msg"], r["msg"]),
                "legacy_version": r["legacy_version"], "findings": sorted(r["findings"]),
                "experts": sorted(r["experts"])}
        if b.type == 1:
            want["offered_max"] = vhex(one(f, "offered_max"))
            want["offered"] = [vhex(v) for v in f["offered_version"]] if "offered_version" in f else None
            want["sni"] = one(f, "sni")
            # A manifest cannot say "present but empty": an empty list reads as absent.
            have.update(offered_max=r["offered_max"], offered=r["offered"] or None, sni=r["sni"])
        elif b.type == 2:
            want["negotiated"] = vhex(one(f, "negotiated_version"))
            have["negotiated"] = r["negotiated"]
        key_exchange(want, have, f, r, b.type)
        if one(f, "retransmission_of"):
            want["retransmission_of"] = one(f, "retransmission_of")
            have["retransmission_of"] = r.get("retransmission_of")
        if want != have:
            problems.append(f"frame {b.frame}: expected {want}, got {have}")
    alert_frames = sorted(int(b.frame) for b in want_alerts)
    if sorted(r["frame"] for r in alerts) != alert_frames:
        problems.append(f"alert outcomes in frames {[r['frame'] for r in alerts]}, manifest {alert_frames}")
    for b in want_alerts:
        r = next((r for r in alerts if r["frame"] == int(b.frame)), None)
        # The level as tshark reads it (the manifest's alert_level); a fatal
        # one ends the handshake, a warning before TLS 1.3 does not, nor do
        # close_notify and user_canceled (RFC 5246 7.2, RFC 8446 6). No
        # capture has a warning after a ServerHello chose TLS 1.3
        # (unit.session makes one).
        level = one(b.fields, "alert_level")
        ends = level != 1 and one(b.fields, "alert") not in (0, 90)
        if r and (r["alert"] != one(b.fields, "alert") or r.get("level") != level or
                  r.get("ends_handshake") != ends or
                  sorted(r["findings"]) != findings_of(b.fields) or
                  sorted(r["experts"]) != sorted(b.fields.get("expert", []))):
            problems.append(f"alert frame {b.frame}: {r}")
    return problems


def key_exchange(want, have, f, r, msg_type):
    """The JSON lines' key-exchange keys against the manifest's tlsneg.group,
    key_share_*, group_selected, pq_*, hello_length and hello_segments."""
    shares = [{"group": vhex(g), "length": n}
              for g, n in zip(f.get("key_share_group", []), f.get("key_share_length", []))]
    want["hello_length"] = one(f, "hello_length")
    want["hello_segments"] = one(f, "hello_segments")
    have.update(hello_length=r.get("hello_length"), hello_segments=r.get("hello_segments"))
    if msg_type == 1:
        want.update(groups=[vhex(g) for g in f.get("group", [])] or None, key_shares=shares or None,
                    pq_offered=bool(one(f, "pq_offered")),
                    pq_key_share=bool(one(f, "pq_key_share")))
        # A manifest cannot say "present but empty": an empty list reads as absent.
        have.update(groups=r.get("groups") or None, key_shares=r.get("key_shares") or None,
                    pq_offered=r.get("pq_offered"), pq_key_share=r.get("pq_key_share"))
    elif msg_type == 2:
        selected = one(f, "group_selected")
        want.update(group_selected=vhex(selected) if selected is not None else None,
                    key_shares=shares or None, pq_selected=bool(one(f, "pq_selected")))
        have.update(group_selected=r.get("group_selected"), key_shares=r.get("key_shares") or None,
                    pq_selected=r.get("pq_selected"))


# Facts read off the captures (pcaps/README.md, tshark's tls.*/tcp.* fields).
REPORT_FACTS = {
    "pcaps/intolerant-rst.pcap": [
        "2 ClientHello, 1 ServerHello/HelloRetryRequest, 0 HelloVerifyRequest, 0 plaintext alerts; "
        "1 servers; 1 fallback retries; 1 servers with a version_intolerance verdict",
        "127.0.0.3:44323 localhost",
        "  offered (highest): TLS 1.3 x1, TLS 1.2 x1",
        "  in force:          TLS 1.2 x1",
        "  2 ClientHello, 1 ServerHello, 0 HelloRetryRequest; failures: 0 alerts, 1 resets, "
        "0 closes before any ServerHello; 1 fallback retries",
        "  VERSION-INTOLERANT: does not tolerate TLS 1.3 in supported_versions (verdict in frame 12)",
        "       1  0x0304 0x0303 0x0302 0x0301",
        "       1  legacy 0x0303",
    ],
    # SSL 2.0 (pcaps/README-synthetic.md): both connections to 192.0.2.20:443, no SNI; the server's
    # SERVER-HELLO puts SSL 2.0 in force, the other connection's ServerHello TLS 1.2; the
    # client's CLIENT-MASTER-KEY is no hello (no server made up from the client's port).
    "pcaps/sslv2-handshake.pcap": [
        "2 ClientHello, 2 ServerHello/HelloRetryRequest, 0 HelloVerifyRequest, 0 plaintext alerts; "
        "1 servers; 0 fallback retries; 0 servers with a version_intolerance verdict",
        "192.0.2.20:443 (no SNI)",
        "  in force:          TLS 1.2 x1, SSL 2.0 x1"],
    # A transient failure (pcaps/README-across-connections.md): frame 4 reset, frame 10's
    # TLS 1.2 retry completed in frame 12, frame 25 puts TLS 1.3 in force for the same client
    # and server.
    "pcaps/fallback-transient-failure.pcap": [
        "3 ClientHello, 2 ServerHello/HelloRetryRequest, 0 HelloVerifyRequest, 0 plaintext alerts; "
        "1 servers; 1 fallback retries; 1 servers with a version_intolerance verdict",
        "  in force:          TLS 1.3 x1, TLS 1.2 x1",
        "  intolerance not consistent: the verdict in frame 12 says it does not tolerate TLS 1.3 "
        "in supported_versions, yet it puts TLS 1.3 in force in frame 25: the version alone does "
        "not make it fail",
    ],
    # IPv6: the server in brackets (RFC 5952 6).
    "pcaps/tls13-ipv6.pcap": ["[2001:db8::3]:44353 localhost"],
    # The server's warning unrecognized_name (frame 6, tls.alert_message.level 1) is no
    # failure: its ServerHello (frame 8) follows, TLS 1.2.
    "pcaps/sni-mismatch-warning.pcap": [
        "1 ClientHello, 1 ServerHello/HelloRetryRequest, 0 HelloVerifyRequest, 1 plaintext alerts; "
        "1 servers; 0 fallback retries; 0 servers with a version_intolerance verdict",
        "none: no fallback, intolerance, downgrade or bad server choice seen",
        "127.0.0.3:44415 other.example",
        "  in force:          TLS 1.2 x1",
        "  1 ClientHello, 1 ServerHello, 0 HelloRetryRequest; failures: 0 alerts, 0 resets, "
        "0 closes before any ServerHello; 0 fallback retries; 1 warning alerts, no failure",
    ],
    "pcaps/tls13-hrr.pcap": [
        "2 ClientHello, 2 ServerHello/HelloRetryRequest, 0 HelloVerifyRequest, 0 plaintext alerts; "
        "1 servers; 0 fallback retries; 0 servers with a version_intolerance verdict",
        "none: no fallback, intolerance, downgrade or bad server choice seen",
        "  2 ClientHello, 1 ServerHello, 1 HelloRetryRequest; failures: 0 alerts, 0 resets, "
        "0 closes before any ServerHello; 0 fallback retries",
    ],
}

# A DTLS or QUIC server is a server of its own, its label says so (tshark: ip.dst, udp.dstport
# and the server_name of the ClientHellos: dtls12-openssl.pcap frames 1 and 3 to
# 127.0.0.3:44305 over DTLS, localhost; quic-go-handshake.pcap frame 5 to 193.167.100.100:443
# over QUIC, server4:443).
REPORT_FACTS["pcaps/dtls12-openssl.pcap"] = ["127.0.0.3:44305 udp/DTLS localhost"]
REPORT_FACTS["pcaps/public/zeek/quic-go-handshake.pcap"] = [
    "193.167.100.100:443 udp/QUIC server4:443"]
# ... and its JSON records say their transport; a TCP one's say none.
JSONL_TRANSPORTS = {"pcaps/dtls12-openssl.pcap": "dtls",
                    "pcaps/public/zeek/quic-go-handshake.pcap": "quic",
                    "pcaps/intolerant-rst.pcap": None}

# Verdict lines that must open as given (frame, server as address:port, SNI, the rule as
# tlsneg.finding names it, its variant beside it as the expert info's filter), read off the
# captures (pcaps/README-handshakes.md, pcaps/README-across-connections.md,
# pcaps/README-synthetic.md): a rejected fallback without a tracked retry, ignored SCSVs
# proven by the sentinel (Java 17) or by an earlier connection.
VERDICT_FACTS = {
    "pcaps/fallback-scsv-rejected.pcap": [
        "frame 6  127.0.0.3:44312 localhost  inappropriate_fallback: "],
    "pcaps/ignored-scsv-java.pcap": [
        "frame 6  127.0.0.3:44347 localhost  ignored_fallback_scsv: "],
    "pcaps/ignored-scsv-java-tls11.pcap": [
        "frame 31  127.0.0.3:44348 localhost  ignored_fallback_scsv: "],
    "pcaps/synth-ignored-scsv-earlier.pcap": [
        "frame 16  192.0.2.20:443 localhost  ignored_fallback_scsv "
        "(tlsneg.expert.ignored_fallback_scsv_earlier): "],
    "pcaps/intolerant-rst-scsv.pcap": [
        "frame 10  127.0.0.3:44329 localhost  fallback_retry (tlsneg.expert.fallback_retry_scsv): ",
        "frame 12  127.0.0.3:44329 localhost  version_intolerance: "],
    "pcaps/downgrade-sentinel-tls11-mitm.pcap": [
        "frame 13  127.0.0.3:44350 localhost  downgrade_sentinel: "],
}

# Key exchange (tests/captures/readoff/pq.json, tshark's tls.handshake.extensions_supported_group
# and _key_share_group): pq-mixed-pool.pcap, four TLS 1.3 connections to 192.0.2.3:44409
# localhost, every ClientHello lists 0x11ec (X25519MLKEM768); ServerHellos select 0x11ec in
# frames 8 and 43, 0x001d (x25519) in frames 26 and 60. pq-hrr-lacks-predicted.pcap: both
# ClientHellos (frames 6, 10) list 0x11ec, the HelloRetryRequest (frame 8) asks for 0x001d, the
# ServerHello (frame 11) selects 0x001d: the only one.
REPORT_FACTS["pcaps/pq-mixed-pool.pcap"] = [
    "  key exchange:      post-quantum x2, classical x2 (ServerHellos); 4 ClientHello offered "
    "post-quantum, 2 answered with a classical group",
    "negotiate post-quantum:",
    "  192.0.2.3:44409 localhost: post-quantum x2, classical x2 (2 after a ClientHello offering "
    "post-quantum)",
    "classical only, although the ClientHello offered post-quantum: none"]
REPORT_FACTS["pcaps/pq-hrr-lacks-predicted.pcap"] = [
    "  2 ClientHello, 1 ServerHello, 1 HelloRetryRequest; failures: 0 alerts, 0 resets, 0 closes "
    "before any ServerHello; 0 fallback retries",
    "negotiate post-quantum: none",
    "classical only, although the ClientHello offered post-quantum:",
    "  192.0.2.3:44407 localhost: post-quantum x0, classical x1 (1 after a ClientHello offering "
    "post-quantum)"]

# HelloRetryRequests explained per server (issue 28), read off tshark's
# tls.handshake.extensions_key_share_group, _key_share_selected_group and
# _supported_group: tls13-hrr.pcap, the ClientHello of frame 4 shares 29 (x25519) only, the
# HelloRetryRequest of frame 6 asks for 23 (secp256r1): not the predicted group.
# pq-hrr-lacks-predicted.pcap: frame 6 shares 0x11ec (X25519MLKEM768) only, frame 8 asks for
# 29 (x25519). pq-hrr-moves-to-pq.pcap: frame 4 lists 0x001d and 0x11ec and shares 29 only
# (classical), frame 6 asks for 0x11ec, a post-quantum hybrid group the client listed.
REPORT_FACTS["pcaps/tls13-hrr.pcap"] = REPORT_FACTS.get("pcaps/tls13-hrr.pcap", []) + [
    "  HelloRetryRequests: 1, asking for secp256r1 x1",
    "    1 lack the group the client predicted with a key share (the server lacks or does not "
    "prefer it: a round trip more)",
    "    0 move the client to post-quantum (it shared only classical groups; the server "
    "prefers a post-quantum one it listed)"]
REPORT_FACTS["pcaps/pq-hrr-lacks-predicted.pcap"].append(
    "  HelloRetryRequests: 1, asking for x25519 x1")
REPORT_FACTS["pcaps/pq-hrr-moves-to-pq.pcap"] = [
    "  HelloRetryRequests: 1, asking for X25519MLKEM768 x1",
    "    0 lack the group the client predicted with a key share (the server lacks or does not "
    "prefer it: a round trip more)",
    "    1 move the client to post-quantum (it shared only classical groups; the server "
    "prefers a post-quantum one it listed)"]

# The scanner captures (pcaps/README-across-connections.md, their manifests): one line per
# probe, no verdict.
# scan-sslscan-tls13.pcap: 16 ClientHellos from 127.0.0.2 to 127.0.0.3 port 44361, the first in
# frame 16 (frame.time_relative 0.009405), the last at 0.024126 (0.015 s later); highest offers
# from SSL 3.0 (frame 16) to TLS 1.3 (frame 39); one hello with 0x5600 (frame 50), answered with
# alert 86 (frame 53); 7 ServerHellos, plaintext alerts (tls.alert_message.desc) in 9 frames; SNI
# 127.0.0.3 in 13 hellos, none in 3: two servers by address, port and SNI.
REPORT_FACTS["pcaps/scan-sslscan-tls13.pcap"] = [
    "127.0.0.2 probed 127.0.0.3:44361 with 16 hellos in 0.015 s, SSL 3.0 to TLS 1.3, SCSV probe "
    "answered with 86 (from frame 16): a scanner",
    "none: no fallback, intolerance, downgrade or bad server choice seen",
    "16 ClientHello, 7 ServerHello/HelloRetryRequest, 0 HelloVerifyRequest, 9 plaintext alerts; "
    "2 servers; 0 fallback retries; 0 servers with a version_intolerance verdict",
]
# scan-testssl-tls12.pcap: 13 ClientHellos, the first in frame 8 (1.691048), the last (frame 114,
# 42.729398) the SCSV probe, answered with alert 86 (frame 115); offers from SSL 3.0 to TLS 1.3.
REPORT_FACTS["pcaps/scan-testssl-tls12.pcap"] = [
    "127.0.0.2 probed 127.0.0.3:44366 with 13 hellos in 41.0 s, SSL 3.0 to TLS 1.3, SCSV probe "
    "answered with 86 (from frame 8): a scanner",
    "none: no fallback, intolerance, downgrade or bad server choice seen",
]
# scan-sslscan-tls12.pcap, the server 127.0.0.3:44362 without SNI (tshark without Decode As,
# -T fields -e tcp.stream -e tcp.flags.reset -e tls.handshake.type
# -e tls.handshake.extensions_server_name -e tls.alert_message.level -e tls.alert_message.desc):
# ClientHellos without SNI in frames 16, 77, 87, 95 (streams 2, 11, 12, 13), ServerHellos in
# 81, 89, 97 (streams 11, 12, 13), none in stream 2. The server's fatal alerts (level 2) on
# those streams: 17 (handshake_failure 40, stream 2, no ServerHello before it) and 82, 90, 98
# (unexpected_message 10, each after its stream's ServerHello): 1 before any ServerHello, 3
# after one. No RST on those streams, no FIN before an alert or ServerHello; a scanner
# (pcaps/README-across-connections.md: a probe, no verdict), so no fallback retry.
REPORT_FACTS["pcaps/scan-sslscan-tls12.pcap"] = [
    "127.0.0.3:44362 (no SNI)",
    "  4 ClientHello, 3 ServerHello, 0 HelloRetryRequest; failures: 1 alerts, 0 resets, 0 closes "
    "before any ServerHello, 3 alerts after a ServerHello; 0 fallback retries",
]
# synth-alerts-after-hello.pcap (pcaps/README-synthetic.md; tshark -T fields -e frame.number
# -e ip.src -e tcp.stream -e udp.stream -e tls.handshake.type -e dtls.handshake.type
# -e tls.handshake.extensions_server_name -e dtls.handshake.extensions_server_name
# -e tls.alert_message.level -e tls.alert_message.desc -e dtls.alert_message.level
# -e dtls.alert_message.desc), one address and port, 192.0.2.20:443. Over UDP (DTLS):
# ClientHellos 27, 29 (after the HelloVerifyRequest 28) and 31, SNI localhost; ServerHello 32;
# the server's fatal alerts 30 (40, no ServerHello before it on its flow) and 34 (10, after
# 32). Over TCP: ClientHello 4 (localhost), ServerHello 6, the server's fatal alert 10 (10);
# on the second stream no ClientHello (the server's ServerHello 18 acknowledges bytes tshark
# never saw), so no SNI, then the server's fatal alert 22 (10). No RST, no FIN before an alert.
REPORT_FACTS["pcaps/synth-alerts-after-hello.pcap"] = [
    "4 ClientHello, 3 ServerHello/HelloRetryRequest, 1 HelloVerifyRequest, 4 plaintext alerts; "
    "3 servers; 0 fallback retries; 0 servers with a version_intolerance verdict",
    "192.0.2.20:443 udp/DTLS localhost",
    "  3 ClientHello, 1 ServerHello, 0 HelloRetryRequest; failures: 1 alerts, 0 resets, 0 closes "
    "before any ServerHello, 1 alerts after a ServerHello; 0 fallback retries",
    "192.0.2.20:443 localhost",
    "  1 ClientHello, 1 ServerHello, 0 HelloRetryRequest; failures: 0 alerts, 0 resets, 0 closes "
    "before any ServerHello, 1 alerts after a ServerHello; 0 fallback retries",
    "192.0.2.20:443 (no SNI)",
    "  0 ClientHello, 1 ServerHello, 0 HelloRetryRequest; failures: 0 alerts, 0 resets, 0 closes "
    "before any ServerHello, 1 alerts after a ServerHello; 0 fallback retries",
]
# scan-nmap-tls12.pcap and scan-nmap-tls13.pcap, one server each (127.0.0.3:44364 and :44363,
# no SNI), read with tshark -T fields -e frame.number -e tcp.stream -e ip.src -e tcp.srcport
# -e tcp.flags.fin -e tcp.flags.reset -e tls.alert_message.level -e tls.alert_message.desc
# -e tls.handshake.type -e tls.handshake.random, per tcp.stream in frame order: tls12, 30
# ClientHellos, 9 ServerHellos, 29 fatal alerts from the server: 21 before any ServerHello on
# their stream with no FIN or RST from the client before them, 8 (decode_error, frames 83, 93,
# 97, 110, 117, 124, 152, 177) after the client's FIN (82, 89, 96, 109, 116, 123, 148, 173),
# each after its stream's ServerHello; no FIN or RST ends a stream before a ServerHello or an
# alert. tls13: 30 ClientHellos, 3 ServerHellos and 4 HelloRetryRequests (the random
# cf21ad74...8339c of RFC 8446 4.1.3), 27 fatal alerts from the server: 20 before any
# ServerHello with no close before them, 7 after the client's FIN (50, 81, 94, 116, 128, 160,
# 179 after 49, 80, 93, 112, 125, 156, 175): 4 of those FINs follow a HelloRetryRequest with no
# ServerHello and end their attempt (closes), 3 follow a ServerHello.
REPORT_FACTS["pcaps/scan-nmap-tls12.pcap"] = [
    "  30 ClientHello, 9 ServerHello, 0 HelloRetryRequest; failures: 21 alerts, 0 resets, 0 "
    "closes before any ServerHello; 0 fallback retries; 8 alerts after the client's close or "
    "reset",
]
REPORT_FACTS["pcaps/scan-nmap-tls13.pcap"] = [
    "  30 ClientHello, 3 ServerHello, 4 HelloRetryRequest; failures: 20 alerts, 0 resets, 4 "
    "closes before any ServerHello; 0 fallback retries; 7 alerts after the client's close or "
    "reset",
]
# ... and an alert's outcome record says the transport of the record it came in: the DTLS
# alerts' (30, 34) "dtls", the TCP ones' (10, 22) none.
JSONL_ALERT_TRANSPORTS = {
    "pcaps/synth-alerts-after-hello.pcap": {10: None, 22: None, 30: "dtls", 34: "dtls"}}
JSONL_PROBES = {
    "pcaps/scan-sslscan-tls13.pcap": {"record": "probe", "frame": 16, "client": "127.0.0.2",
                                      "server": "127.0.0.3", "port": 44361, "hellos": 16,
                                      "seconds": 0.015, "lowest": "0x0300", "highest": "0x0304",
                                      "scsv": 1, "scsv_refused": 1},
}

# fallback-chain.pcap: 4 ClientHellos (1.3, 1.2, 1.1, 1.0) to 127.0.0.3:44331, three answered
# by alert 40, the last by a TLS 1.0 ServerHello (pcaps/README-across-connections.md).
CSV_FACTS = {
    "pcaps/fallback-chain.pcap": {
        "server": "127.0.0.3", "port": "44331", "sni": "localhost", "client_hellos": "4",
        "server_hellos": "1", "hello_retry_requests": "0", "alerts": "3", "resets": "0",
        "closes": "0", "fallbacks": "3",
        "highest_offered": "0x0304:1;0x0303:1;0x0302:1;0x0301:1", "in_force": "0x0301:1",
        "transport": "tcp"},
    # The transport column (REPORT_FACTS above for the bytes).
    "pcaps/dtls12-openssl.pcap": {
        "server": "127.0.0.3", "port": "44305", "sni": "localhost", "transport": "dtls"},
    "pcaps/public/zeek/quic-go-handshake.pcap": {
        "server": "193.167.100.100", "port": "443", "sni": "server4:443", "transport": "quic"},
    # intolerant-rst-scsv.pcap: the retry (frame 10) carries 0x5600 and follows a RST; the
    # server completes it: findings by their tlsneg.finding names, variants counted in.
    "pcaps/intolerant-rst-scsv.pcap": {
        "server": "127.0.0.3", "port": "44329",
        "findings": "fallback_scsv:1;fallback_retry:1;version_intolerance:1"},
    # The key-exchange columns at the end of the row (REPORT_FACTS above for the bytes).
    "pcaps/pq-mixed-pool.pcap": {
        "server": "192.0.2.3", "port": "44409", "server_hellos": "4", "key_exchange_pq": "2",
        "key_exchange_classical": "2", "pq_offered": "4", "classical_while_pq_offered": "2"},
    "pcaps/pq-hrr-lacks-predicted.pcap": {
        "server": "192.0.2.3", "port": "44407", "hello_retry_requests": "1",
        "key_exchange_pq": "0", "key_exchange_classical": "1", "pq_offered": "2",
        "classical_while_pq_offered": "1", "hrr_groups": "0x001d:1", "hrr_lacks_predicted": "1",
        "hrr_moves_to_pq": "0"},
    # HelloRetryRequests per server (REPORT_FACTS above for the bytes).
    "pcaps/pq-hrr-moves-to-pq.pcap": {
        "server": "192.0.2.3", "port": "44408", "hello_retry_requests": "1",
        "hrr_groups": "0x11ec:1", "hrr_lacks_predicted": "0", "hrr_moves_to_pq": "1"},
    "pcaps/tls13-hrr.pcap": {
        "server": "127.0.0.3", "port": "44304", "hello_retry_requests": "1",
        "hrr_groups": "0x0017:1", "hrr_lacks_predicted": "1", "hrr_moves_to_pq": "0"},
    # sni-mismatch-warning.pcap: one plaintext alert from the server (frame 6, a warning),
    # counted; one ServerHello, no reset, no close before it.
    "pcaps/sni-mismatch-warning.pcap": {
        "server": "127.0.0.3", "port": "44415", "sni": "other.example", "client_hellos": "1",
        "server_hellos": "1", "alerts": "1", "resets": "0", "closes": "0", "fallbacks": "0"},
    # TLS 1.3 with x25519 only (tls13-curl.pcap: group_selected 0x001d in frame 6).
    "pcaps/tls13-curl.pcap": {
        "key_exchange_pq": "0", "key_exchange_classical": "1", "pq_offered": "0",
        "classical_while_pq_offered": "0"},
}
# The CSV's header: the columns of version 1, the new ones at the end (docs/output-formats.md).
CSV_HEADER = ("server,port,sni,client_hellos,server_hellos,hello_retry_requests,alerts,resets,"
              "closes,fallbacks,intolerant_of,highest_offered,in_force,findings,key_exchange_pq,"
              "key_exchange_classical,pq_offered,classical_while_pq_offered,hrr_groups,"
              "hrr_lacks_predicted,hrr_moves_to_pq,transport")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    args = ap.parse_args()
    res = Results()
    box = TsharkBox.from_args(args)
    try:
        p = box.run(["-z", "help"], check=False)
        helps = (p.stdout + p.stderr).split()
        res.check(all(x in helps for x in ("tlsneg,report", "tlsneg,jsonl", "tlsneg,csv",
                                           "tlsneg_tree,tree")),
                  "tshark -z help lists tlsneg,report, tlsneg,jsonl, tlsneg,csv, tlsneg_tree,tree")
        for m in sorted(glob.glob(os.path.join(run.HERE, "expect", "*.expect"))):
            capture, blocks = run.load_manifest(m)
            path = run.resolve_capture(capture)
            if not os.path.exists(path):
                continue
            name = box.add_capture(path)
            lines = box.run(["-r", name, "-q", "-z", "tlsneg,jsonl"]).stdout.splitlines()
            res.check(not (p := jsonl_problems(blocks, lines)),
                      f"{capture}: -z tlsneg,jsonl parses back to the manifest", "\n".join(p))
        for capture, want in JSONL_PROBES.items():
            name = box.add_capture(run.resolve_capture(capture))
            lines = box.run(["-r", name, "-q", "-z", "tlsneg,jsonl"]).stdout.splitlines()
            probes = [json.loads(l) for l in lines if '"record":"probe"' in l]
            res.check(probes == [want], f"{capture}: -z tlsneg,jsonl names the probe once, at the end",
                      f"{probes}")
        for capture, want in JSONL_TRANSPORTS.items():
            name = box.add_capture(run.resolve_capture(capture))
            lines = box.run(["-r", name, "-q", "-z", "tlsneg,jsonl"]).stdout.splitlines()
            have = {json.loads(l).get("transport") for l in lines
                    if '"record":"hello"' in l or '"record":"outcome"' in l}
            res.check(have == {want}, f"{capture}: every JSON record says transport {want}",
                      f"{have}")
        # synth-alerts-after-hello.pcap frame 22, the server's alert after the ServerHello
        # (18) of a connection with no ClientHello (REPORT_FACTS above): written as it
        # comes, in frame order (between frame 18's records and frame 27's hello).
        name = box.add_capture(run.resolve_capture("pcaps/synth-alerts-after-hello.pcap"))
        lines = box.run(["-r", name, "-q", "-z", "tlsneg,jsonl"]).stdout.splitlines()
        frames = [r["frame"] for r in map(json.loads, lines)
                  if r.get("record") in ("hello", "outcome")]
        res.check(22 in frames and frames == sorted(frames),
                  "synth-alerts-after-hello.pcap: the alert after a ServerHello without "
                  "ClientHello is written in frame order", f"{frames}")
        for capture, want in JSONL_ALERT_TRANSPORTS.items():
            name = box.add_capture(run.resolve_capture(capture))
            lines = box.run(["-r", name, "-q", "-z", "tlsneg,jsonl"]).stdout.splitlines()
            have = {r["frame"]: r.get("transport") for r in map(json.loads, lines)
                    if r.get("outcome") == "alert"}
            res.check(have == want, f"{capture}: each alert's outcome says its own transport",
                      f"{have}")
        for capture, facts in REPORT_FACTS.items():
            name = box.add_capture(run.resolve_capture(capture))
            out = box.run(["-r", name, "-q", "-z", "tlsneg,report"]).stdout.splitlines()
            missing = [f for f in facts if f not in out]
            res.check(not missing, f"{capture}: -z tlsneg,report states the capture's facts",
                      "missing:\n" + "\n".join(missing) + "\nreport:\n" + "\n".join(out))
        for capture, prefixes in VERDICT_FACTS.items():
            name = box.add_capture(run.resolve_capture(capture))
            out = box.run(["-r", name, "-q", "-z", "tlsneg,report"]).stdout
            verdicts = out.split("--- Verdicts (frame order) ---\n")[1].split("\n---")[0]
            lines = verdicts.splitlines()
            missing = [p for p in prefixes if not any(l.startswith(p) for l in lines)]
            res.check(not missing, f"{capture}: the report's verdicts name the finding",
                      "missing:\n" + "\n".join(missing) + "\nverdicts:\n" + verdicts)
        # One name per finding: every name the report's "Findings per rule" prints works as
        # a filter in the same form (tlsneg.finding == "X"; a variant tlsneg.expert.Y).
        name = box.add_capture(run.resolve_capture("pcaps/intolerant-rst-scsv.pcap"))
        out = box.run(["-r", name, "-q", "-z", "tlsneg,report"]).stdout
        per_rule = out.split("--- Findings per rule")[1].split("===")[0].splitlines()[1:]
        problems = []
        for line in per_rule:
            words = line.split()
            filters = [f'tlsneg.finding == "{words[1]}"'] + [w for w in words[2:]
                                                              if w.startswith("tlsneg.expert.")]
            for flt in filters:
                hits = box.run(["-r", name, "-Y", flt, "-T", "fields", "-e", "frame.number"]).stdout
                if len(hits.split()) != int(words[0]):
                    problems.append(f"{flt}: {hits.split()} for a count of {words[0]}")
        res.check(per_rule and not problems,
                  "every name in Findings per rule filters the frames it counts",
                  "\n".join(problems) + "\n" + "\n".join(per_rule))
        for capture, want in CSV_FACTS.items():
            name = box.add_capture(run.resolve_capture(capture))
            text = box.run(["-r", name, "-q", "-z", "tlsneg,csv"]).stdout
            res.check(text.splitlines()[:1] == [CSV_HEADER],
                      f"{capture}: the CSV header keeps its columns, the new ones at the end",
                      text.splitlines()[:1])
            rows = list(csv.DictReader(io.StringIO(text)))
            have = {k: rows[0].get(k) for k in want} if len(rows) == 1 else rows
            res.check(have == want, f"{capture}: -z tlsneg,csv has one row with the facts",
                      f"{have}")
        # An alert before any ClientHello: scan-testssl-tls12.pcap's first
        # connection, on a port tshark knows only with Decode As. Who sent it
        # is read off TCP (tshark's tcp fields): frame 1 is a SYN (flags 0x002)
        # to port 44366, frame 4 comes from port 44366 with 15 03 03 00 02 02
        # 32 (a fatal decode_error alert record): the server sent it. The
        # plugin takes the sender from the SYN that TCP saw.
        name = box.add_capture(run.resolve_capture("pcaps/scan-testssl-tls12.pcap"))
        decode = ["-d", "tcp.port==44366,tls"]
        rows = [l.split("\t") for l in box.run(
            ["-r", name] + decode + ["-Y", "frame.number <= 4", "-T", "fields", "-e",
                                     "frame.number", "-e", "tcp.flags", "-e", "tcp.srcport", "-e",
                                     "tcp.dstport", "-e", "tcp.payload", "-e", "tlsneg.alert"]
        ).stdout.splitlines()]
        syn_to = [r[3] for r in rows if r[1] == "0x0002"]
        frame4 = [r for r in rows if r[0] == "4"]
        sent_by_server = (syn_to == ["44366"] and len(frame4) == 1 and frame4[0][2] == "44366"
                          and frame4[0][4] == "15030300020232")
        res.check(sent_by_server and frame4[0][5] == "50",
                  "scan-testssl-tls12.pcap frame 4 (with Decode As): tlsneg.alert 50, sent from "
                  "the port frame 1's SYN went to", f"{rows}")
        records = [json.loads(l) for l in box.run(
            ["-r", name] + decode + ["-q", "-z", "tlsneg,jsonl"]).stdout.splitlines()]
        outcomes = [r for r in records if r.get("record") == "outcome" and r["frame"] == 4]
        res.check(sent_by_server and [(o["from_server"], o["client_port"], o["port"])
                                      for o in outcomes] == [(True, 38538, 44366)],
                  "... the alert before any ClientHello is the server's (from_server), as the "
                  "SYN tells", f"{outcomes}")
        # Frame 3 (tcp.flags 0x011, FIN-ACK, from port 38538 before any payload) is the
        # client's close: the alert comes after it, and no ClientHello can complete on the
        # connection any more, so its record is written in frame order, before the first
        # hello record (frame 8), with attempt_frame 0.
        fin3 = [r for r in rows if r[0] == "3"]
        frames = [r["frame"] for r in records if r.get("record") in ("hello", "outcome")]
        res.check(fin3 and fin3[0][1] == "0x0011" and fin3[0][2] == "38538" and
                  [(o["after_peer"], o["after_peer_frame"], o["attempt_frame"])
                   for o in outcomes] == [("close", 3, 0)] and frames == sorted(frames),
                  "... after the client's FIN of frame 3 (after_peer), written in frame order "
                  "with attempt_frame 0", f"{outcomes} {frames[:5]}")
        # A filter narrows every output: only the retry's frames.
        name = box.add_capture(run.resolve_capture("pcaps/intolerant-rst.pcap"))
        lines = box.run(["-r", name, "-q", "-z", "tlsneg,jsonl,tlsneg.fallback"]).stdout.splitlines()
        frames = [json.loads(l).get("frame") for l in lines[1:]]
        res.check(frames == [10], "-z tlsneg,jsonl,FILTER keeps only matching frames", f"{frames}")
        # -T ek carries the fields too: the retry of intolerant-rst.pcap (frame 10)
        # links to frame 4 and falls from 0x0304 (772) to 0x0303 (771).
        ek = [json.loads(l) for l in box.run(["-r", name, "-Y", "tlsneg.fallback", "-T", "ek",
                                               "-J", "tlsneg"]).stdout.splitlines()
              if l.startswith('{"timestamp"')]
        layer = ek[0]["layers"]["tlsneg"] if len(ek) == 1 else {}
        res.check((layer.get("tlsneg_tlsneg_fallback_prev_frame"),
                   layer.get("tlsneg_tlsneg_fallback_from"), layer.get("tlsneg_tlsneg_fallback_to"))
                  == ("4", "772", "771"), "-T ek -J tlsneg carries the fallback fields", f"{ek}")
        tree = box.run(["-r", name, "-q", "-z", "tlsneg_tree,tree"]).stdout
        counts = dict(re.findall(r"^ ?(\S.*?\S)\s{2,}(\d+)\s", tree, re.M))
        res.check(counts.get("ClientHello") == "2" and counts.get("ServerHello") == "1" and
                  counts.get("fallback_retry") == "1",
                  "the stats tree counts 2 ClientHello, 1 ServerHello, 1 fallback_retry", tree)
        # A variant under its finding, by its expert filter; no bare variant name.
        name = box.add_capture(run.resolve_capture("pcaps/intolerant-rst-scsv.pcap"))
        tree = box.run(["-r", name, "-q", "-z", "tlsneg_tree,tree"]).stdout
        counts = dict(re.findall(r"^ *(\S.*?\S)\s{2,}(\d+)\s", tree, re.M))
        res.check(counts.get("fallback_retry") == "1" and
                  counts.get("tlsneg.expert.fallback_retry_scsv") == "1" and
                  "fallback_retry_scsv" not in counts,
                  "the stats tree shows fallback_retry, its variant as tlsneg.expert.fallback_retry_scsv",
                  tree)
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
