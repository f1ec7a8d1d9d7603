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
from tests.profile import colours
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PROFILE = "TLS Negotiation"
CAPTURE = os.path.join(ROOT, "pcaps", "fallback-chain.pcap")
# Fallback retries without and with TLS_FALLBACK_SCSV, for the rules that tell them apart.
SCSV_CAPTURES = [CAPTURE, os.path.join(ROOT, "pcaps", "intolerant-rst-scsv.pcap")]
# A ClientHello whose two segments arrive in the wrong order.
REORDERED = os.path.join(ROOT, "pcaps", "tcp-out-of-order-hello.pcap")
# DTLS ServerHellos with DTLS 1.0, 1.2 and 1.3 in force; TLS ones for contrast.
BELOW_CAPTURES = ["synth-dtls13.pcap", "dtls12-openssl.pcap", "dtls13draft-nss-client.pcap",
                  "fallback-chain.pcap", "tls13-openssl.pcap"]
# ServerHellos with a downgrade sentinel: relayed by a man in the middle
# (warning), from servers the client offered nothing higher (benign), and
# one that puts TLS 1.3 in force (synthetic: neither).
SENTINEL_CAPTURES = ["downgrade-sentinel-mitm.pcap", "downgrade-sentinel-tls11-mitm.pcap",
                     "sentinel-tls12-server.pcap", "scan-testssl-tls12.pcap", "scan-nmap-tls12.pcap",
                     "synth-server-selects.pcap"]
# An attempt that fails by the server's FIN (frame 6), another by a reset.
ENDINGS_CAPTURES = ["intolerant-close.pcap", "intolerant-rst.pcap", "intolerant-alert.pcap"]
# Short names the columns must show, by code point (RFC 8446, RFC 9147).
SHORT = {0x0300: "SSL 3.0", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1", 0x0303: "TLS 1.2",
         0x0304: "TLS 1.3", 0xfeff: "DTLS 1.0", 0xfefd: "DTLS 1.2", 0xfefc: "DTLS 1.3"}
# The last 8 bytes of ServerHello.random that mark a downgrade, and the
# version each proves the server supports: DOWNGRD\x01 and \x00 (RFC 8446
# 4.1.3), and the value JDK 11 sent (as BoringSSL's handshake_client.cc
# names it), which proves TLS 1.3.
SENTINELS = {"444f574e47524401": 0x0304, "444f574e47524400": 0x0303,
             "edbfb4a8c24710ff": 0x0304}
HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
# Smallest WCAG contrast of a rule's text on its background (AAA, normal
# text), smallest CIEDE2000 difference between two of tlsneg's backgrounds.
MIN_CONTRAST = 7.0
MIN_DELTA_E = 20.0
# The selected row's colour in Wireshark 4.0.17's packet list under Xvfb
# (Qt's Fusion highlight, read off a screenshot's pixels): a rule's colour
# must not pass for a selection.
SELECTION = (48 * 257, 140 * 257, 198 * 257)


def columns(text):
    """(title, format) pairs of gui.column.format."""
    body = text.split("gui.column.format:", 1)[1]
    return re.findall(r'"([^"]*)",\s*"([^"]*)"', body)


def color_filters(text):
    return re.findall(r"^@([^@]+)@([^@]+)@\[", text, re.M)


def color_rules(text):
    """(name, filter, background, foreground) of each rule, 16-bit RGB."""
    return [(n, f, tuple(map(int, bg.split(","))), tuple(map(int, fg.split(","))))
            for n, f, bg, fg in re.findall(r"^@([^@]+)@([^@]+)@\[([\d,]+)\]\[([\d,]+)\]",
                                             text, re.M)]


def column_widths(text):
    """(format, width) pairs of the recent file's column.width, as Wireshark
    4.0's ui/recent.c reads them: a format ("%m", or "%Cus:FIELDS" quoted),
    then a width in pixels, optionally ":" and an alignment letter."""
    body = text.split("column.width:", 1)[1]
    items = [i.strip().strip('"') for i in body.split(",")]
    return [(items[k], items[k + 1]) for k in range(0, len(items) - 1, 2)]


def buttons(text):
    return [row[1:3] for row in re.findall(r'^"(TRUE|FALSE)","([^"]*)","([^"]*)"', text, re.M)]


def field_names(expr):
    return set(re.findall(r"\b(?:tlsneg|tcp|udp|tls|dtls)(?:\.[a-z0-9_]+)+", expr)) | \
        ({"tlsneg"} if re.search(r"\btlsneg\b(?!\.)", expr) else set())


def fields(box, cap, expr, *names, two_pass=True):
    """Rows of tshark -T fields (-2 unless told) for frames matching expr."""
    args = ["-n"] + (["-2"] if two_pass else []) + ["-r", cap, "-Y", expr, "-T", "fields"]
    for n in names:
        args += ["-e", n]
    out = box.run(args).stdout.splitlines()
    return [l.split("\t") for l in out if l.strip()]


def frames(box, cap, expr):
    return {int(r[0]) for r in fields(box, cap, expr, "frame.number") if r[0]}


def check_recent(check, cols, recent):
    """Every column of the preferences has its width in the recent file, in
    the same order and in the form Wireshark 4.0 reads back."""
    widths = column_widths(recent)
    want = [f[:-len(":0:R")] if f.startswith("%Cus:") else f for _, f in cols]
    got = [f for f, _ in widths]
    check(got == want, f"the recent file gives a width to each of the {len(want)} columns, "
          "in order", f"recent: {got}, preferences: {want}")
    bad = [w for _, w in widths if not re.fullmatch(r"[1-9]\d*(:[LCR])?", w)]
    check(not bad, "every width is a positive number of pixels, with an optional alignment", bad)


def check_colours(check, rules, defaults_text, ws_version):
    """tlsneg's rules first, Wireshark's defaults after them unchanged;
    tlsneg's colours readable and told apart. The profile carries the
    defaults of Wireshark 4.0 (the SDK): compared whole there; a later
    Wireshark changed a few of its defaults (4.4: the TTL rule split in two),
    so there the profile's tail is checked to be mostly this version's."""
    defaults = color_rules(defaults_text)
    n = 0
    while n < len(rules) and (rules[n][1].count("tlsneg") or rules[n][0] == "TCP reset"):
        n += 1
    ours, tail = rules[:n], rules[n:]
    if ws_version == "4.0":
        check(len(defaults) >= 10 and tail == defaults,
              f"Wireshark's {len(defaults)} default colouring rules follow tlsneg's {len(ours)}, "
              "unchanged", [r[0] for r in tail])
    else:
        same = sum(r in defaults for r in tail)
        check(len(tail) >= 10 and same >= len(tail) - 2,
              f"Wireshark 4.0's {len(tail)} default colouring rules follow tlsneg's {len(ours)} "
              f"({same} of them are Wireshark {ws_version}'s defaults, unchanged)",
              [r[0] for r in tail if r not in defaults])
    check(len(ours) >= 5 and not any("tlsneg" in r[1] for r in tail),
          f"tlsneg's {len(ours)} rules come first, none after Wireshark's")
    for name, _, bg, fg in ours:
        c = colours.contrast(bg, fg)
        check(c >= MIN_CONTRAST, f"'{name}': contrast {c:.1f}:1 with its text (>= {MIN_CONTRAST})")
    worst = min((colours.ciede2000(a[2], b[2]), a[0], b[0])
                for i, a in enumerate(ours + [("the selected row", "", SELECTION, None)])
                for b in ours[i + 1:])
    check(worst[0] >= MIN_DELTA_E, f"tlsneg's backgrounds differ from each other and from the "
          f"selected row's by CIEDE2000 >= {MIN_DELTA_E} "
          f"(closest: '{worst[1]}' and '{worst[2]}', {worst[0]:.1f})")


def coloured(box, cap, name):
    """Frames tshark colours with the rule called name, with the profile."""
    rows = box.run(["-n", "-2", "-C", PROFILE, "--color", "-r", cap, "-T", "fields",
                    "-e", "frame.number", "-e", "frame.coloring_rule.name"]).stdout.splitlines()
    return {int(r.split("\t")[0]) for r in rows if r.split("\t")[1:] == [name]}


def check_sentinels(check, box):
    """A ServerHello of TLS 1.2 or lower whose random ends with a sentinel
    is a warning when its client offered the version that sentinel proves,
    else benign; one that puts TLS 1.3 in force is neither (the sentinel
    does not belong there): read off tshark's own TLS fields."""
    seen = {"warn": 0, "benign": 0, "neither": 0}
    for name in SENTINEL_CAPTURES:
        cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
        offers = {}
        for f, stream, legacy, sv in fields(box, cap, "tls.handshake.type == 1", "frame.number",
                                            "tcp.stream", "tls.handshake.version",
                                            "tls.handshake.extensions.supported_version"):
            vs = [int(v, 16) for v in (sv.split(",") if sv else [legacy])]
            offers[stream] = max((v for v in vs if v in SHORT), default=0)
        want = {"warn": set(), "benign": set(), "neither": set()}
        for f, stream, rnd, legacy, sv in fields(box, cap, "tls.handshake.type == 2",
                                                 "frame.number", "tcp.stream",
                                                 "tls.handshake.random", "tls.handshake.version",
                                                 "tls.handshake.extensions.supported_version"):
            tail = rnd.replace(":", "")[-16:]
            if tail not in SENTINELS:
                continue
            proves = SENTINELS[tail]
            if int(sv or legacy, 16) == 0x0304:
                want["neither"].add(int(f))
            else:
                want["warn" if offers.get(stream, 0) >= proves else "benign"].add(int(f))
        got = {"warn": coloured(box, cap, "Downgrade warning"),
               "benign": coloured(box, cap, "Benign downgrade sentinel")}
        got["neither"] = want["neither"] - got["warn"] - got["benign"]
        for k in want:
            check(got[k] == want[k], f"{name}: the {k} sentinel colour on frames "
                  f"{sorted(want[k])}", f"coloured: {sorted(got[k])}")
            seen[k] += len(want[k])
    check(all(seen.values()), f"the captures have warning ({seen['warn']}), benign "
          f"({seen['benign']}) and TLS 1.3 ({seen['neither']}) sentinels")


def check_endings(check, box, expr):
    """The endings button keeps every FIN and RST (tshark's TCP fields) and
    every frame a Failed in frame link names."""
    for name in ENDINGS_CAPTURES:
        cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
        shown = frames(box, cap, expr)
        ends = frames(box, cap, "tcp.flags.fin == 1 || tcp.flags.reset == 1")
        links = {int(x) for r in fields(box, cap, "tlsneg.failed_in", "tlsneg.failed_in")
                 for x in r[0].split(",") if x}
        check(ends <= shown and links <= shown and links,
              f"{name}: the endings button keeps the FINs and resets and the frames "
              f"{sorted(links)} that Failed in frame names",
              f"missing: {sorted((ends | links) - shown)}")
    cap = box.add_capture(os.path.join(ROOT, "pcaps", "intolerant-close.pcap"))
    fin6 = fields(box, cap, "frame.number == 6", "tcp.flags.fin")
    # -T fields prints a boolean as 1 in 4.0, as True from 4.2 on.
    check(fin6 in ([["1"]], [["True"]]) and 6 in frames(box, cap, expr),
          "intolerant-close.pcap: frame 6, a FIN, is kept", fin6)


def check_below(check, box, expr):
    """The "below 1.3" button matches the ServerHellos (not
    HelloRetryRequests) whose version in force, from tshark's own
    supported_versions or version field, is below 1.3 in its family."""
    dtls_hits = 0
    for name in BELOW_CAPTURES:
        cap = box.add_capture(os.path.join(ROOT, "pcaps", name))
        want = set()
        for p in ("tls", "dtls"):
            for f, legacy, sv, rnd in fields(box, cap, f"{p}.handshake.type == 2", "frame.number",
                                             f"{p}.handshake.version",
                                             f"{p}.handshake.extensions.supported_version",
                                             f"{p}.handshake.random"):
                v = int((sv or legacy).split(",")[0], 16)
                if rnd.replace(":", "") == HRR_RANDOM:
                    continue
                below = v in (0xfeff, 0xfefd, 0x0100) if p == "dtls" else v < 0x0304
                if below:
                    want.add(int(f))
                    dtls_hits += p == "dtls"
        got = frames(box, cap, expr)
        check(got == want, f"{name}: the below-1.3 button matches frames {sorted(want)}",
              f"got {sorted(got)}")
    cap = box.add_capture(os.path.join(ROOT, "pcaps", "synth-dtls13.pcap"))
    check(9 in frames(box, cap, expr) and dtls_hits >= 3,
          f"synth-dtls13.pcap frame 9 (DTLS 1.0 in force) and {dtls_hits} DTLS ServerHellos match")


def profile_rows(box, cap, cols, expr):
    """The profile's columns (-T tabs) by title, by frame."""
    out = box.run(["-n", "-2", "-C", PROFILE, "-r", cap, "-Y", expr, "-T", "tabs"]).stdout
    titles = [t for t, _ in cols]
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) == len(titles) + 1 and cells[3] == "\u2192":
            del cells[3]  # the arrow tshark puts between source and destination
        if len(cells) == len(titles):
            rows[int(cells[0])] = dict(zip(titles, cells))
    return rows


def check_columns(check, box, cols):
    """Short version names, the alert's name, and an SCSV column that is
    filled exactly when the ClientHello's cipher list holds 0x5600."""
    for path in SCSV_CAPTURES + [os.path.join(ROOT, "pcaps", "synth-dtls13.pcap")]:
        cap = box.add_capture(path)
        name = os.path.basename(path)
        rows = profile_rows(box, cap, cols, "tlsneg")
        check(rows, f"{name}: the profile's {len(cols)} columns are read", "no rows")
        for p in ("tls", "dtls"):
            for f, legacy, sv in fields(box, cap, f"{p}.handshake.type == 2", "frame.number",
                                        f"{p}.handshake.version",
                                        f"{p}.handshake.extensions.supported_version"):
                v = int((sv or legacy).split(",")[0], 16)
                got = rows.get(int(f), {}).get("In force")
                check(got == SHORT[v], f"{name}: 'In force' of frame {f} is {SHORT[v]}", got)
        scsv = frames(box, cap, "tls.handshake.ciphersuite == 0x5600")
        filled = {f for f, r in rows.items() if r.get("SCSV")}
        check(filled == scsv, f"{name}: the SCSV column is filled on frames {sorted(scsv)} only",
              f"filled: {sorted(filled)}")
        for f, d in fields(box, cap, "tls.alert_message.desc", "frame.number",
                           "tls.alert_message.desc"):
            got = rows.get(int(f), {}).get("Alert", "")
            check(got.endswith(f"({int(d)})"), f"{name}: 'Alert' of frame {f} shows alert {d}", got)


def install(box, src, files):
    dest = os.path.join(box.dir, ".config", "wireshark", "profiles", PROFILE)
    os.makedirs(dest)
    for n in files:
        shutil.copy(os.path.join(src, n), dest)
    for d in (os.path.join(box.dir, ".config"), os.path.join(box.dir, ".config", "wireshark"),
              os.path.dirname(dest), dest):
        os.chmod(d, 0o755)


def check_filters(check, box, cap, cols, rules, btns):
    """Every field named exists, every filter compiles."""
    known = set(l.split("\t")[2] for l in box.run(["-G", "fields"]).stdout.splitlines()
                if l.startswith(("F\t", "P\t")) and len(l.split("\t")) > 2)
    exprs = [f[len("%Cus:"):].rsplit(":", 2)[0] for _, f in cols if f.startswith("%Cus:")]
    exprs += [e for _, e in rules] + [e for _, e in btns]
    for e in exprs:
        missing = sorted(n for n in field_names(e) if n not in known)
        check(not missing, f"every field of '{e}' exists", f"unknown: {missing}")
        p = box.run(["-n", "-r", cap, "-Y", e], check=False)
        check(p.returncode == 0, f"'{e}' compiles as a display filter", p.stderr)


def check_reordered(check, box):
    """The profile reassembles TCP out of order: the ClientHello whose
    segments crossed (its frame from tshark's own fields, with the option
    given on the command line) is a tlsneg message there."""
    c = box.add_capture(REORDERED)
    truth = box.run(["-n", "-o", "tcp.reassemble_out_of_order:TRUE", "-r", c, "-Y",
                     "tls.handshake.type == 1", "-T", "fields", "-e", "frame.number"]).stdout.split()
    shown = box.run(["-n", "-C", PROFILE, "-r", c, "-Y", "tlsneg.msg_type == 1", "-T", "fields",
                     "-e", "frame.number"]).stdout.split()
    check(truth == ["5"] and shown == truth,
          "with the profile, the ClientHello reassembled out of order is seen (frame 5)",
          f"tshark's own: {truth}, tlsneg with the profile: {shown}")


def check_scsv_rules(check, box, rules):
    """A rule that tells retries with TLS_FALLBACK_SCSV from those without
    colours only frames whose cipher list (tshark's own field) agrees, and
    colours some."""
    for name, expr in rules:
        m = re.search(r"\b(with|without) SCSV\b", name)
        if not m:
            continue
        want_scsv = m.group(1) == "with"
        hits = 0
        for path in SCSV_CAPTURES:
            c = box.add_capture(path)
            got = frames(box, c, expr)
            with_scsv = frames(box, c, "tls.handshake.ciphersuite == 0x5600")
            wrong = [f for f in got if (f in with_scsv) != want_scsv]
            check(not wrong, f"colouring rule '{name}' in {os.path.basename(path)}: only "
                  f"ClientHellos {'with' if want_scsv else 'without'} 0x5600", wrong)
            hits += len(got)
        check(hits > 0, f"colouring rule '{name}' colours {hits} frames of the test captures")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    args = ap.parse_args()
    res = Results(max_detail=20)
    check = res.check

    src = os.path.join(ROOT, "profile")
    names = ("preferences", "colorfilters", "dfilter_buttons", "recent")
    files = {n: open(os.path.join(src, n), encoding="utf-8").read() for n in names}
    cols, rules, btns = columns(files["preferences"]), color_filters(files["colorfilters"]), \
        buttons(files["dfilter_buttons"])
    check(len(cols) >= 8 and len(rules) >= 5 and len(btns) >= 4,
          f"the profile has {len(cols)} columns, {len(rules)} colouring rules, {len(btns)} buttons")
    check_recent(check, cols, files["recent"])
    btn = dict(btns)
    check({"Hellos + endings", "Below 1.3"} <= set(btn), "the endings and below-1.3 buttons exist",
          sorted(btn))

    box = TsharkBox.from_args(args)
    try:
        install(box, src, names)
        cap = box.add_capture(CAPTURE)
        check_filters(check, box, cap, cols, rules, btns)
        folders = dict(l.split(":", 1) for l in box.run(["-G", "folders"]).stdout.splitlines()
                       if ":" in l)
        glob = os.path.join(folders["Global configuration"].strip(), "colorfilters")
        check_colours(check, color_rules(files["colorfilters"]),
                      open(glob, encoding="utf-8").read(), box.ws_version)
        p = box.run(["-n", "-C", PROFILE, "--color", "-r", cap, "-c", "1", "-T", "fields",
                     "-e", "frame.coloring_rule.name"], check=False)
        check(p.returncode == 0 and "colorfilters" not in p.stderr,
              "Wireshark's own colour-filter reader takes every rule of the file", p.stderr)
        tcp = coloured(box, cap, "TCP")
        check(tcp, f"with the profile, tshark colours {len(tcp)} frames with the default rule 'TCP'")
        check_columns(check, box, cols)
        check_reordered(check, box)
        check_scsv_rules(check, box, rules)
        check_sentinels(check, box)
        check_endings(check, box, btn.get("Hellos + endings", "frame"))
        check_below(check, box, btn.get("Below 1.3", "frame"))
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
