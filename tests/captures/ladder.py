#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The story of a capture against its bytes. -z tlsneg,ladder: every hello,
alert and attempt-ending TCP reset, read with tshark's own tls.* and tcp.*
fields (no tlsneg), is one rung of the ladder, on its frame, pointing the
right way, saying what the bytes say. The Info column notes: a
[fallback: A -> B, SCSV|no SCSV] names the highest versions of the previous
and of this ClientHello and whether this one lists 0x5600; [DOWNGRD] sits
exactly on the ServerHellos whose random ends with a sentinel; the
tlsneg.info_notes preference takes them all away. Each failed attempt says
how and where it failed ("failed: TCP reset, frame 6"), in the ladder and in
its ClientHello's title once the capture has been read (-2), as tshark's own
tcp.flags.reset/fin and tls.alert_message fields show; a fallback retry's
title says so ("fallback retry 2/3 (TLS 1.2 -> TLS 1.1, no SCSV)"). The SVG
ladder (-z tlsneg,ladder-svg) is well-formed XML naming the same frames,
rungs, seconds and notes as the text, as wide as the server's name needs.
Each rung's seconds since its lane's first attempt are tshark's
frame.time_relative differences; a scanner's lane (the captures made by
nmap, sslscan, testssl.sh) says "scanner: probe since frame F, not a
dance", F its first ClientHello, and no lane of a dance says scanner. A client's abort after a ServerHello with a
sentinel, from a client that offered TLS 1.3, with alert illegal_parameter (47), says it caught the
downgrade."""
import argparse
import html
from decimal import Decimal, ROUND_HALF_UP
import os
import re
import sys
import xml.etree.ElementTree as ET

from tests.captures import tsharkbox
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CAPTURES = ["fallback-chain.pcap", "tls13-hrr.pcap", "intolerant-rst.pcap",
            "fallback-scsv-rejected.pcap", "tls12-only-server.pcap", "intolerant-rst-scsv.pcap",
            "downgrade-sentinel-mitm.pcap", "sni-mismatch-warning.pcap"]
SENTINELS = ("444f574e47524401", "444f574e47524400")
# RFC 8446 4.2.1 / RFC 5246: the version names the ladder must use.
NAMES = {0x0300: "SSL 3.0", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1", 0x0303: "TLS 1.2",
         0x0304: "TLS 1.3"}
# RFC 8446 6, RFC 7507: the alerts these captures carry.
ALERTS = {40: "handshake_failure", 47: "illegal_parameter", 70: "protocol_version",
          86: "inappropriate_fallback", 112: "unrecognized_name"}
HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
FIELDS = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.dstport", "tcp.flags.reset",
          "tls.handshake.type", "tls.handshake.version",
          "tls.handshake.extensions.supported_version", "tls.handshake.random",
          "tls.handshake.ciphersuite", "tls.alert_message.desc", "tls.alert_message.level"]


def is_grease(v):
    return (v & 0x0f0f) == 0x0a0a and (v >> 8) == (v & 0xff)


def expected_rungs(box, cap):
    """frame -> (from_client, text pattern), from tshark's own fields."""
    args = ["-n", "-r", cap, "-Y", "tls.handshake.type || tls.alert_message || tcp.flags.reset == 1",
            "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        args += ["-e", f]
    rows = [dict(zip(FIELDS, l.split("\t"))) for l in box.run(args).stdout.splitlines()]
    server_port, answered, rungs = {}, set(), {}
    for r in rows:
        frame, stream = int(r["frame.number"]), r["tcp.stream"]
        types = [int(t) for t in r["tls.handshake.type"].split(",") if t]
        versions = [int(v, 16) for v in r["tls.handshake.version"].split(",") if v]
        sv = [int(v, 16) for v in r["tls.handshake.extensions.supported_version"].split(",") if v]
        if types and types[0] == 1:
            server_port[stream] = r["tcp.dstport"]
            offered = [v for v in sv if not is_grease(v)] or versions[:1]
            scsv = "0x5600" in r["tls.handshake.ciphersuite"].split(",")
            text = r"ClientHello.*, up to " + re.escape(NAMES[max(offered)]) + \
                (", TLS_FALLBACK_SCSV" if scsv else r"(?!, TLS_FALLBACK_SCSV)")
            rungs[frame] = (True, text, max(offered), scsv)
        elif types and types[0] == 2:
            answered.add(stream)
            if r["tls.handshake.random"].split(",")[0] == HRR_RANDOM:
                # the group it asks for, when it names one: unit.ladder checks it
                rungs[frame] = (False, r"HelloRetryRequest \(TLS 1\.3(, asks for \S+)?\)", "hrr")
            else:
                v = sv[0] if sv else versions[0]
                random = r["tls.handshake.random"].split(",")[0].replace(":", "")
                rungs[frame] = (False, r"ServerHello: " + re.escape(NAMES[v]) + " in force",
                                random.endswith(SENTINELS))
        elif r["tls.alert_message.desc"]:
            d = int(r["tls.alert_message.desc"].split(",")[0])
            # A warning (level 1; these captures have none after TLS 1.3 was chosen) says
            # so and answers nothing: its attempt goes on (RFC 5246 7.2).
            warning = r["tls.alert_message.level"].split(",")[0] == "1"
            rungs[frame] = (r["tcp.dstport"] == server_port.get(stream),
                            re.escape(f"alert {ALERTS[d]} ({d})") +
                            (", warning" if warning else "(?!, warning)"), None)
            if not warning:
                answered.add(stream)
        elif r["tcp.flags.reset"] in ("1", "True") and stream in server_port \
                and stream not in answered:
            rungs[frame] = (r["tcp.dstport"] == server_port[stream], r"TCP reset", None)
            answered.add(stream)
    return rungs


# RFC 8446 6, RFC 7507: the alert names a failure note uses.
ALERT_NAMES = {40: "handshake_failure", 47: "illegal_parameter", 50: "decode_error",
               70: "protocol_version", 86: "inappropriate_fallback"}


def expected_failures(box, cap):
    """first ClientHello frame of a TCP stream -> (frame, words) of what made
    its attempt fail, from tshark's own fields: the first fatal alert, TCP
    reset or FIN after it and before any ServerHello, or the client's fatal
    alert after the ServerHello."""
    wire = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.flags.reset", "tcp.flags.fin",
            "tls.alert_message.level", "tls.alert_message.desc", "tls.handshake.type"]
    args = ["-n", "-r", cap, "-Y", "tcp.flags.reset == 1 || tcp.flags.fin == 1 || "
            "tls.alert_message || tls.handshake.type", "-T", "fields", "-E", "occurrence=a",
            "-E", "aggregator=,"]
    for f in wire:
        args += ["-e", f]
    streams = {}
    for line in box.run(args).stdout.splitlines():
        r = dict(zip(wire, line.split("\t")))
        streams.setdefault(r["tcp.stream"], []).append(r)
    out = {}
    for rows in streams.values():
        hello, client, answered = None, None, False
        for r in rows:
            f = int(r["frame.number"])
            types = [t for t in r["tls.handshake.type"].split(",") if t]
            levels = [l for l in r["tls.alert_message.level"].split(",") if l]
            fatal = [int(d) for l, d in zip(levels, r["tls.alert_message.desc"].split(","))
                     if l == "2"]
            if hello is None:
                if types and types[0] == "1":
                    hello, client = f, r["tcp.srcport"]
                continue
            if fatal and (not answered or r["tcp.srcport"] == client):
                how = "the client aborted with alert" if answered else "alert"
                out[hello] = (f, f"failed: {how} {ALERT_NAMES[fatal[0]]} ({fatal[0]}), frame {f}")
                break
            if "2" in types:
                answered = True
            elif not answered and r["tcp.flags.reset"] in ("1", "True"):
                out[hello] = (f, f"failed: TCP reset, frame {f}")
                break
            elif not answered and r["tcp.flags.fin"] in ("1", "True"):
                out[hello] = (f, f"failed: connection closed (FIN), frame {f}")
                break
    return out


def titles(box, cap, mode):
    """frame -> the title of its tlsneg ClientHello item (-V)."""
    out, frame = {}, None
    for line in box.run(mode + ["-n", "-r", cap, "-V", "-Y", "tlsneg"]).stdout.splitlines():
        m = re.match(r"^Frame (\d+):", line)
        if m:
            frame = int(m.group(1))
        elif line.startswith("TLS Version Negotiation: ClientHello"):
            out.setdefault(frame, line)
    return out


def check_titles(box, cap, name, want, check):
    """The captures here hold at most one chain of attempts, each retry of
    the one before: retry n is the (n+1)th ClientHello of the capture."""
    fails = expected_failures(box, cap)
    hellos = [(f, extra) for f, (fc, p, *extra) in sorted(want.items())
              if p.startswith("ClientHello") and not p.startswith("ClientHello again")]
    answered_last = any(p.startswith("ServerHello") and f > hellos[-1][0]
                        for f, (fc, p, *_) in want.items()) if hellos else False
    for mode in ([], ["-2"]):
        got = titles(box, cap, mode)
        label = f"{name}{' -2' if mode else ''}"
        marked = {int(f) for f in box.run(mode + ["-n", "-r", cap, "-Y", "tlsneg.fallback", "-T",
                                                  "fields", "-e", "frame.number"]).stdout.split()}
        titled = {f for f, t in got.items() if ", fallback retry " in t}
        check(titled == marked, f"{label}: the {len(marked)} fallback retries, and no other "
              "hello, say so in their own title", f"titled {sorted(titled)}, tlsneg.fallback "
              f"{sorted(marked)}")
        previous = None
        for n, (frame, (highest, scsv)) in enumerate(hellos):
            t = got.get(frame, "")
            m = re.search(r", fallback retry (\d+)(?:/(\d+))? \(([^)]*)\)", t)
            if m:
                total = len(hellos) - 1 if mode and answered_last else None
                words = f"{NAMES[previous]} -> {NAMES[highest]}, {'SCSV' if scsv else 'no SCSV'}"
                check(previous is not None and int(m.group(1)) == n and m.group(3) == words and
                      (m.group(2) is None if total is None else int(m.group(2)) == total),
                      f"{label}: frame {frame}'s title, retry {n} of the chain"
                      f"{'' if total is None else f' of {total}'}, {words}", t)
            fail = fails.get(frame)
            said = re.findall(r", (failed: .*)$", t)
            if mode and fail:
                check(said == [fail[1]], f"{label}: frame {frame}'s title says {fail[1]}", t)
            else:
                check(not said, f"{label}: frame {frame}'s title says no failure "
                      f"({'not known in one pass' if fail else 'none in the bytes'})", t)
            previous = highest


# A rung of -z tlsneg,ladder: the frame, the seconds since the lane's first
# attempt, the words with their arrow.
RUNG = re.compile(r"^ {0,7}(\d+) +(-?\d+\.\d{3})  (.*)$")
# The captures made by scanners (pcaps/README-across-connections.md: nmap ssl-enum-ciphers,
# sslscan, testssl.sh against openssl s_server).
SCANS = ["scan-nmap-tls12.pcap", "scan-nmap-tls13.pcap", "scan-sslscan-tls12.pcap",
         "scan-sslscan-tls13.pcap", "scan-testssl-tls12.pcap", "scan-testssl-tls13.pcap"]


def relative_times(box, cap):
    """frame -> frame.time_relative (Decimal), as tshark reads it."""
    out = box.run(["-n", "-r", cap, "-T", "fields", "-e", "frame.number", "-e",
                   "frame.time_relative"]).stdout
    return {int(f): Decimal(t) for f, t in (l.split("\t") for l in out.splitlines() if l)}


def lanes(out):
    """The ladder's lanes: (heading, [(frame, seconds, words)])."""
    result = []
    for line in out.splitlines():
        m = RUNG.match(line)
        if m and result:
            result[-1][1].append((int(m.group(1)), m.group(2), m.group(3)))
        elif re.search(r": \d+ attempts?(; .*)?$", line):
            result.append((line, []))
    return result


def check_seconds(box, cap, label, out, check):
    """Each rung's seconds are its frame's time less the time of its lane's
    first attempt (the #1 ClientHello), both read by tshark
    (frame.time_relative), to the millisecond, half away from zero."""
    t = relative_times(box, cap)
    wrong, n = [], 0
    for heading, rungs in lanes(out):
        first = [f for f, _, w in rungs if w.startswith("#1 ClientHello")]
        if not first:
            wrong.append(f"{heading}: no #1 ClientHello rung")
            continue
        for f, secs, _ in rungs:
            want = (t[f] - t[first[0]]).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)
            want = "0.000" if want == 0 else str(want)
            n += 1
            if secs != want:
                wrong.append(f"frame {f}: {secs}, bytes {want}")
    check(n and not wrong, f"{label}: the {n} rungs' seconds since their lane's first attempt "
          "agree with tshark's frame.time_relative", "\n".join(wrong[:10]))


def check_scanners(box, check):
    """A scanner's lane says so: "scanner: probe since frame F, not a dance",
    F the first ClientHello from that client to that server (tshark's
    tls.handshake.type, ip and tcp fields), in one pass and in two, and the
    seconds are right there too."""
    for name in SCANS:
        cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
        rows = box.run(["-n", "-r", cap, "-Y", "tls.handshake.type == 1", "-T", "fields",
                        "-e", "frame.number", "-e", "ip.src", "-e", "ip.dst", "-e",
                        "tcp.dstport"]).stdout.splitlines()
        first = {}
        for r in rows:
            f, src, dst, port = r.split("\t")
            first.setdefault((src, f"{dst}:{port}"), int(f))
        for mode in ([], ["-2"]):
            label = f"{name}{' -2' if mode else ''}"
            out = box.run(mode + ["-n", "-r", cap, "-q", "-z", "tlsneg,ladder"]).stdout
            found = lanes(out)
            check(found, f"{label}: lanes in the ladder", out)
            for heading, _ in found:
                m = re.match(r"^(\S+?)(?: \(SNI [^)]*\))?, client (\S+): \d+ attempts?"
                             r"(?:; scanner: probe since frame (\d+), not a dance)?$", heading)
                want = first.get((m.group(2), m.group(1))) if m else None
                check(m and want is not None and m.group(3) == str(want),
                      f"{label}: {heading.split(',')[0]}'s lane says scanner: probe since frame "
                      f"{want}, not a dance", heading)
            check_seconds(box, cap, label, out, check)


def check_flow_graph(box, check):
    """Wireshark's own Flow Graph (-z flow,any,network: what Statistics >
    Flow Graph draws, All Flows), limited to the hellos, alerts and resets,
    has an arrow for each of them, and tlsneg's Info note on each fallback
    retry (the frames tshark's tlsneg.fallback filter finds): the dance, as
    the tutorial shows it."""
    name = "fallback-chain.pcap"
    cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
    flt = "tlsneg || tcp.flags.reset == 1"
    frames = {}
    for line in box.run(["-n", "-r", cap, "-Y", flt, "-T", "fields", "-e", "frame.number",
                         "-e", "frame.time_relative"]).stdout.splitlines():
        f, t = line.split("\t")
        frames[f"{Decimal(t):.6f}"] = int(f)
    retries = {int(f) for f in box.run(["-n", "-r", cap, "-Y", "tlsneg.fallback", "-T", "fields",
                                        "-e", "frame.number"]).stdout.split()}
    flow = box.run(["-n", "-r", cap, "-q", "-z", f"flow,any,network,{flt}"]).stdout
    rows = {}
    for line in flow.splitlines():
        m = re.match(r"^\|(\d+\.\d{6}) *\|.*\|([^|]*)$", line)
        if m:
            rows[frames.get(m.group(1))] = m.group(2)
    check(sorted(f for f in rows if f) == sorted(frames.values()) and retries,
          f"{name}: the Flow Graph draws an arrow for each of the {len(frames)} hellos, alerts "
          "and resets", flow)
    for f in sorted(retries):
        check("[fallback: " in rows.get(f, ""), f"{name}: the Flow Graph's frame {f}, a "
              "fallback retry, carries tlsneg's note", rows.get(f, "(no row)"))


def rung_text(line):
    text = line.strip()
    if text.endswith(">"):
        return text.rstrip(">").rstrip("-").rstrip()
    return text.lstrip("<").lstrip("-").lstrip()


def check_svg(box, cap, label, mode, text_out, check):
    """The SVG names the same frames, rungs and notes as the text ladder."""
    svg = box.run(mode + ["-n", "-r", cap, "-q", "-z", "tlsneg,ladder-svg"]).stdout
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as e:
        check(False, f"{label}: the SVG ladder is well-formed XML", f"{e}\n{svg[:400]}")
        return
    ns = "{http://www.w3.org/2000/svg}"
    check(root.tag == ns + "svg", f"{label}: the SVG ladder is well-formed SVG", root.tag)
    texts = [(t.get("class"), "".join(t.itertext())) for t in root.iter(ns + "text")]
    rungs, notes = [], []
    for line in text_out.splitlines():
        m = RUNG.match(line)
        if m:
            rungs.append((m.group(1), rung_text(m.group(3)), m.group(2)))
        elif line.startswith(" " * 12):
            notes.append(line.strip())
    frames = [t for c, t in texts if c == "frame"]
    msgs = [t for c, t in texts if c == "msg"]
    times = [t for c, t in texts if c == "time"]
    check(frames == [f for f, _, _ in rungs] and msgs == [t for _, t, _ in rungs] and
          times == [t for _, _, t in rungs],
          f"{label}: the SVG draws the {len(rungs)} rungs of the text ladder, same frames, "
          "same words, same seconds", f"svg {list(zip(frames, msgs, times))[:6]}\n"
          f"text {rungs[:6]}")
    # Nothing drawn past the right edge: the server's name, centred on its
    # lifeline, is at most 0.64 em a character wide (DejaVu Sans at 13 px
    # draws digits 1303/2048 em wide, its letters here narrower).
    width = float(root.get("width"))
    for t in root.iter(ns + "text"):
        if t.get("class") == "peer" and t.get("text-anchor") == "middle":
            half = len("".join(t.itertext())) * 13 * 0.64 / 2
            check(float(t.get("x")) + half <= width,
                  f"{label}: the SVG ({width:.0f} wide) holds {''.join(t.itertext())!r}",
                  f"x {t.get('x')}, half its width up to {half:.0f}")
    svg_notes = [t.strip() for c, t in texts if c == "note"]
    fails = [n for n in notes if re.match(r"#\d+ \(frame \d+\) failed: ", n)]
    check(all(n in svg_notes for n in fails),
          f"{label}: the SVG says the {len(fails)} failures the text says", "\n".join(svg_notes))


def check_info_notes(box, cap, name, want, check):
    # The packet list as printed (in Wireshark 4.4, -T fields' _ws.col.Info
    # is taken before the postdissectors add to it).
    info = {}
    for line in box.run(["-n", "-r", cap, "-o",
                         'gui.column.format:"No.","%m","Info","%i"']).stdout.splitlines():
        m = re.match(r"^\s*(\d+)\s+(.*)$", line)
        if m:
            info[int(m.group(1))] = m.group(2)
    marked = {int(f) for f in box.run(["-n", "-r", cap, "-Y", "tlsneg.fallback", "-T", "fields",
                                       "-e", "frame.number"]).stdout.split()}
    for frame in sorted(marked):
        check(re.search(r"\[fallback: ", info.get(frame, "")),
              f"{name}: frame {frame}, a fallback retry, says so in the Info column",
              info.get(frame, ""))
    previous = None
    for frame, (from_client, pattern, *extra) in sorted(want.items()):
        notes = re.findall(r"\[fallback: ([^\]]*)\]", info.get(frame, ""))
        if pattern.startswith("ClientHello") and not pattern.startswith("ClientHello again"):
            highest, scsv = extra
            for n in notes:
                expect = f"{NAMES[previous]} -> {NAMES[highest]}, {'SCSV' if scsv else 'no SCSV'}" \
                    if previous else None
                check(n == expect, f"{name}: frame {frame} [fallback: {n}] agrees with the "
                      "ClientHellos' bytes", f"bytes say: {expect}")
            previous = highest
        elif pattern.startswith("ServerHello"):
            has = "[DOWNGRD]" in info.get(frame, "")
            check(has == extra[0], f"{name}: frame {frame} {'has' if has else 'has no'} [DOWNGRD], "
                  "as its random says", info.get(frame, ""))
        elif notes:
            check(False, f"{name}: a fallback note on frame {frame}, which is no ClientHello")
    # A client's fatal alert illegal_parameter (47, RFC 8446 4.1.3) after a
    # ServerHello whose random ends with a sentinel, in a connection whose
    # ClientHello offered TLS 1.3 (0x0304 in supported_versions): the client
    # caught the downgrade.
    wire = ["frame.number", "tcp.stream", "tcp.srcport", "tls.handshake.type",
            "tls.handshake.random", "tls.handshake.extensions.supported_version",
            "tls.alert_message.level", "tls.alert_message.desc"]
    args = ["-n", "-r", cap, "-Y", "tls.handshake.type || tls.alert_message", "-T", "fields",
            "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in wire:
        args += ["-e", f]
    state = {}
    for line in box.run(args).stdout.splitlines():
        r = dict(zip(wire, line.split("\t")))
        st = state.setdefault(r["tcp.stream"], {})
        types = r["tls.handshake.type"].split(",")
        frame = int(r["frame.number"])
        if types[0] == "1":
            st["client"] = r["tcp.srcport"]
            st["tls13"] = "0x0304" in r["tls.handshake.extensions.supported_version"].split(",")
        elif types[0] == "2":
            st["sentinel"] = r["tls.handshake.random"].split(",")[0].replace(":", "").endswith(
                SENTINELS)
        elif "2" in r["tls.alert_message.level"].split(",") and "sentinel" in st and \
                r["tcp.srcport"] == st.get("client"):
            caught = st["sentinel"] and st["tls13"] and \
                "47" in r["tls.alert_message.desc"].split(",")
            has = "[client caught the downgrade]" in info.get(frame, "")
            check(has == caught, f"{name}: frame {frame}, the client's abort, "
                  f"{'says' if caught else 'does not say'} it caught the downgrade (the "
                  f"bytes: sentinel {st['sentinel']}, TLS 1.3 offered {st['tls13']}, alert "
                  f"{r['tls.alert_message.desc']})",
                  info.get(frame, ""))
    off = box.run(["-n", "-r", cap, "-o", "tlsneg.info_notes:FALSE", "-o",
                   'gui.column.format:"No.","%m","Info","%i"']).stdout
    check(not re.search(r"\[(fallback|intolerant|rejected|DOWNGRD|probe|client)", off),
          f"{name}: -o tlsneg.info_notes:FALSE leaves the Info column alone")


# pq-split-rst-classical-retry.pcap (tests/captures/readoff/pq.json, tshark's
# tls.handshake.extensions_key_share_group): the ClientHello of frame 7 sends shares for
# 0x11ec (X25519MLKEM768) and 0x001d (x25519) and is reset (frame 8); the retry in frame 12
# sends 0x001d alone; the ServerHello of frame 14 selects 0x001d.
GROUP_MOVE = ("pq-split-rst-classical-retry.pcap", {
    12: "#2 ClientHello, up to TLS 1.3, key share X25519MLKEM768+x25519 -> x25519 ",
    14: " ServerHello: TLS 1.3 in force, x25519"})


def check_group_move(box, check):
    """The group move on the retry's rung and the group in force on the
    completed one, in the text and the SVG."""
    name, want = GROUP_MOVE
    cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
    out = box.run(["-n", "-r", cap, "-q", "-z", "tlsneg,ladder"]).stdout
    svg = box.run(["-n", "-r", cap, "-q", "-z", "tlsneg,ladder-svg"]).stdout
    for frame, text in want.items():
        line = next((l for l in out.splitlines() if re.match(rf"^ *{frame}  ", l)), "")
        check(text in line, f"{name}: frame {frame}'s rung says {text.strip()!r}", out)
        check(html.escape(text.strip(), quote=False) in svg,
              f"{name}: the SVG says it too", svg[:2000])


# The split post-quantum hellos that the front reset, closed or alerted on
# after their first segment: the server's ending comes in a frame before the
# one that completes the ClientHello (tcp.flags.reset / tcp.flags.fin /
# tls.alert_message against tls.handshake.type == 1, per tcp.stream).
EARLY_ENDS = ("pq-split-rst-classical-retry.pcap", "pq-split-close-classical-retry.pcap",
              "pq-split-alert-classical-retry.pcap")


def check_early_ends(box, check):
    """An ending before the ClientHello was complete says so on its rung."""
    wire = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.dstport", "tcp.flags.reset",
            "tcp.flags.fin", "tls.handshake.type", "tls.alert_message.desc"]
    for name in EARLY_ENDS:
        cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
        args = ["-n", "-r", cap, "-T", "fields", "-E", "occurrence=f"]
        for f in wire:
            args += ["-e", f]
        syn = box.run(["-n", "-r", cap, "-Y", "tcp.flags.syn == 1 && tcp.flags.ack == 0", "-T",
                       "fields", "-e", "tcp.stream", "-e", "tcp.dstport"]).stdout
        server = dict(l.split("\t") for l in syn.splitlines() if l)
        first_end, hello = {}, {}
        for line in box.run(args).stdout.splitlines():
            r = dict(zip(wire, line.split("\t")))
            frame, stream = int(r["frame.number"]), r["tcp.stream"]
            if r["tls.handshake.type"] == "1":
                hello.setdefault(stream, frame)
            ending = r["tcp.flags.reset"] in ("1", "True") or r["tcp.flags.fin"] in ("1", "True") \
                or r["tls.alert_message.desc"]
            if ending and r["tcp.srcport"] == server.get(stream) and stream not in hello:
                first_end.setdefault(stream, frame)
        early = sorted(f for s, f in first_end.items() if s in hello and f < hello[s])
        out = box.run(["-n", "-r", cap, "-q", "-z", "tlsneg,ladder"]).stdout
        for frame in early:
            line = next((l for l in out.splitlines() if re.match(rf"^ *{frame}  ", l)), "")
            check(line.endswith("before the ClientHello was complete"),
                  f"{name}: frame {frame}, the server's ending before the hello's last segment, "
                  "says so on its rung", out)
        check(len(early) == 1, f"{name}: the bytes show one such ending ({early})")


def check_dtls_names(box, check):
    """NSS's DTLS 1.3 draft (0x7f00 + draft, draft-ietf-tls-dtls13) is named
    DTLS on the ladder's ClientHello rungs, as tshark's dtls.* fields show
    the hello's highest offer."""
    cap = box.add_capture(os.path.join(ROOT, "pcaps", "dtls13draft-nss-client.pcap"))
    rows = box.run(["-n", "-r", cap, "-Y", "dtls.handshake.type == 1", "-T", "fields",
                    "-e", "frame.number", "-e", "dtls.handshake.extensions.supported_version",
                    "-E", "occurrence=a", "-E", "aggregator=,"]).stdout.split("\n")
    want = {}
    for r in filter(None, rows):
        frame, versions = r.split("\t")
        drafts = [int(v, 16) for v in versions.split(",") if int(v, 16) >> 8 == 0x7f]
        want[int(frame)] = f"DTLS 1.3 draft-{max(drafts) & 0xff}"
    out = box.run(["-n", "-r", cap, "-q", "-z", "tlsneg,ladder"]).stdout
    for frame, name in sorted(want.items()):
        line = re.search(rf"^ *{frame}  (.*)$", out, re.M)
        check(line and f"up to {name} " in line.group(1),
              f"dtls13draft-nss-client.pcap: frame {frame} rung says up to {name}", out)
    check(want and not re.search(r"(?<!D)TLS 1\.3 draft", out),
          "dtls13draft-nss-client.pcap: no rung calls the DTLS draft TLS", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    args = ap.parse_args()
    res = Results(max_detail=30)
    check = res.check
    box = TsharkBox.from_args(args)
    try:
        for name in CAPTURES:
            cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
            want = expected_rungs(box, cap)
            for mode in ([], ["-2"]):
                out = box.run(mode + ["-n", "-r", cap, "-q", "-z", "tlsneg,ladder"]).stdout
                got = {}
                for line in out.splitlines():
                    m = RUNG.match(line)
                    if m:
                        got.setdefault(int(m.group(1)), []).append(m.group(3))
                label = f"{name}{' -2' if mode else ''}"
                check(sorted(got) == sorted(want),
                      f"{label}: a rung for each of the {len(want)} frames the bytes name",
                      f"ladder frames {sorted(got)}\nbytes' frames {sorted(want)}\n{out}")
                for frame, (from_client, pattern, *_) in sorted(want.items()):
                    lines = got.get(frame, [])
                    text = lines[0] if len(lines) == 1 else ""
                    direction = text.endswith(">") if from_client else text.startswith("<")
                    check(len(lines) == 1 and direction and re.search(pattern, text),
                          f"{label}: frame {frame} {'->' if from_client else '<-'} /{pattern}/",
                          "\n".join(lines) or "(no rung)")
                attempts = sum(1 for fc, p, *_ in want.values() if p.startswith("ClientHello")
                               and fc)
                heads = re.findall(r": (\d+) attempts?$", out, re.M)
                check(" scanner" not in out, f"{label}: no lane of this dance is called a "
                      "scanner's probe", out)
                check(sum(map(int, heads)) <= attempts and heads,
                      f"{label}: the headings count at most the {attempts} ClientHellos",
                      out)
                said = {int(h): t for k, h, t in re.findall(
                    r"^ +#(\d+) \(frame (\d+)\) (failed: .*)$", out, re.M)}
                fails = {h: t for h, (f, t) in expected_failures(box, cap).items()}
                check(said == fails, f"{label}: the ladder says how and where each of the "
                      f"{len(fails)} failed attempts failed, as the bytes show",
                      f"ladder {said}\nbytes {fails}")
                check_svg(box, cap, label, mode, out, check)
                check_seconds(box, cap, label, out, check)
            check_titles(box, cap, name, want, check)
            check_info_notes(box, cap, name, want, check)
        check_group_move(box, check)
        check_early_ends(box, check)
        check_scanners(box, check)
        check_flow_graph(box, check)


        check_dtls_names(box, check)
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
