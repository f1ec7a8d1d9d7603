#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A/B: two builds of tlsneg (a base tree and a new one) on the same bench
capture in the same run, so that the load of a shared machine falls on both.

  python3 -m bench.ab --base BUILD_A --new BUILD_B [--size 10k] [--slice 2k]
                      [--rounds 5] [--pcap-time 2] [--work DIR] [--out FILE]

BUILD_A and BUILD_B are build folders with tlsneg.so and tlsneg-pcap
(cmake -DTLSNEG_BUILD_PLUGIN=ON). Measures:

  instructions  callgrind (g_random_int fixed by bench/derandom.c) on a slice
                of --slice connections and on an empty capture: plain tshark,
                tshark with A's plugin, with B's; per connection after start-up.
                Also tlsneg-pcap A and B (one thread; --jsonl, --report), the
                same way. Independent of the load.
  wall, CPU     --rounds rounds; each round runs plain tshark, A, B and A'
                (below; tshark -r FILE > /dev/null, and -q -z tlsneg,jsonl),
                then tlsneg-pcap A, B and A' (-q --jsonl FILE, one thread and
                two), in an order that rotates from round to round. Ratios to
                plain tshark of the same round, and B / A and A' / A of the
                same round, median over rounds.
                tlsneg-pcap's runs of a few hundredths of a second are repeated
                until each adds up to --pcap-time seconds, best kept per round.
  noise         A' is A's plugin and A's tlsneg-pcap copied once more: the
                same bytes, run in every round like A and B. A' / A is what
                the machine's noise makes of no change at all, measured in
                the same rounds as B / A; a B / A inside A' / A's spread over
                the rounds is a difference this run cannot show.
  load          the 1-minute load average at every round's start.

Writes Markdown to stdout and --out. Nothing here is a test.
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench.bench import (Mode, callgrind_run, log, parse_size, plain_box, size_name,
                         timed_run)
from bench import bench as benchmod
from pcaps import synth
from tests.captures.tsharkbox import TsharkBox

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def gen(work, n, seed):
    path = os.path.join(work, "conn-%d-seed%d.pcap" % (n, seed))
    if not os.path.exists(path):
        log("generating %s connections" % size_name(n))
        subprocess.run([sys.executable, "-m", "bench.gen", "-n", str(n), "-o", path + ".part",
                        "--seed", str(seed)], cwd=REPO, check=True)
        os.rename(path + ".part", path)
    os.chmod(path, 0o644)
    return path


def derandom(work):
    so = os.path.join(work, "derandom.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", so,
                    os.path.join(HERE, "derandom.c")], check=True)
    os.chmod(so, 0o755)
    return so


def pcap_run(tool, capture, threads, min_time):
    """Best wall and its CPU (user + system, from wait4: microseconds, where
    /usr/bin/time gives hundredths) of tlsneg-pcap runs adding up to
    min_time s."""
    best, spent, runs = None, 0.0, 0
    while runs < 1 or (spent < min_time and runs < 100):
        t0 = time.perf_counter()
        p = subprocess.Popen([tool, "-q", "--threads", str(threads), "--jsonl", capture],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("%s failed on %s" % (tool, capture))
        spent += wall
        runs += 1
        if best is None or wall < best["wall"]:
            best = {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss}
    best["runs"] = runs
    return best


def pcap_instructions(tool, capture, mode):
    """Instructions callgrind counts for tlsneg-pcap -q --threads 1 MODE FILE."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", tool,
                        "-q", "--threads", "1", mode, capture],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip().replace(",", ""))
    raise RuntimeError("callgrind printed no count for %s %s" % (tool, mode))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="build folder of the base tree (A)")
    ap.add_argument("--new", required=True, help="build folder of the new tree (B)")
    ap.add_argument("--base-name", default="A")
    ap.add_argument("--new-name", default="B")
    ap.add_argument("--size", default="10k")
    ap.add_argument("--slice", default="2k")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pcap-time", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", help="folder for captures (default: a new one under $TMPDIR)")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results-ab.md"))
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="tlsneg-ab-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    n, slice_n = parse_size(a.size), parse_size(a.slice)
    t_start = time.time()
    builds = {"A": a.base, "B": a.new}
    boxes = {"plain": plain_box(os.path.join(a.new, "tlsneg.so"))}
    for k, d in builds.items():
        boxes[k] = TsharkBox(os.path.join(d, "tlsneg.so"))
    # A': A's plugin in a box of its own and A's tlsneg-pcap copied, the
    # same bytes under another name: the noise of no change
    boxes["C"] = TsharkBox(os.path.join(a.base, "tlsneg.so"))
    pcap_tools = {k: os.path.join(d, "tlsneg-pcap") for k, d in builds.items()}
    pcap_tools["C"] = os.path.join(work, "tlsneg-pcap-A-copy")
    shutil.copy2(pcap_tools["A"], pcap_tools["C"])
    modes = {"plain": Mode("plain", boxes["plain"], ["-r", "{FILE}"])}
    for k in ("A", "B", "C"):
        modes[k] = Mode(k, boxes[k], ["-r", "{FILE}"])
        modes[k + " jsonl"] = Mode(k + " jsonl", boxes[k], ["-r", "{FILE}", "-q", "-z",
                                                           "tlsneg,jsonl"])
    big = gen(work, n, a.seed)
    cap_slice = gen(work, slice_n, a.seed)
    empty = os.path.join(work, "empty.pcap")
    synth.PcapWriter(empty).close()
    os.chmod(empty, 0o644)
    lines = []
    cg = {}
    if not a.no_callgrind:
        benchmod.DERANDOM = derandom(work)
        cgdir = os.path.join(work, "cg")
        os.makedirs(cgdir, exist_ok=True)
        os.chmod(cgdir, 0o777)
        for name in ("plain", "A", "B"):
            log("callgrind %s" % name)
            ir = callgrind_run(modes[name], cap_slice, cgdir, "slice")["ir"]
            ir0 = callgrind_run(modes[name], empty, cgdir, "startup")["ir"]
            cg[name] = (ir, ir0, (ir - ir0) / slice_n)
        for mode in ("--jsonl", "--report"):
            for k in builds:
                log("callgrind tlsneg-pcap %s %s" % (k, mode))
                tool = os.path.join(builds[k], "tlsneg-pcap")
                ir = pcap_instructions(tool, cap_slice, mode)
                ir0 = pcap_instructions(tool, empty, mode)
                cg["pcap %s %s" % (k, mode)] = (ir, ir0, (ir - ir0) / slice_n)
    rows = {k: [] for k in ("load", "plain", "A", "B", "C", "A jsonl", "B jsonl", "C jsonl",
                             "pA1", "pB1", "pC1", "pA2", "pB2", "pC2")}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            rows["load"].append(load1())
            # A, B and A' take each place in turn, round after round
            trio = ["A", "B", "C"]
            trio = trio[r % 3:] + trio[:r % 3]
            order = ["plain"] + trio + [k + " jsonl" for k in trio]
            for name in order:
                rows[name].append(timed_run(modes[name], big, tmp))
            for th in (1, 2):
                for k in trio:
                    rows["p%s%d" % (k, th)].append(pcap_run(pcap_tools[k], big, th, a.pcap_time))
            log("round %d: plain %.2f s, A %.2f s, B %.2f s, load %.2f"
                % (r + 1, rows["plain"][-1]["wall"], rows["A"][-1]["wall"],
                   rows["B"][-1]["wall"], rows["load"][-1]))
        rows["load_end"] = load1()

    def ratio(num, den, key):
        return med([x[key] / y[key] for x, y in zip(rows[num], rows[den]) if y[key] > 0])

    an, bn = a.base_name, a.new_name
    lines += ["# A/B: %s against %s, %s" % (bn, an, datetime.date.today().isoformat()), "",
              "`python3 -m bench.ab --size %s --slice %s --rounds %d --pcap-time %g` "
              "(bench/ab.py): A = %s, B = %s, both built RelWithDebInfo with the plugin; the "
              "same capture (`bench/gen.py --seed %d`, %s connections), %d minutes in all. "
              "Load average (1 minute) at each round's start: %s; at the end %.2f."
              % (a.size, a.slice, a.rounds, a.pcap_time, an, bn, a.seed, a.size,
                 round((time.time() - t_start) / 60),
                 " ".join("%.2f" % x for x in rows["load"]), rows["load_end"]), ""]
    if cg:
        lines += ["## Instructions (callgrind, %s connections, per connection after start-up)"
                  % a.slice, "",
                  "| mode | Ir slice | Ir start-up | Ir per connection | / plain |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name, label in (("plain", "plain tshark"), ("A", "tshark + %s" % an),
                            ("B", "tshark + %s" % bn)):
            ir, ir0, per = cg[name]
            lines.append("| %s | %s | %s | %s | %.4fx |" % (label, f"{ir:,}", f"{ir0:,}",
                                                           f"{per:,.0f}", per / cg["plain"][2]))
        lines += ["", "%s / %s per connection: %.4fx (%+.0f instructions)."
                  % (bn, an, cg["B"][2] / cg["A"][2], cg["B"][2] - cg["A"][2]), "",
                  "tlsneg-pcap -q --threads 1, the same slice and an empty capture:", "",
                  "| mode | Ir per connection, %s | Ir per connection, %s | %s / %s |" % (an, bn,
                                                                                     bn, an),
                  "| --- | ---: | ---: | ---: |"]
        for mode in ("--jsonl", "--report"):
            pa, pb = cg["pcap A %s" % mode][2], cg["pcap B %s" % mode][2]
            lines.append("| %s | %s | %s | %.4fx (%+.0f) |" % (mode, f"{pa:,.0f}", f"{pb:,.0f}",
                                                              pb / pa, pb - pa))
        lines.append("")
    lines += ["## Wall and CPU time, %s connections, %d rounds" % (a.size, a.rounds), "",
              "Medians over rounds of each round's ratio (the same round's plain tshark, or "
              "%s against %s in the same round); runs in seconds, every round." % (bn, an), "",
              "| command | wall s per round | CPU s per round | wall / plain | CPU / plain |",
              "| --- | --- | --- | ---: | ---: |"]
    for name, label in (("plain", "tshark -r"), ("A", "tshark -r, %s" % an),
                        ("B", "tshark -r, %s" % bn), ("C", "tshark -r, %s'" % an),
                        ("A jsonl", "-q -z tlsneg,jsonl, %s" % an),
                        ("B jsonl", "-q -z tlsneg,jsonl, %s" % bn),
                        ("C jsonl", "-q -z tlsneg,jsonl, %s'" % an)):
        lines.append("| %s | %s | %s | %.3fx | %.3fx |" % (
            label, " ".join("%.2f" % x["wall"] for x in rows[name]),
            " ".join("%.2f" % x["cpu"] for x in rows[name]),
            ratio(name, "plain", "wall"), ratio(name, "plain", "cpu")))
    for th in (1, 2):
        for k, nm in (("A", an), ("B", bn), ("C", an + "'")):
            rs = rows["p%s%d" % (k, th)]
            lines.append("| tlsneg-pcap --threads %d, %s (best of %s runs) | %s | %s | | |" % (
                th, nm, "/".join(str(x["runs"]) for x in rs),
                " ".join("%.3f" % x["wall"] for x in rs), " ".join("%.3f" % x["cpu"] for x in rs)))
    lines += ["", "Each ratio of the same round, %s / %s beside %s' / %s: the same build "
              "twice, the noise of this run. A %s / %s inside the spread of %s' / %s is no "
              "difference this run can show." % (bn, an, an, an, bn, an, an, an), "",
              "| command | %s / %s wall (median; per round) | %s' / %s wall (median; per round) "
              "| %s / %s CPU | %s' / %s CPU |" % (bn, an, an, an, bn, an, an, an),
              "| --- | --- | --- | ---: | ---: |"]
    for b, c, d, label in (("B", "C", "A", "tshark -r"),
                           ("B jsonl", "C jsonl", "A jsonl", "-z tlsneg,jsonl"),
                           ("pB1", "pC1", "pA1", "tlsneg-pcap, 1 thread"),
                           ("pB2", "pC2", "pA2", "tlsneg-pcap, 2 threads")):
        cells = []
        for num in (b, c):
            per = [x["wall"] / y["wall"] for x, y in zip(rows[num], rows[d])]
            cells.append("%.3fx; %s" % (med(per), " ".join("%.3f" % p for p in per)))
        lines.append("| %s | %s | %s | %.3fx | %.3fx |" % (label, cells[0], cells[1],
                                                           ratio(b, d, "cpu"),
                                                           ratio(c, d, "cpu")))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(a.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
