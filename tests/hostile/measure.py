#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Measure tshark with and without tlsneg on (hostile) captures.

Usage: python3 -m tests.hostile.measure --plugin build/tlsneg.so [--two-pass] [--tree] [-o PREF:VALUE] CAPTURE...

For each capture, `tshark -r CAPTURE` (output thrown away) runs under
/usr/bin/time -v twice: with the plugin loaded from a fresh private folder
(tests/captures/tsharkbox.py), and with an empty plugin folder. Prints wall
time, peak RSS, their differences and the number of hellos tlsneg analysed.
--two-pass adds the same with -2. --tree prints, for every hello, how many
items tlsneg's tree has in `tshark -V` and how many lines the whole frame
has (Wireshark's own TLS tree included), to check the tree stays usable.
"""
import argparse
import os
import re
import subprocess
import sys

from tests.captures import tsharkbox
from tests.captures.tsharkbox import TsharkBox

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def prefix():
    if os.geteuid() == 0:
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    return []


def timed(box, env, args):
    p = subprocess.run(["/usr/bin/time", "-v"] + prefix() + [box.tshark] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                       cwd=box.dir)
    if p.returncode != 0:
        raise RuntimeError("tshark %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr).group(1)
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return secs, rss


def count_hellos(box, env, name):
    p = subprocess.run(prefix() + [box.tshark, "-r", name, "-T", "fields", "-e", "tlsneg.msg_type"],
                       capture_output=True, text=True, env=env, cwd=box.dir)
    return sum(len(line.split(",")) for line in p.stdout.splitlines() if line.strip())


def tree_items(box, env, name):
    """[(frame, tlsneg items, lines of the whole frame)] for every frame with tlsneg."""
    p = subprocess.run(prefix() + [box.tshark, "-r", name, "-Y", "tlsneg", "-V"],
                       capture_output=True, text=True, env=env, cwd=box.dir)
    out, frame, lines, items, inside = [], None, 0, [], False
    for line in p.stdout.splitlines() + ["Frame END"]:
        m = re.match(r"Frame (\d+|END)", line)
        if m:
            if frame is not None:
                out.append((frame, items, lines))
            frame, lines, items, inside = m.group(1), 0, [], False
        lines += 1
        if line.startswith("TLS Version Negotiation"):
            items.append(1)
            inside = True
        elif inside and line.startswith(" "):
            items[-1] += 1
        elif line and not line.startswith(" "):
            inside = False
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="+")
    tsharkbox.add_arguments(ap, plugin_default=os.path.join(ROOT, "build", "tlsneg.so"))
    ap.add_argument("--two-pass", action="store_true")
    ap.add_argument("--tree", action="store_true")
    ap.add_argument("-o", dest="prefs", action="append", default=[],
                    help="a tshark preference for the runs with tlsneg, e.g. tlsneg.max_attempts:1000")
    args = ap.parse_args(argv[1:])

    box = TsharkBox.from_args(args)
    env = box.env()
    bare = dict(env)
    bare["WIRESHARK_PLUGIN_DIR"] = box.extcap  # an empty folder: no plugin
    try:
        for cap in args.captures:
            name = box.add_capture(cap)
            size = os.path.getsize(os.path.join(box.dir, name))
            print("%s (%.1f MB, %d hellos analysed)" % (name, size / 1e6, count_hellos(box, env, name)))
            modes = [[]] + ([["-2"]] if args.two_pass else [])
            for mode in modes:
                prefs = [a for p in args.prefs for a in ("-o", p)]
                t1, r1 = timed(box, env, ["-r", name] + mode + prefs)
                t0, r0 = timed(box, bare, ["-r", name] + mode)
                print("  tshark -r %s%s: with tlsneg %.1f s, %.0f MB peak RSS; without %.1f s, "
                      "%.0f MB; difference %+.1f s, %+.0f MB" % (
                          name, " " + " ".join(mode) if mode else "", t1, r1 / 1024, t0,
                          r0 / 1024, t1 - t0, (r1 - r0) / 1024), flush=True)
            if args.tree:
                trees = tree_items(box, env, name)
                for frame, items, lines in trees[:10]:
                    print("  frame %s: tlsneg tree items %s; the frame's -V output %d lines" % (
                        frame, "+".join(str(i) for i in items), lines))
                if len(trees) > 10:
                    most = max(trees, key=lambda t: sum(t[1]))
                    print("  ... %d frames with tlsneg in all; most tlsneg items: frame %s, %d" % (
                        len(trees), most[0], sum(most[1])))
            os.remove(os.path.join(box.dir, name))
    finally:
        box.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
