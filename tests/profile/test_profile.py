#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The "TLS Negotiation" profile (profile/): tshark loads it with the fresh
plugin, every field it names exists, every filter of its colouring rules and
buttons compiles, and its columns show what the bytes say."""
import argparse
import os
import re
import shutil
import sys

from tests.captures import tsharkbox
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PROFILE = "TLS Negotiation"
CAPTURE = os.path.join(ROOT, "pcaps", "fallback-chain.pcap")
# Fallback retries without and with TLS_FALLBACK_SCSV, for the rules that tell them apart.
SCSV_CAPTURES = [CAPTURE, os.path.join(ROOT, "pcaps", "intolerant-rst-scsv.pcap")]
# A ClientHello whose two segments arrive in the wrong order.
REORDERED = os.path.join(ROOT, "pcaps", "tcp-out-of-order-hello.pcap")


def columns(text):
    """(title, format) pairs of gui.column.format."""
    body = text.split("gui.column.format:", 1)[1]
    return re.findall(r'"([^"]*)",\s*"([^"]*)"', body)


def color_filters(text):
    return re.findall(r"^@([^@]+)@([^@]+)@\[", text, re.M)


def buttons(text):
    return [row[1:3] for row in re.findall(r'^"(TRUE|FALSE)","([^"]*)","([^"]*)"', text, re.M)]


def field_names(expr):
    return set(re.findall(r"\b(?:tlsneg|tcp|udp|tls|dtls)(?:\.[a-z0-9_]+)+", expr)) | \
        ({"tlsneg"} if re.search(r"\btlsneg\b(?!\.)", expr) else set())


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    args = ap.parse_args()
    res = Results(max_detail=20)
    check = res.check

    src = os.path.join(ROOT, "profile")
    files = {n: open(os.path.join(src, n), encoding="utf-8").read()
             for n in ("preferences", "colorfilters", "dfilter_buttons")}
    cols, rules, btns = columns(files["preferences"]), color_filters(files["colorfilters"]), \
        buttons(files["dfilter_buttons"])
    check(len(cols) >= 8 and len(rules) >= 5 and len(btns) >= 4,
          f"the profile has {len(cols)} columns, {len(rules)} colouring rules, {len(btns)} buttons")

    box = TsharkBox.from_args(args)
    try:
        dest = os.path.join(box.dir, ".config", "wireshark", "profiles", PROFILE)
        os.makedirs(dest)
        for n in files:
            shutil.copy(os.path.join(src, n), dest)
        for d in (os.path.join(box.dir, ".config"), os.path.join(box.dir, ".config", "wireshark"),
                  os.path.dirname(dest), dest):
            os.chmod(d, 0o755)
        cap = box.add_capture(CAPTURE)

        known = set(l.split("\t")[2] for l in box.run(["-G", "fields"]).stdout.splitlines()
                    if l.startswith(("F\t", "P\t")) and len(l.split("\t")) > 2)
        exprs = [f[len("%Cus:"):].rsplit(":", 2)[0] for _, f in cols if f.startswith("%Cus:")]
        exprs += [e for _, e in rules] + [e for _, e in btns]
        for e in exprs:
            missing = sorted(n for n in field_names(e) if n not in known)
            check(not missing, f"every field of '{e}' exists", f"unknown: {missing}")
            p = box.run(["-n", "-r", cap, "-Y", e], check=False)
            check(p.returncode == 0, f"'{e}' compiles as a display filter", p.stderr)

        # The columns, as a user of the profile reads them; the truth from
        # tshark's own TLS fields (no tlsneg): ServerHello frame and version,
        # the alerts, and the ClientHellos' highest legacy or supported version.
        p = box.run(["-n", "-C", PROFILE, "-r", cap, "-Y", "tlsneg"])
        rows = {int(l.split()[0]): l for l in p.stdout.splitlines() if l.strip()}
        truth = box.run(["-n", "-r", cap, "-Y", "tls.handshake.type == 2", "-T", "fields",
                         "-e", "frame.number", "-e", "tls.handshake.version"]).stdout.split()
        frame, version = int(truth[0]), int(truth[1], 16)
        check(f"(0x{version:04x})" in rows.get(frame, ""),
              f"the 'In force' column of frame {frame} shows 0x{version:04x}", rows.get(frame))
        alerts = box.run(["-n", "-r", cap, "-Y", "tls.alert_message.desc", "-T", "fields",
                          "-e", "frame.number", "-e", "tls.alert_message.desc"]).stdout.split()
        for f, d in zip(alerts[::2], alerts[1::2]):
            check(f"({int(d)})" in rows.get(int(f), ""),
                  f"the 'Alert' column of frame {f} shows alert {d}", rows.get(int(f)))
        check(len(alerts) >= 2, f"the capture has alerts to show ({len(alerts) // 2})")

        # The profile reassembles TCP out of order: the ClientHello whose
        # segments crossed (its frame from tshark's own fields, with the
        # option given on the command line) is a tlsneg message there.
        c = box.add_capture(REORDERED)
        truth = box.run(["-n", "-o", "tcp.reassemble_out_of_order:TRUE", "-r", c, "-Y",
                         "tls.handshake.type == 1", "-T", "fields", "-e", "frame.number"]).stdout.split()
        shown = box.run(["-n", "-C", PROFILE, "-r", c, "-Y", "tlsneg.msg_type == 1", "-T", "fields",
                         "-e", "frame.number"]).stdout.split()
        check(truth == ["5"] and shown == truth,
              "with the profile, the ClientHello reassembled out of order is seen (frame 5)",
              f"tshark's own: {truth}, tlsneg with the profile: {shown}")

        # A rule that tells retries with TLS_FALLBACK_SCSV from those without
        # colours only frames whose cipher list (tshark's own field) agrees,
        # and colours some.
        for name, expr in rules:
            m = re.search(r"\b(with|without) SCSV\b", name)
            if not m:
                continue
            want_scsv = m.group(1) == "with"
            hits = 0
            for path in SCSV_CAPTURES:
                c = box.add_capture(path)
                frames = box.run(["-n", "-r", c, "-Y", expr, "-T", "fields",
                                  "-e", "frame.number"]).stdout.split()
                with_scsv = set(box.run(["-n", "-r", c, "-Y", "tls.handshake.ciphersuite == 0x5600",
                                         "-T", "fields", "-e", "frame.number"]).stdout.split())
                wrong = [f for f in frames if (f in with_scsv) != want_scsv]
                check(not wrong, f"colouring rule '{name}' in {os.path.basename(path)}: only "
                      f"ClientHellos {'with' if want_scsv else 'without'} 0x5600", wrong)
                hits += len(frames)
            check(hits > 0, f"colouring rule '{name}' colours {hits} frames of the test captures")
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
