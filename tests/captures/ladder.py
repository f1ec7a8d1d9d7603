#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The story of a capture against its bytes. -z tlsneg,ladder: every hello,
alert and attempt-ending TCP reset, read with tshark's own tls.* and tcp.*
fields (no tlsneg), is one rung of the ladder, on its frame, pointing the
right way, saying what the bytes say. The Info column notes: a
[fallback: A -> B, SCSV|no SCSV] names the highest versions of the previous
and of this ClientHello and whether this one lists 0x5600; [DOWNGRD] sits
exactly on the ServerHellos whose random ends with a sentinel; the
tlsneg.info_notes preference takes them all away."""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from tsharkbox import TsharkBox  # noqa: E402

CAPTURES = ["fallback-chain.pcap", "tls13-hrr.pcap", "intolerant-rst.pcap",
            "fallback-scsv-rejected.pcap", "tls12-only-server.pcap", "intolerant-rst-scsv.pcap",
            "downgrade-sentinel-mitm.pcap"]
SENTINELS = ("444f574e47524401", "444f574e47524400")
# RFC 8446 4.2.1 / RFC 5246: the version names the ladder must use.
NAMES = {0x0300: "SSL 3.0", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1", 0x0303: "TLS 1.2",
         0x0304: "TLS 1.3"}
# RFC 8446 6, RFC 7507: the alerts these captures carry.
ALERTS = {40: "handshake_failure", 47: "illegal_parameter", 70: "protocol_version",
          86: "inappropriate_fallback"}
HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
FIELDS = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.dstport", "tcp.flags.reset",
          "tls.handshake.type", "tls.handshake.version",
          "tls.handshake.extensions.supported_version", "tls.handshake.random",
          "tls.handshake.ciphersuite", "tls.alert_message.desc"]


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
                rungs[frame] = (False, r"HelloRetryRequest \(TLS 1\.3\)", "hrr")
            else:
                v = sv[0] if sv else versions[0]
                random = r["tls.handshake.random"].split(",")[0].replace(":", "")
                rungs[frame] = (False, r"ServerHello: " + re.escape(NAMES[v]) + " in force",
                                random.endswith(SENTINELS))
        elif r["tls.alert_message.desc"]:
            d = int(r["tls.alert_message.desc"].split(",")[0])
            rungs[frame] = (r["tcp.dstport"] == server_port.get(stream),
                            re.escape(f"alert {ALERTS[d]} ({d})"), None)
            answered.add(stream)
        elif r["tcp.flags.reset"] in ("1", "True") and stream in server_port \
                and stream not in answered:
            rungs[frame] = (r["tcp.dstport"] == server_port[stream], r"TCP reset", None)
            answered.add(stream)
    return rungs


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
    off = box.run(["-n", "-r", cap, "-o", "tlsneg.info_notes:FALSE", "-o",
                   'gui.column.format:"No.","%m","Info","%i"']).stdout
    check(not re.search(r"\[(fallback|intolerant|rejected|DOWNGRD|probe|client)", off),
          f"{name}: -o tlsneg.info_notes:FALSE leaves the Info column alone")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--sanitizers", action="store_true")
    args = ap.parse_args()
    passed = failed = 0

    def check(ok, what, detail=""):
        nonlocal passed, failed
        passed += bool(ok)
        failed += not ok
        print(("ok - " if ok else "not ok - ") + what)
        if not ok and detail:
            print("\n".join("#   " + l for l in str(detail).splitlines()[:30]))

    box = TsharkBox(args.plugin, args.tshark, args.sanitizers)
    try:
        for name in CAPTURES:
            cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
            want = expected_rungs(box, cap)
            for mode in ([], ["-2"]):
                out = box.run(mode + ["-n", "-r", cap, "-q", "-z", "tlsneg,ladder"]).stdout
                got = {}
                for line in out.splitlines():
                    m = re.match(r"^ {0,7}(\d+)  (.*)$", line)
                    if m:
                        got.setdefault(int(m.group(1)), []).append(m.group(2))
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
                check(sum(map(int, heads)) <= attempts and heads,
                      f"{label}: the headings count at most the {attempts} ClientHellos",
                      out)
            check_info_notes(box, cap, name, want, check)
    finally:
        box.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
