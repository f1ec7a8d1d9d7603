#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg's expert texts fit Wireshark's label and say each sentence once.

Wireshark 4.0 cuts an item's label at ITEM_LABEL_LENGTH (240 bytes, counting
"Expert Info (Warning/Security): ") and an expert message at the same length,
mid-word, RFC reference lost. For every capture (a manifest in expect/), with
two passes (-2, as the GUI): every TLSNEG line of `-z expert` ends with its
RFC reference in brackets and is at most 200 characters; no tlsneg expert
item of the tree says "[truncated]"; in each frame's tree each expert text appears
exactly twice, the expert item and the message child Wireshark puts under it,
nowhere else; an expert text cut to fit (" ... ") has its whole sentence once
below its finding, and only then. The same texts come in one pass without a
tree (-q -z expert, and -Y _ws.expert), where tlsneg adds its items only
because these read them; its protocol item stays for -z io,phs."""
import argparse
import glob
import os
import re

from tests.captures import tsharkbox
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIMIT = 200


def captures():
    """The capture of each manifest, relative to the checkout."""
    out = []
    for m in sorted(glob.glob(os.path.join(HERE, "expect", "*.expect"))):
        for line in open(m):
            if line.startswith("capture "):
                out.append(line.split()[1])
                break
    return out


def frames(tree):
    """The -V -O tlsneg text cut into frames: frame number -> its tlsneg lines."""
    out, cur = {}, None
    for line in tree.splitlines():
        m = re.match(r"^Frame (\d+):", line)
        if m:
            cur = int(m.group(1))
            out[cur] = []
        elif cur is not None and line.startswith(" "):
            out[cur].append(line)
    return out


def frame_problems(label, lines):
    """What is wrong with one frame's tlsneg tree, in words."""
    bad = []

    def check(ok, what, detail=""):
        if not ok:
            bad.append(f"{what}: {detail}")
    text = "\n".join(lines)
    cut = [l for l in lines if "[truncated]" in l and "Expert Info" in l]
    check(not cut, f"{label}: an expert label cut", "\n".join(cut))
    experts = re.findall(r"^( *)\[Expert Info \([^)]*\): (.*)\]$", text, re.M)
    for indent, msg in experts:
        count = len(re.findall(r"^ *\[?" + re.escape(msg) + r"\]?$", text, re.M))
        # the expert item's title and the filterable message child under it
        check(count == 1 and text.count(msg) == 2,
              f"{label}: the expert text not said once (and by Wireshark's message child)",
              f"{msg!r}: {text.count(msg)} times")
    # the sentence of a cut expert text: the plain lines of its finding, joined
    for m in re.finditer(r"^ {4}\[Finding: \w+\]\n((?: {8}.*\n?)*)", text, re.M):
        body = m.group(1).splitlines()
        title = [l for l in body if l.startswith("        [Expert Info")]
        plain = " ".join(l.strip() for l in body if l.startswith("        ") and
                         not l.startswith("        [") and not l.startswith("         "))
        cut = bool(title) and " ... " in title[0]
        if cut:
            head = re.match(r".*?\): (.*) \.\.\. ", title[0]).group(1)
            check(plain.startswith(head) and plain.endswith("]") and " ... " not in plain,
                  f"{label}: a cut expert text without its whole sentence below, once", plain)
        else:
            check(plain == "", f"{label}: an expert text that fits written again", plain)
    return bad


def texts(out):
    """The TLSNEG expert texts of a -z expert listing."""
    return {l.split("TLSNEG  ", 1)[1] for l in out.splitlines() if re.search(r"\bTLSNEG\s{2}", l)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    tsharkbox.add_arguments(ap)
    ap.add_argument("only", nargs="*", help="capture file names (default: every manifest's)")
    args = ap.parse_args()
    res = Results(max_detail=30)
    check = res.check
    box = TsharkBox.from_args(args)
    one_pass = 0
    try:
        for rel in captures():
            if args.only and os.path.basename(rel) not in args.only:
                continue
            path = os.path.join(ROOT, rel)
            check(os.path.exists(path), f"{rel}: the capture exists")
            cap = box.add_capture(path)
            out = box.run(["-2", "-n", "-r", cap, "-V", "-O", "tlsneg", "-z", "expert"]).stdout
            tree = re.split(r"\n\S[^\n]*\(\d+\)\n=+\n", out)[0]
            lines = [l for l in out.splitlines() if re.search(r"\bTLSNEG\s{2}", l)]
            bad = [l for l in lines
                   if not re.search(r"\[[^\]]+\]$", l) or len(l.split("TLSNEG  ", 1)[1]) > LIMIT]
            check(not bad, f"{rel}: {len(lines)} expert texts in -z expert end with their "
                           f"RFC reference, at most {LIMIT} characters", "\n".join(bad))
            bad, said = [], set()
            for frame, flines in frames(tree).items():
                bad += frame_problems(f"frame {frame}", flines)
                said |= {m for m in re.findall(r"\[Expert Info \([^)]*\): (.*)\]$",
                                               "\n".join(flines), re.M)}
            summed = texts(out)
            n = len(said)
            check(not bad and said == summed,
                  f"{rel}: each of the {n} expert texts of the tree said once (its item and "
                  f"Wireshark's message child), a cut one's sentence once below it",
                  "\n".join(bad) or f"tree only: {said - summed}\n-z expert only: {summed - said}")
            # One pass (a later frame's note on an earlier one needs two):
            # with the packet list's columns, tlsneg adds its items; with no
            # tree shown and no columns (-q), only because the expert tap or
            # a filter on _ws.expert reads them.
            listed = texts(box.run(["-n", "-r", cap, "-z", "expert"]).stdout)
            quiet = texts(box.run(["-n", "-r", cap, "-q", "-z", "expert"]).stdout)
            filtered = box.run(["-n", "-r", cap, "-Y", "_ws.expert", "-T", "fields", "-E",
                                "aggregator=\x1e", "-e", "_ws.expert.message"]).stdout
            # tshark 4.4 and 4.6 (not 4.0) write a backslash of a field's text twice
            filtered = {m.replace("\\\\", "\\") for line in filtered.splitlines()
                        for m in line.split("\x1e")} & listed
            one_pass += len(listed)
            check(quiet == listed and filtered == listed,
                  f"{rel}: the {len(listed)} expert texts of one pass also with -q -z expert "
                  f"and with -Y _ws.expert",
                  f"-q lacks: {listed - quiet}\n-Y _ws.expert lacks: {listed - filtered}")
        check(one_pass > 0, f"{one_pass} expert texts compared in one pass")
        # Where nothing reads the rest, the tlsneg item itself stays: the
        # protocol hierarchy counts it, in each frame tlsneg shows.
        cap = box.add_capture(os.path.join(ROOT, "pcaps", "fallback-chain.pcap"))
        phs = re.search(r"^\s*tlsneg\s+frames:(\d+)",
                        box.run(["-n", "-r", cap, "-q", "-z", "io,phs"]).stdout, re.M)
        shown = box.run(["-n", "-r", cap, "-Y", "tlsneg", "-T", "fields", "-e",
                         "frame.number"]).stdout.split()
        check(phs and int(phs[1]) == len(shown) > 0,
              f"fallback-chain.pcap: -q -z io,phs counts tlsneg in the {len(shown)} frames that "
              f"show it", phs[0] if phs else "no tlsneg line")
    finally:
        box.close()
    return res.summary()


if __name__ == "__main__":
    raise SystemExit(main())
