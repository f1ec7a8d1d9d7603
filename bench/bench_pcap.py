#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg-pcap against tshark with the plugin (bench/run.sh --pcap): the same
generated capture (bench/gen.py), the same JSON lines, in the same run.

For every size: `tlsneg-pcap -q --stats --jsonl FILE > /dev/null` and, for
the sizes in --tshark-sizes, `tshark -q -z tlsneg,jsonl -r FILE > /dev/null`
with the built plugin (tests/captures/tsharkbox.py points tshark at it).
Each run under /usr/bin/time -v: wall time, user + system CPU time, peak
resident memory; the packets come from tlsneg-pcap's --stats, with the
connections its session layer held at most and the tracker's attempts and
bytes. The load average (1 minute) is read before and after every run: the
machine may be shared. The whole script runs niced.

Writes Markdown to --out (default bench/results-pcap-DATE.md) and stdout."""
import argparse
import datetime
import os
import re
import subprocess
import sys
import time

from tests.captures.tsharkbox import TsharkBox

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def size_of(text):
    text = text.strip().lower()
    mult = {"k": 1000, "m": 1000000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * mult)


def label(n):
    return f"{n // 1000000}M" if n % 1000000 == 0 else f"{n // 1000}k"


def timed(cmd, env=None, cwd=None):
    """Runs cmd under /usr/bin/time -v, standard output to /dev/null."""
    load0 = os.getloadavg()[0]
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=null, stderr=subprocess.PIPE,
                           env=env, cwd=cwd, text=True)
        wall = time.perf_counter() - start
    load1 = os.getloadavg()[0]
    err = p.stderr
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {err[-2000:]}")

    def field(name):
        m = re.search(r"^\s*" + re.escape(name) + r": (.*)$", err, re.M)
        if not m:
            raise RuntimeError(f"no '{name}' in /usr/bin/time's output: {err[-2000:]}")
        return m.group(1).strip()

    # The wall time measured here, not /usr/bin/time's (hundredths of a
    # second: too coarse for the 10k capture's 0.05 s).
    return {"wall": wall,
            "cpu": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "rss_mb": int(field("Maximum resident set size (kbytes)")) / 1024.0,
            "load": (load0, load1), "stderr": err}


def pcap_stats(err):
    m = re.search(r": (\d+) packets \(", err)
    s = re.search(r"session: (\d+) connections kept now, (\d+) at most; tracker: (\d+) attempts, "
                  r"(\d+) bytes", err)
    if not m or not s:
        raise RuntimeError("no --stats lines from tlsneg-pcap: " + err[-2000:])
    return {"packets": int(m.group(1)), "held_max": int(s.group(2)),
            "attempts": int(s.group(3)), "tracker_mb": int(s.group(4)) / 1048576.0}


def main(argv):
    ap = argparse.ArgumentParser(description="tlsneg-pcap against tshark (bench/README.md)")
    ap.add_argument("--sizes", default="10k,100k,1M")
    ap.add_argument("--tshark-sizes", default="10k,100k",
                    help="sizes tshark also reads (1M took 76 minutes and 13.7 GB)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="build folder with tlsneg-pcap and tlsneg.so")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "pcap"),
                    help="folder for the captures (made with gen.py if missing)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1, help="runs of each command (best kept)")
    ap.add_argument("--pcap-time", type=float, default=2.0,
                    help="tlsneg-pcap runs again, past --reps, until its runs add up to this "
                         "many seconds (at most 100 runs): a 30 ms run is hit harder by the "
                         "shared machine's bursts than tshark's seconds-long ones")
    ap.add_argument("--tshark-reps", type=int,
                    help="runs of tshark (default: --reps; 1 is enough at 1M)")
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--max-attempts", type=int,
                    help="tlsneg-pcap's tracker cap (default: its own, 500,000)")
    ap.add_argument("--out", default=os.path.join(
        HERE, f"results-pcap-{datetime.date.today().isoformat()}.md"))
    a = ap.parse_args(argv)
    os.nice(10)
    sizes = [size_of(s) for s in a.sizes.split(",") if s]
    tshark_sizes = {size_of(s) for s in a.tshark_sizes.split(",") if s}
    tool = os.path.join(a.build, "tlsneg-pcap")
    plugin = os.path.join(a.build, "tlsneg.so")
    for f in (tool, plugin):
        if not os.path.exists(f):
            sys.exit(f"bench_pcap.py: {f} is missing: build first (bench/README.md)")
    box = TsharkBox(plugin, a.tshark) if tshark_sizes & set(sizes) else None
    os.makedirs(a.work, exist_ok=True)
    rows = []
    for n in sizes:
        cap = os.path.join(a.work, f"bench-{label(n)}-seed{a.seed}.pcap")
        if not os.path.exists(cap):
            print(f"# generating {cap}", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "bench.gen", "-n", str(n), "-o", cap,
                            "--seed", str(a.seed)], check=True, cwd=ROOT)
        row = {"n": n}
        for name, threads in (("pcap", "2"), ("pcap1", "1")):
            best, runs, spent = None, 0, 0.0
            while runs < a.reps or (spent < a.pcap_time and runs < 100):
                cap_args = ["--max-attempts", str(a.max_attempts)] if a.max_attempts else []
                r = timed([tool, "-q", "--stats", "--threads", threads] + cap_args +
                          ["--jsonl", cap])
                best = r if best is None or r["wall"] < best["wall"] else best
                runs += 1
                spent += r["wall"]
            best["runs"] = runs
            row[name] = best
            print(f"# {label(n)}: tlsneg-pcap --threads {threads} {best['wall']:.3f} s, "
                  f"{best['rss_mb']:.1f} MB", file=sys.stderr, flush=True)
        row.update(pcap_stats(row["pcap"]["stderr"]))
        if box and n in tshark_sizes:
            best_t = None
            for _ in range(a.tshark_reps or a.reps):
                r = timed(box._prefix() + [a.tshark, "-q", "-z", "tlsneg,jsonl", "-r", cap],
                          env=box.env(), cwd=box.dir)
                best_t = r if best_t is None or r["wall"] < best_t["wall"] else best_t
            best_t["runs"] = a.tshark_reps or a.reps
            row["tshark"] = best_t
            print(f"# {label(n)}: tshark {best_t['wall']:.2f} s, {best_t['rss_mb']:.1f} MB",
                  file=sys.stderr, flush=True)
        rows.append(row)
    out = report(rows, a)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(out)
    sys.stdout.write(out)


def rate_text(per_s):
    """Packets per second: millions, or thousands below 0.1 M (tshark at 1M)."""
    return f"{per_s / 1e6:.2f} M" if per_s >= 1e5 else f"{per_s / 1e3:.1f} k"


def report(rows, a):
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            m = re.search(r"^model name\s*: (.*)$", f.read(), re.M)
            cpu = m.group(1) if m else cpu
    except OSError:
        pass
    tv = subprocess.run([a.tshark, "--version"], capture_output=True, text=True).stdout
    tv = tv.splitlines()[0].rstrip(".") if tv else "tshark"
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    lines = [f"# tlsneg-pcap against tshark, {datetime.date.today().isoformat()}", "",
             f"`bench/run.sh --pcap --sizes {a.sizes} --tshark-sizes {a.tshark_sizes} "
             f"--reps {a.reps} --pcap-time {a.pcap_time:g}"
             f"{f' --tshark-reps {a.tshark_reps}' if a.tshark_reps else ''}"
             f"{f' --max-attempts {a.max_attempts}' if a.max_attempts else ''}` at commit {commit}; {os.cpu_count()} CPUs ({cpu}), {tv}; "
             f"captures from `bench/gen.py --seed {a.seed}`. Run niced on a shared machine: "
             "the load average (1 minute) before and after each run is in the table.", "",
             "Commands: `tlsneg-pcap -q --stats --threads N --jsonl FILE > /dev/null` "
             "(N = 2, the default on two CPUs: the packet path and the analysis on two "
             "threads; N = 1: one thread, one core) and "
             "`tshark -q -z tlsneg,jsonl -r FILE > /dev/null` (the built plugin), "
             "the best wall time of the runs: tshark's --reps (or --tshark-reps), "
             "tlsneg-pcap's at least as many and more until they add up to --pcap-time "
             "seconds (at most 100), since a run of a few hundredths of a second is hit "
             "harder by the shared machine's bursts than one of seconds.", "",
             "| connections | packets | tool | runs | wall | CPU (user + sys) "
             "| packets per wall second | peak RSS | load before / after |",
             "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        for name in ("pcap", "pcap1", "tshark"):
            if name not in r:
                continue
            t = r[name]
            tool_name = {"pcap": "tlsneg-pcap, 2 threads", "pcap1": "tlsneg-pcap, 1 thread",
                         "tshark": "tshark + plugin"}[name]
            lines.append(f"| {label(r['n'])} | {r['packets']:,} | {tool_name} | {t['runs']} | "
                         f"{t['wall']:.3f} s | {t['cpu']:.2f} s | "
                         f"{rate_text(r['packets'] / t['wall'])} | {t['rss_mb']:.1f} MB | "
                         f"{t['load'][0]:.2f} / {t['load'][1]:.2f} |")
    lines += ["", "| connections | wall-time ratio tshark / tlsneg-pcap, 2 threads | "
              "the same, 1 thread | CPU-time ratio, 1 thread | RSS ratio, 2 threads "
              "| packets per CPU second, 1 thread |",
              "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        p, p1 = r["pcap"], r["pcap1"]
        rate = f"{r['packets'] / p1['cpu'] / 1e6:.2f} M"
        if "tshark" in r:
            t = r["tshark"]
            lines.append(f"| {label(r['n'])} | {t['wall'] / p['wall']:.1f}x | "
                         f"{t['wall'] / p1['wall']:.1f}x | {t['cpu'] / p1['cpu']:.1f}x | "
                         f"{t['rss_mb'] / p['rss_mb']:.1f}x | {rate} |")
        else:
            lines.append(f"| {label(r['n'])} | (tshark not run) | | | | {rate} |")
    lines += ["", "tlsneg-pcap's memory, from `--stats`: the connections its session layer "
              "held at once, and the tracker's attempts (capped at "
              f"{a.max_attempts or 500000:,}):", "",
              "| connections | peak RSS | connections held at most | tracker attempts "
              "| tracker MB |", "| ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {label(r['n'])} | {r['pcap']['rss_mb']:.1f} MB | {r['held_max']:,} | "
                     f"{r['attempts']:,} | {r['tracker_mb']:.1f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
