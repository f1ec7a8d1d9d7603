#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Differential test of tlsneg-pcap's packet path against tshark's own
dissection: for every capture under pcaps/ (pcaps/public/ included), the
handshake messages tlsneg-pcap --events finds (frame, type, body length,
SHA-256 of the body) equal those tshark finds (tests/captures/extract_hellos.py,
with tcp.reassemble_out_of_order on); so do the plaintext TLS and DTLS alerts
(frame, description: tshark's tls/dtls.alert_message.desc) and the TLS alerts
of QUIC CONNECTION_CLOSE frames (tshark's quic.cc.error_code in an Initial
packet, 0x0100 + the alert: extract_hellos.quic_alerts) and, on the TCP
streams that carried a hello, the first FIN of each direction and the first
RST unless both FINs came before it (frame: tshark's tcp.flags). With
--plugin, the JSON lines of both front ends (tshark -q -z tlsneg,jsonl with
the fresh plugin, tlsneg-pcap --jsonl: one writer, report/output.c) are
compared line by line, in order; and on every capture where they agree
exactly, the ladder, the CSV and the report too: tshark -q -z tlsneg,ladder,
-z tlsneg,csv and -z tlsneg,report against tlsneg-pcap --ladder, --csv and
--report, byte for byte (at least LADDER_MIN captures, so that the check
cannot pass on none), and -z tlsneg,ladder-svg against --ladder-svg on
LADDER_SVG. Except for the differences listed in KNOWN below, each of which
must show up exactly as listed. The reasons, with the
bytes that decide who is right, are in docs/tlsneg-pcap.md.

Prints TAP ("ok N - ...") and "N passed, N failed"."""
import argparse
import collections
import difflib
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

from tests.captures import tsharkbox
from tests.captures.extract_hellos import collect, dissection, extract, quic_alerts
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def captures():
    """Every capture under pcaps/, pcaps/public/ included."""
    return sorted(glob.glob(os.path.join(ROOT, "pcaps", "**", "*.pcap*"), recursive=True))


# The ladders (and the CSV and the report) are compared on every capture
# whose JSON lines agree: 122 of the 129 captures when this was written (all
# but the seven of KNOWN below: the scanners' four,
# quic-fragmented-handshakes.pcapng.gz, starttls-ftp-curl.pcap,
# starttls-smtp-not-offered-port2525.pcap; synth-quic-tls12.pcap joined them
# once the plugin read the TLS alerts of QUIC CONNECTION_CLOSE frames).
# Fewer means captures dropped out of the comparison unnoticed.
LADDER_MIN = 122
# The SVG ladder is compared on this capture (four attempts, verdicts as
# notes, three failures).
LADDER_SVG = "pcaps/fallback-chain.pcap"


def pcap_jsonl(tool, files, shard=None):
    """The lines of `tlsneg-pcap --jsonl -q [--shard K/N] FILE...`, the schema
    header first; an exit status other than 0 and 1 (a capture cut short,
    docs/tlsneg-pcap.md) or no header raises."""
    args = [tool, "--jsonl", "-q"] + (["--shard", shard] if shard else []) + list(files)
    p = subprocess.run(args, capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if p.returncode not in (0, 1) or not lines or '"record":"header"' not in lines[0]:
        raise RuntimeError(f"{' '.join(args)} exited {p.returncode}: {p.stderr[:500]}")
    return lines

# Why whole groups of KNOWN differ (their bytes are described at each group).
SCANNER = "a scanner's connection that tshark does not dissect"
FTP_AUTH_SSL = "FTP AUTH SSL: not an upgrade to tshark 4.0"
REFUSED_STARTTLS = "a ClientHello after a refused STARTTLS: TLS to tshark's heuristic only"

# (capture, side, frame, msg_type): why. side "pcap" = only tlsneg-pcap finds
# the message, "tshark" = only tshark does.
KNOWN = {
    # After the server's Retry (frame 2) the client sends its Initial again
    # (frame 3) to the Retry's connection ID 2e9a32ed..., so under new keys,
    # with the same 301-byte CRYPTO frame at offset 0 (tshark's own
    # quic.crypto.offset 0, quic.crypto.length 301): the ClientHello of
    # frame 1, byte for byte, which the server now processes (RFC 9000
    # 17.2.5.2). tshark 4.0 decrypts frame 3 but does not show the message a
    # second time; tlsneg-pcap starts the crypto streams again after a Retry
    # and reports it.
    ("pcaps/public/wireshark/quic-fragmented-handshakes.pcapng.gz", "pcap", 3, 1):
        "the ClientHello sent again after a Retry",
    # The same message in the JSON lines: tlsneg-pcap writes its hello
    # record, with "retransmission_of":1 (judged in frame 1, no findings).
    ("pcaps/public/wireshark/quic-fragmented-handshakes.pcapng.gz", "pcap", 3,
     "jsonl hello ClientHello"):
        "the ClientHello sent again after a Retry",
    # The scanners use ports tshark does not know for TLS (4436x). tshark
    # leaves undissected a connection that starts with sslscan's or
    # testssl.sh's SSLv2 CLIENT-HELLO (docs/fields.md: Decode As), and
    # testssl.sh's first connection, where the client sends nothing and the
    # server's first bytes are an alert record (15 03 03 00 02 02 32: fatal
    # decode_error); tlsneg-pcap reads a TLS record or an SSLv2 hello at the
    # start of either direction of any stream. The alerts and FINs of those
    # connections follow.
    ('pcaps/scan-sslscan-tls12.pcap', 'pcap', 7, 'alert 50'): SCANNER,
    ('pcaps/scan-sslscan-tls12.pcap', 'pcap', 9, 'alert 70'): SCANNER,
    ('pcaps/scan-sslscan-tls12.pcap', 'pcap', 10, 'close fin'): SCANNER,
    ('pcaps/scan-sslscan-tls12.pcap', 'pcap', 11, 'close fin'): SCANNER,
    ('pcaps/scan-sslscan-tls12.pcap', 'pcap', 6, 1): SCANNER,
    ('pcaps/scan-sslscan-tls13.pcap', 'pcap', 4, 'alert 50'): SCANNER,
    ('pcaps/scan-sslscan-tls13.pcap', 'pcap', 9, 'alert 70'): SCANNER,
    ('pcaps/scan-sslscan-tls13.pcap', 'pcap', 10, 'close fin'): SCANNER,
    ('pcaps/scan-sslscan-tls13.pcap', 'pcap', 11, 'close fin'): SCANNER,
    ('pcaps/scan-sslscan-tls13.pcap', 'pcap', 8, 1): SCANNER,
    ('pcaps/scan-testssl-tls12.pcap', 'pcap', 4, 'alert 50'): SCANNER,
    ('pcaps/scan-testssl-tls12.pcap', 'pcap', 62, 'alert 70'): SCANNER,
    ('pcaps/scan-testssl-tls12.pcap', 'pcap', 63, 'close fin'): SCANNER,
    ('pcaps/scan-testssl-tls12.pcap', 'pcap', 64, 'close fin'): SCANNER,
    ('pcaps/scan-testssl-tls12.pcap', 'pcap', 61, 1): SCANNER,
    ('pcaps/scan-testssl-tls13.pcap', 'pcap', 4, 'alert 50'): SCANNER,
    ('pcaps/scan-testssl-tls13.pcap', 'pcap', 60, 'alert 70'): SCANNER,
    ('pcaps/scan-testssl-tls13.pcap', 'pcap', 61, 'close fin'): SCANNER,
    ('pcaps/scan-testssl-tls13.pcap', 'pcap', 62, 'close fin'): SCANNER,
    ('pcaps/scan-testssl-tls13.pcap', 'pcap', 59, 1): SCANNER,
    # FTP AUTH SSL (curl's first choice) answered 234 by vsftpd: the client's
    # next bytes are a ClientHello (frame 9: 16 03 01 02 00 01 ...), the
    # server's a HelloRetryRequest (10), then ClientHello 11, ServerHello
    # 12, all on the control connection (port 21). Wireshark 4.0's FTP
    # dissector takes only "AUTH TLS" for an upgrade (pcaps/README-starttls.md), so
    # tshark shows these frames as FTP lines and the plugin sees no hello
    # there; tlsneg-pcap reads the upgrade (docs/tlsneg-pcap.md: TLS after
    # a plaintext prefix), and with it that stream's FIN and RST.
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 9, 1): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 10, 2): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 11, 1): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 12, 2): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 60, "close fin"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 62, "close rst"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 9, "jsonl hello ClientHello"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 10, "jsonl hello HelloRetryRequest"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 10, "jsonl outcome hello_retry_request"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 11, "jsonl hello ClientHello"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 12, "jsonl hello ServerHello"): FTP_AUTH_SSL,
    ("pcaps/starttls-ftp-curl.pcap", "pcap", 12, "jsonl outcome server_hello"): FTP_AUTH_SSL,
    # STARTTLS refused (502, frame 10), and s_client sends its ClientHello
    # anyway (frame 11), into a session that stays plaintext SMTP (postfix
    # answers 500 lines, 12). On port 2525 no SMTP dissector reads the
    # dialog and tshark's TLS heuristic takes the segment for TLS; on port
    # 25 (starttls-smtp-not-offered.pcap) the SMTP dissector keeps it an
    # SMTP line and both front ends agree. tlsneg-pcap follows the dialog on
    # every port: a refused command leaves the stream plaintext.
    ("pcaps/starttls-smtp-not-offered-port2525.pcap", "tshark", 11, 1): REFUSED_STARTTLS,
    ("pcaps/starttls-smtp-not-offered-port2525.pcap", "tshark", 13, "close fin"): REFUSED_STARTTLS,
    ("pcaps/starttls-smtp-not-offered-port2525.pcap", "tshark", 14, "close fin"): REFUSED_STARTTLS,
    ("pcaps/starttls-smtp-not-offered-port2525.pcap", "tshark", 11, "jsonl hello ClientHello"):
        REFUSED_STARTTLS,
    ("pcaps/starttls-smtp-not-offered-port2525.pcap", "tshark", 13, "jsonl outcome close"):
        REFUSED_STARTTLS,
}


# The JSON lines of both front ends: capture -> (lines only the plugin writes,
# lines only tlsneg-pcap writes, why). A message one front end does not see
# changes the records after it (a probe's first frame, its count), so these
# differences are counted per capture; the messages themselves are in KNOWN
# above, with the bytes that decide. docs/tlsneg-pcap.md says it for people.
SCANNER_JSONL = ("the scanner's connection tshark does not dissect (KNOWN above): its "
                 "SSLv2 CLIENT-HELLO, the alerts around it, and the probe that counts it")
KNOWN_JSONL = {
    # sslscan: the SSLv2 CLIENT-HELLO (frame 6 in scan-sslscan-tls12, 8 in
    # scan-sslscan-tls13) is the probe's first hello for tlsneg-pcap (17
    # hellos, lowest 0x0002), frame 16 for the plugin (probe 16, 16 hellos,
    # lowest 0x0300): every hello record of the probe names another first
    # frame; plus that hello and the alerts around it (frames 7 and 9, resp.
    # 4 and 9).
    "pcaps/scan-sslscan-tls12.pcap": (14, 17, SCANNER_JSONL),
    "pcaps/scan-sslscan-tls13.pcap": (14, 17, SCANNER_JSONL),
    # testssl.sh: its SSLv2 CLIENT-HELLO comes late (frame 61, 59), inside
    # the probe that starts at frame 8: one more hello in the probe record
    # (14, lowest 0x0002, against 13 and 0x0300), the hello, and the alerts
    # of frames 4 (the server's alert record before any hello) and 62 (60).
    "pcaps/scan-testssl-tls12.pcap": (1, 4, SCANNER_JSONL),
    "pcaps/scan-testssl-tls13.pcap": (1, 4, SCANNER_JSONL),
}


def key(frame, msg_type, body):
    return (frame, msg_type, len(body), hashlib.sha256(body).hexdigest()[:16])


def tshark_messages(path):
    """tshark's hellos, DTLS fragments put together by message_seq (the
    message counts in the frame of the fragment that completes it)."""
    out = []
    pending = {}
    for m in extract(path):
        raw = bytes.fromhex(m["hex"])
        if m["wire"] == "dtls":
            length = int.from_bytes(raw[1:4], "big")
            seq = int.from_bytes(raw[4:6], "big")
            off = int.from_bytes(raw[6:9], "big")
            frag = int.from_bytes(raw[9:12], "big")
            if off == 0 and frag == length:
                out.append(key(m["frame"], m["type"], raw[12:12 + length]))
                continue
            slot = pending.setdefault((seq, m["type"], length), [bytearray(length), set()])
            slot[0][off:off + frag] = raw[12:12 + frag]
            slot[1].update(range(off, off + frag))
            if len(slot[1]) == length:
                out.append(key(m["frame"], m["type"], bytes(slot[0])))
                del pending[(seq, m["type"], length)]
            continue
        if m["wire"] == "ssl2":
            out.append(key(m["frame"], 1, raw))
        else:
            out.append(key(m["frame"], m["type"], raw[4:]))
    return out


# What tshark_alerts_closes reads of each packet, every occurrence joined
# with "," (as -T fields -E occurrence=a -E aggregator=, prints it).
ROW_FIELDS = ("frame.number", "tcp.stream", "tcp.srcport", "tcp.flags.fin", "tcp.flags.reset",
              "tls.alert_message.desc", "dtls.alert_message.desc")


def tshark_alerts_closes(path, hello_frames):
    """tshark's plaintext alerts and the TLS alerts of QUIC CONNECTION_CLOSE
    frames (frame, description) and, on the TCP streams
    that carried a hello, the first FIN of each direction and the first RST
    of each stream unless both FINs came before it (frame, "fin"/"rst"); read
    off the shared dissection (extract_hellos.dissection)."""
    packets = [pkt["_source"][0]["layers"][0] for pkt in dissection(path)]
    rows = [[",".join(str(v) for v in collect(layers, f, [])) for f in ROW_FIELDS]
            for layers in packets]
    hello_streams = {r[1] for r in rows if r[1] and int(r[0]) in hello_frames}
    alerts, closes, seen = [], [], set()
    for layers, (frame, stream, port, fin, rst, tls_alert, dtls_alert) in zip(packets, rows):
        for d in (tls_alert + "," + dtls_alert).split(","):
            if d:
                alerts.append((int(frame), int(d)))
        for q in layers.get("quic", []):
            alerts += [(int(frame), d) for d in quic_alerts(q)]
        if stream not in hello_streams:
            continue
        fins = sum(1 for k in seen if k[0] == stream and k[1] != "rst")
        if rst in ("1", "True") and (stream, "rst") not in seen and fins < 2:
            # tlsneg-pcap forgets a connection once both sides sent FIN.
            seen.add((stream, "rst"))
            closes.append((int(frame), "rst"))
        elif fin in ("1", "True") and (stream, port) not in seen and (stream, "rst") not in seen:
            seen.add((stream, port))
            closes.append((int(frame), "fin"))
    return alerts, closes


def pcap_messages(tool, path):
    r = subprocess.run([tool, "--events", "-q", path], capture_output=True, text=True)
    out, alerts, closes, hello_conns, conn_closes = [], [], [], set(), []
    for line in r.stdout.splitlines():
        if not line or line.startswith("#"):
            continue
        # lib/replay/events.h: KIND FRAME TIME_US tcp|udp SRC SPORT DST DPORT,
        # then KEY=VALUE attributes, then the kind's own fields.
        fields = line.split()
        kind, frame = fields[0], int(fields[1])
        attrs = dict(f.split("=", 1) for f in fields[8:] if "=" in f)
        rest = [f for f in fields[8:] if "=" not in f]
        if kind == "alert":
            alerts.append((frame, int(rest[0])))
        if kind in ("fin", "rst"):
            conn_closes.append((attrs["conn"], (frame, kind)))
        if kind != "hello":
            continue
        wire, raw = rest[0], bytes.fromhex(rest[2])
        # SSL 2.0: CLIENT-HELLO 1, SERVER-HELLO 4; extract_hellos.py's "ssl2"
        # messages are keyed as type 1 on tshark's side (tshark_messages).
        if raw[0] not in (1, 2, 3) and wire != "ssl2":
            continue
        hello_conns.add(attrs["conn"])
        if wire == "ssl2":
            body = raw
        elif wire == "dtls":
            body = raw[12:]
        else:
            body = raw[4:]
        out.append(key(frame, 1 if wire == "ssl2" else raw[0], body))
    closes = [c for conn, c in conn_closes if conn in hello_conns]
    return r.returncode, r.stderr.strip(), out, alerts, closes


def record_what(line):
    """A JSON line's key in KNOWN: (frame, "jsonl hello ClientHello")."""
    r = json.loads(line)
    return r.get("frame"), f"jsonl {r['record']} {r.get('msg') or r.get('outcome') or ''}".strip()


def jsonl_problems(rel, plugin_lines, pcap_lines, seen_known):
    """The two front ends' JSON lines, line by line: every line that only one
    writes must be listed in KNOWN; the lines both write come in the same
    order. Returns the problems, the number of tlsneg-pcap's records, and
    whether the two wrote the same lines in the same order."""
    problems = []
    theirs = [l for l in plugin_lines if '"record":"header"' not in l]
    ours = [l for l in pcap_lines if '"record":"header"' not in l]
    if plugin_lines[:1] != pcap_lines[:1]:
        problems.append(f"the header lines differ: {plugin_lines[:1]} {pcap_lines[:1]}")
    only = {"tshark": collections.Counter(theirs) - collections.Counter(ours),
            "pcap": collections.Counter(ours) - collections.Counter(theirs)}
    if rel in KNOWN_JSONL:
        want_t, want_p, _ = KNOWN_JSONL[rel]
        got = (sum(only["tshark"].values()), sum(only["pcap"].values()))
        seen_known.add(("jsonl", rel))
        if got != (want_t, want_p):
            problems.append(f"{got[0]} JSON lines only from the plugin, {got[1]} only from "
                            f"tlsneg-pcap; KNOWN_JSONL expects {want_t} and {want_p}")
        return problems, len(ours), False
    for side, diff in only.items():
        for line in sorted(diff):
            frame, what = record_what(line)
            kk = (rel, side, frame, what)
            if kk in KNOWN:
                seen_known.add(kk)
            else:
                problems.append(f"only {side}: {line}")
    common_t = [l for l in theirs if l not in only["tshark"]]
    common_p = [l for l in ours if l not in only["pcap"]]
    if common_t != common_p:
        problems.append("the JSON lines both write come in another order")
    return problems, len(ours), plugin_lines == pcap_lines


def plugin_jsonl(box, path):
    """The plugin's JSON lines, TCP reassembled out of order too: the same
    run as tests/captures/replay.py's, made once (share)."""
    name = box.add_capture(path)
    return box.run(["-r", name, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z",
                    "tlsneg,jsonl"], share=True).stdout.splitlines()


def ladder_problems(box, tool, path, svg=False):
    """The ladder of both front ends on path: tshark -q -z tlsneg,ladder
    (-svg), TCP reassembled out of order too as for the JSON lines, against
    tlsneg-pcap --ladder (--ladder-svg), byte for byte. Returns the problems
    and the number of rungs (lines that start with a frame number; for the
    SVG, its frame labels)."""
    name = box.add_capture(path)
    tap = "tlsneg,ladder-svg" if svg else "tlsneg,ladder"
    theirs = box.run(["-r", name, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z",
                      tap]).stdout
    p = subprocess.run([tool, "--ladder-svg" if svg else "--ladder", "-q", path],
                       capture_output=True, text=True)
    problems = []
    if p.returncode not in (0, 1):
        problems.append(f"tlsneg-pcap {'--ladder-svg' if svg else '--ladder'} exited "
                        f"{p.returncode}: {p.stderr[:500]}")
    if p.stdout != theirs:
        diff = list(difflib.unified_diff(theirs.splitlines(), p.stdout.splitlines(),
                                         f"tshark -z {tap}", "tlsneg-pcap", lineterm="", n=1))
        problems.append("the ladders differ:\n" + "\n".join(diff[:40]))
    if svg:
        rungs = len(re.findall(r'<text [^>]*class="frame"', p.stdout))
    else:
        rungs = len(re.findall(r"^ {0,7}\d+  ", p.stdout, re.M))
    return problems, rungs


def totals_problems(box, tool, path):
    """The CSV and the report of both front ends on path, byte for byte:
    tshark -q -z tlsneg,csv and -z tlsneg,report (TCP reassembled out of
    order too; the CSV run is the contract test's, shared) against
    tlsneg-pcap --csv and --report. They say per server what the JSON lines
    say per message: its transport (the CSV's transport column, the report's
    udp/DTLS and udp/QUIC labels) and its alerts before and after a
    ServerHello, counted by one writer (report/totals.c) from what each
    front end found. Returns the problems."""
    name = box.add_capture(path)
    problems = []
    for tap, opt in (("tlsneg,csv", "--csv"), ("tlsneg,report", "--report")):
        theirs = box.run(["-r", name, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z", tap],
                         share=True).stdout
        p = subprocess.run([tool, opt, "-q", path], capture_output=True, text=True)
        if p.returncode not in (0, 1):
            problems.append(f"tlsneg-pcap {opt} exited {p.returncode}: {p.stderr[:500]}")
        if p.stdout != theirs:
            diff = list(difflib.unified_diff(theirs.splitlines(), p.stdout.splitlines(),
                                             f"tshark -z {tap}", "tlsneg-pcap", lineterm="",
                                             n=1))
            problems.append(f"the {opt[2:]} outputs differ:\n" + "\n".join(diff[:40]))
    return problems


LATE_DUP = "pcaps/late-duplicate-close-notify.pcap"


def late_duplicate_checks(tool, res):
    """Issue 27: a duplicate of an encrypted TLS 1.2 close_notify after both
    FINs (LATE_DUP, pcaps/README-handshakes.md). The bytes: frame 15 is frame 10 byte
    for byte, an alert record 15 03 03 00 1a of 26 encrypted bytes, after
    FINs in frames 11 and 13 (read off the pcap itself); tshark's own
    dissector shows no plaintext alert in the capture. tlsneg-pcap must
    write no alert outcome and count the record in --stats."""
    path = os.path.join(ROOT, LATE_DUP)
    with open(path, "rb") as f:
        data = f.read()
    frames, pos = [], 24
    while pos < len(data):
        incl = int.from_bytes(data[pos + 8:pos + 12], "little")
        frames.append(data[pos + 16:pos + 16 + incl])
        pos += 16 + incl
    payload_15 = frames[14][14 + 20 + 32:]  # Ethernet, IPv4, TCP with timestamps
    res.check(len(frames) == 15 and frames[14] == frames[9] and
              payload_15[:5] == bytes.fromhex("150303001a") and
              len(payload_15) == 31 and frames[10][14 + 20 + 13] & 1 and
              frames[12][14 + 20 + 13] & 1,
              f"{LATE_DUP}: the bytes: frame 15 repeats frame 10, an alert record of 26 bytes "
              "(15 03 03 00 1a ...), after the FINs of frames 11 and 13",
              payload_15[:8].hex())
    theirs = [l for l in subprocess.run(["tshark", "-r", path, "-T", "fields", "-e",
                                         "tls.alert_message.desc"], capture_output=True,
                                        text=True).stdout.splitlines() if l.strip()]
    p = subprocess.run([tool, "--jsonl", "--stats", "-q", path], capture_output=True, text=True)
    alerts = [l for l in p.stdout.splitlines() if '"outcome":"alert"' in l]
    m = re.search(r"(\d+) TLS/DTLS handshake or alert records not read as plaintext", p.stderr)
    # Not plaintext: the client's and the server's encrypted Finished (a
    # handshake record after ChangeCipherSpec, frames 8 and 9) and frame
    # 15, read as a new stream picked up mid-way. Frames 10 and 12 come
    # after the handshake records that ended reading of their direction.
    res.check(not theirs and not alerts and m and int(m.group(1)) == 3,
              f"{LATE_DUP}: tshark shows no plaintext alert, tlsneg-pcap writes no alert outcome "
              "and counts 3 records not read as plaintext in --stats",
              [f"tshark tls.alert_message.desc: {theirs}", f"tlsneg-pcap alerts: {alerts}",
               p.stderr[-600:]])


# The TCP flows of each STARTTLS capture that go on in TLS after a
# plaintext prefix, read off their dialogs (pcaps/README-starttls.md, the frames
# named there): a positive reply to the upgrade (SMTP 220, IMAP tagged OK,
# POP3 +OK, FTP 234, XMPP <proceed/>, LDAP success, PostgreSQL 'S'), or
# MySQL's SSL request. The refused ones (SMTP 454 and 502, PostgreSQL 'N')
# and FTP's data connections, which start with TLS, are none.
STARTTLS_FLOWS = {
    "pcaps/starttls-ftp-curl.pcap": 1,  # AUTH SSL, 234 (frames 6, 8)
    "pcaps/starttls-ftp-lftp.pcap": 1,  # AUTH TLS, 234
    "pcaps/starttls-imap-curl.pcap": 1,
    "pcaps/starttls-imap-openssl.pcap": 1,
    "pcaps/starttls-imap-tls10-refused.pcap": 1,  # the upgrade succeeds, TLS 1.0 fails
    "pcaps/starttls-ldap-ldapsearch.pcap": 1,
    "pcaps/starttls-mysql-mariadb.pcap": 1,
    "pcaps/starttls-pop3-curl.pcap": 1,
    "pcaps/starttls-pop3-openssl.pcap": 1,
    "pcaps/starttls-postgres-psql.pcap": 1,
    "pcaps/starttls-postgres-refused.pcap": 0,  # 'N'
    "pcaps/starttls-smtp-not-offered-port2525.pcap": 0,  # 502
    "pcaps/starttls-smtp-not-offered.pcap": 0,  # 502
    "pcaps/starttls-smtp-openssl-tls12.pcap": 1,
    "pcaps/starttls-smtp-port2525.pcap": 1,
    "pcaps/starttls-smtp-refused.pcap": 0,  # 454
    "pcaps/starttls-smtp-swaks.pcap": 1,
    "pcaps/starttls-smtp-tls10-refused.pcap": 1,  # the upgrade succeeds, TLS 1.0 fails
    "pcaps/starttls-xmpp-openssl.pcap": 1,
}


def starttls_stats_checks(tool, res):
    """tlsneg-pcap --stats on every STARTTLS capture: the flows it read as
    TLS after a plaintext prefix are those of STARTTLS_FLOWS, none given up
    at the 8 KB bound; every capture of that name is in the table."""
    found = sorted(os.path.relpath(p, ROOT)
                   for p in glob.glob(os.path.join(ROOT, "pcaps", "starttls-*.pcap*")))
    got = {}
    for rel in found:
        p = subprocess.run([tool, "--stats", "-q", os.path.join(ROOT, rel)],
                           capture_output=True, text=True)
        m = re.search(r"(\d+) flows TLS after a plaintext prefix \(STARTTLS\), (\d+) given up",
                      p.stderr)
        got[rel] = (int(m.group(1)), int(m.group(2))) if m else None
    want = {rel: (n, 0) for rel, n in STARTTLS_FLOWS.items()}
    res.check(got == want,
              f"--stats on the {len(found)} STARTTLS captures: {sum(STARTTLS_FLOWS.values())} flows "
              "TLS after a plaintext prefix, as their dialogs say, none over the bound",
              [f"{rel}: got {got.get(rel)}, want {want.get(rel)}"
               for rel in sorted(set(got) | set(want)) if got.get(rel) != want.get(rel)])


def kept_after_each_file(tool, files):
    """tlsneg-pcap --stats over several files: per file, the connections the
    session layer still holds once the file is read (its "N connections kept
    now" line on standard error)."""
    p = subprocess.run([tool, "--jsonl", "-q", "--stats"] + list(files), capture_output=True,
                       text=True)
    kept = {}
    for line in p.stderr.splitlines():
        for f in files:
            prefix = f"tlsneg-pcap: {f}: session: "
            if line.startswith(prefix):
                kept[f] = int(line[len(prefix):].split()[0])
    return kept


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    tsharkbox.add_arguments(ap, plugin_required=False)
    ap.add_argument("captures", nargs="*")
    args = ap.parse_args()
    caps = args.captures or captures()
    res = Results(max_detail=1000)
    seen_known = set()
    box = TsharkBox.from_args(args) if args.plugin else None
    ladders = []  # (capture, rungs) of the text ladders compared

    def check_capture(path, batch):
        rel = os.path.relpath(path, ROOT)
        theirs = tshark_messages(path)
        rc, err, ours, our_alerts, our_closes = pcap_messages(args.tool, path)
        their_alerts, their_closes = tshark_alerts_closes(path, {k[0] for k in theirs})
        problems = []
        for what, t, o in (("alert", their_alerts, our_alerts), ("close", their_closes, our_closes)):
            for side, diff in (("tshark", collections.Counter(t) - collections.Counter(o)),
                               ("pcap", collections.Counter(o) - collections.Counter(t))):
                for k in sorted(diff):
                    kk = (rel, side, k[0], f"{what} {k[1]}")
                    if kk in KNOWN:
                        seen_known.add(kk)
                    else:
                        problems.append(f"only {side}: {what} in frame {k[0]}: {k[1]}")
        if rc != 0:
            problems.append(f"tlsneg-pcap exited {rc}: {err}")
        only_t = collections.Counter(theirs) - collections.Counter(ours)
        only_p = collections.Counter(ours) - collections.Counter(theirs)
        for side, diff in (("tshark", only_t), ("pcap", only_p)):
            for k in sorted(diff):
                kk = (rel, side, k[0], k[1])
                if kk in KNOWN:
                    seen_known.add(kk)
                else:
                    problems.append(f"only {side}: frame {k[0]} type {k[1]} length {k[2]} "
                                    f"sha256 {k[3]}")
        records = ""
        if box:
            jp, nrec, agree = jsonl_problems(rel, plugin_jsonl(box, path),
                                             pcap_jsonl(args.tool, [path]), seen_known)
            problems += jp
            records = f", {nrec} JSON lines"
            if agree:
                lp, rungs = ladder_problems(box, args.tool, path)
                problems += lp + totals_problems(box, args.tool, path)
                ladders.append((rel, rungs))
                records += f", the ladder ({rungs} rungs), the CSV and the report"
        if problems:
            batch.check(False, f"{rel}: {len(theirs)} messages from tshark, {len(ours)} from "
                        "tlsneg-pcap", problems)
        else:
            batch.check(True, f"{rel}: {len(ours)} messages, {len(our_alerts)} alerts, "
                        f"{len(our_closes)} closes{records} agree")

    res.each(caps, check_capture)
    if not args.captures:
        late_duplicate_checks(args.tool, res)
        starttls_stats_checks(args.tool, res)
    # Flows still open at the end of a file are ended there (TLSNEG_PCAP_END):
    # scan-nmap-tls13.pcap ends with 5 TCP streams that saw neither an RST nor
    # both FINs (tshark's tcp.flags), 3 of them with a ClientHello;
    # synth-quic-tls12.pcap's QUIC flows have no close at all.
    if not args.captures:
        files = [os.path.join(ROOT, "pcaps", n)
                 for n in ("scan-nmap-tls13.pcap", "synth-quic-tls12.pcap")]
        kept = kept_after_each_file(args.tool, files)
        res.check(sorted(kept) == sorted(files) and not any(kept.values()),
                  "--stats: 0 connections kept after each of two files with flows still open "
                  f"at their end ({ {os.path.basename(k): v for k, v in kept.items()} })")
    # KNOWN's scan-testssl-tls12.pcap frame 4 (the server's alert record
    # before any hello, frame 1 a SYN to the server's port 44366): with Decode
    # As the plugin dissects that connection too, and both front ends write
    # the same outcome record, the server's alert, its sender taken from the
    # SYN.
    if box and not args.captures:
        path = os.path.join(ROOT, "pcaps", "scan-testssl-tls12.pcap")
        name = box.add_capture(path)
        theirs = [l for l in box.run(["-r", name, "-d", "tcp.port==44366,tls", "-q", "-z",
                                      "tlsneg,jsonl"]).stdout.splitlines()
                  if '"record":"outcome","frame":4,' in l]
        ours = [l for l in pcap_jsonl(args.tool, [path])
                if '"record":"outcome","frame":4,' in l]
        res.check(theirs == ours and len(ours) == 1 and '"from_server":true' in ours[0],
                  "scan-testssl-tls12.pcap frame 4 with Decode As: the plugin's outcome record "
                  "equals tlsneg-pcap's, the server's alert", [f"plugin: {theirs}",
                                                               f"tlsneg-pcap: {ours}"])
    if box and not args.captures:
        rungs = sum(r for _, r in ladders)
        res.check(len(ladders) >= LADDER_MIN and rungs > 0,
                  f"the text ladders of both front ends compared on {len(ladders)} captures "
                  f"(at least {LADDER_MIN}), {rungs} rungs in all",
                  [f"{c}: {r}" for c, r in ladders])
        lp, rungs = ladder_problems(box, args.tool, os.path.join(ROOT, LADDER_SVG), svg=True)
        res.check(not lp and rungs > 0,
                  f"{LADDER_SVG}: the SVG ladders of both front ends are the same, {rungs} rungs",
                  lp)
    # Every listed difference must still be there: a fix on either side
    # shows up here and the list is brought up to date.
    if box:
        box.close()
    if box and not args.captures:
        for rel in sorted(set(KNOWN_JSONL) - {k[1] for k in seen_known if k[0] == "jsonl"}):
            res.check(False, f"known JSON-lines difference no longer seen: {rel}")
    if not args.captures:
        for kk in sorted(k for k in set(KNOWN) - seen_known
                         if box or not str(k[3]).startswith("jsonl")):
            res.check(False, f"known difference no longer seen: {kk}: {KNOWN[kk]}")
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
