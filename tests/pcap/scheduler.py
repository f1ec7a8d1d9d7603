#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg-pcap --shard K/N on real schedulers, as docs/tlsneg-pcap.md shows
it: the documented GNU parallel lines and the documented Slurm job array
script, run as written (the script's /data/ is this run's folder) on a
one-node Slurm cluster brought up from Debian's packages by this test
(tests/pcap/slurm.py: munged, slurmctld, slurmd, stopped at the end), and the
documented DuckDB SQL over the array's JSON lines.

The captures: a bench capture (python3 -m bench.gen, --connections, seed 1)
cut into --parts files by editcap (connections run on from one file into
the next; the last part gzip-compressed), and every capture of the project
(pcaps/, pcaps/public/), in one folder, read as the documentation's
captures/*.pcap* glob reads them.

Checked:
- the shards of each scheduler, put together, are exactly the records of one
  run without --shard over the same files (the JSON lines minus the header
  lines, as multisets), no record is in two shards, each shard writes the
  header, every task ran (Slurm: every array task COMPLETED, exit 0);
- the shards' CSVs merged as docs/tlsneg-pcap.md says (counts added, the
  version and finding lists added per key, intolerant_of: one shard's)
  equal the CSV of one run;
- DuckDB's answers to the documented queries equal tlsneg-pcap --report's
  counts over the same files: its first line, each version-intolerant
  server's verdict frame and count, the fallback retries without SCSV per
  server (its findings), the versions in force per server (the CSV's
  in_force, the report's per-server counts in hex);
- the daemons are gone at the end.

Needs root, slurm-wlm, munge, parallel, editcap, node and @duckdb/node-api in
--modules (tools/install-deps.sh installs all of them; this test installs
nothing). Prints TAP and the times taken ("# time ...")."""
import argparse
import collections
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tests.pcap.differential import ROOT, captures
from tests.pcap.slurm import Cluster
from tests.results import Results

DOC = os.path.join(ROOT, "docs", "tlsneg-pcap.md")
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODULES = os.environ.get("TLSNEG_NPM_DIR", "/var/cache/tlsneg-npm")
NEEDED = ["munged", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue", "scontrol", "scancel",
          "parallel", "editcap", "capinfos", "gzip", "node"]
TIMES = []


def timed(what, fn, *a, **kw):
    """fn(*a, **kw), its wall time noted under what."""
    t = time.monotonic()
    try:
        return fn(*a, **kw)
    finally:
        TIMES.append((what, time.monotonic() - t))
        print(f"# time {what}: {time.monotonic() - t:.2f} s", flush=True)


def doc_block(after, lang):
    """The first ```lang block of docs/tlsneg-pcap.md after the text `after`."""
    with open(DOC) as f:
        text = f.read()
    at = text.find(after)
    if at < 0:
        raise RuntimeError(f"docs/tlsneg-pcap.md has no {after!r}")
    m = re.compile(r"^```" + lang + r"\n(.*?)^```", re.S | re.M).search(text, at)
    if not m:
        raise RuntimeError(f"docs/tlsneg-pcap.md has no ```{lang} block after {after!r}")
    return m.group(1)


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{args} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout


# ---------------------------------------------------------------- captures

def make_captures(folder, connections, parts):
    """The bench capture cut into parts (the last gzipped) and links to the
    project's captures, in folder; the number of files."""
    os.makedirs(folder)
    whole = os.path.join(folder, "..", "bench.pcap")
    run([sys.executable, "-m", "bench.gen", "-n", str(connections), "-o", whole, "--seed", "1"],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    packets = int(re.search(r"Number of packets:\s*(\d+)",
                            run(["capinfos", "-c", "-M", whole])).group(1))
    split = os.path.join(folder, "..", "split")
    os.makedirs(split)
    run(["editcap", "-c", str(-(-packets // parts)), whole, os.path.join(split, "bench.pcap")])
    names = sorted(os.listdir(split))
    for i, name in enumerate(names):
        os.rename(os.path.join(split, name), os.path.join(folder, f"bench{i}.pcap"))
    run(["gzip", "-n", os.path.join(folder, f"bench{len(names) - 1}.pcap")])
    os.remove(whole)
    for c in captures():
        os.symlink(c, os.path.join(folder, "pcaps-" + os.path.relpath(c, ROOT).replace("/", "-")))
    return len(names), packets, len(os.listdir(folder))


def one_run(tool_dir, cwd, option):
    """tlsneg-pcap -q OPTION captures/*.pcap* in cwd, through sh (the glob in
    the order the documented commands see it)."""
    env = dict(os.environ, PATH=tool_dir + os.pathsep + os.environ["PATH"])
    return run(["sh", "-c", f"tlsneg-pcap -q {option} captures/*.pcap*"], cwd=cwd, env=env)


# ---------------------------------------------------------------- comparisons

def compare_shards(whole_lines, shard_files):
    """Problems of the shards' JSON lines against one run's, and the number
    of shards that got records."""
    problems = []
    header, whole = whole_lines[0], collections.Counter(whole_lines[1:])
    parts = []
    for path in shard_files:
        with open(path) as f:
            lines = f.read().splitlines()
        if not lines or lines[0] != header:
            problems.append(f"{os.path.basename(path)}: no header line {header}")
        parts.append(collections.Counter(lines[1:]))
    union = sum(parts, collections.Counter())
    problems += [f"only in one run: {x}" for x in sorted((whole - union).elements())]
    problems += [f"only in the shards: {x}" for x in sorted((union - whole).elements())]
    seen = collections.Counter()
    for p in parts:
        seen.update(set(p))
    problems += [f"in {n} shards: {x}" for x, n in sorted(seen.items()) if n > 1]
    return problems, sum(1 for p in parts if p)


COUNTS = ["client_hellos", "server_hellos", "hello_retry_requests", "alerts", "resets", "closes",
          "fallbacks"]
KEYED = ["highest_offered", "in_force", "findings"]


def keyed(text):
    """"0x0304:8;0x0303:1" as a Counter."""
    c = collections.Counter()
    for item in filter(None, text.split(";")):
        k, n = item.rsplit(":", 1)
        c[k] += int(n)
    return c


def csv_rows(text):
    """The rows by server: address, port, SNI and transport."""
    return {(r["server"], r["port"], r["sni"], r["transport"]): r
            for r in csv.DictReader(io.StringIO(text))}


def merge_csvs(texts):
    """The shards' CSVs merged: per server, COUNTS added, KEYED added per key,
    intolerant_of the set of the shards' non-empty ones."""
    merged = {}
    for text in texts:
        for key, r in csv_rows(text).items():
            m = merged.setdefault(key, {"intolerant_of": set(),
                                        **{c: 0 for c in COUNTS},
                                        **{k: collections.Counter() for k in KEYED}})
            for c in COUNTS:
                m[c] += int(r[c])
            for k in KEYED:
                m[k] += keyed(r[k])
            if r["intolerant_of"]:
                m["intolerant_of"].add(r["intolerant_of"])
    return merged


def compare_csv(whole_text, shard_texts):
    whole, merged = csv_rows(whole_text), merge_csvs(shard_texts)
    problems = [f"server {k} only in one run" for k in whole.keys() - merged.keys()]
    problems += [f"server {k} only in the shards" for k in merged.keys() - whole.keys()]
    for key in sorted(whole.keys() & merged.keys()):
        w, m = whole[key], merged[key]
        bad = [c for c in COUNTS if int(w[c]) != m[c]]
        bad += [k for k in KEYED if keyed(w[k]) != m[k]]
        if bool(w["intolerant_of"]) != bool(m["intolerant_of"]) or \
                (w["intolerant_of"] and w["intolerant_of"] not in m["intolerant_of"]):
            bad.append("intolerant_of")
        problems += [f"{key} {c}: one run {w[c]!r}, shards {m[c]!r}" for c in bad]
    return problems, len(whole)


# ---------------------------------------------------------------- the schedulers

def run_parallel(tool_dir, folder):
    """The documented GNU parallel block, run by sh in folder; the shards'
    JSON lines and CSV files."""
    block = doc_block("With GNU parallel", "sh")
    env = dict(os.environ, PATH=tool_dir + os.pathsep + os.environ["PATH"])
    timed("GNU parallel block (JSON lines and CSV, 4 shards)", run, ["sh", "-e", "-c", block],
          cwd=folder, env=env)
    n = int(re.search(r"--shard \{\}/(\d+)", block).group(1))
    out = os.path.join(folder, "out")
    return ([os.path.join(out, f"shard-{k}.jsonl") for k in range(n)],
            [os.path.join(out, f"shard-{k}.csv") for k in range(n)])


def array_tasks(cluster, job):
    """Each array task of job as scontrol shows it: a dict of its fields."""
    text = run(["scontrol", "-o", "show", "job", job], env=cluster.env())
    return [dict(f.split("=", 1) for f in line.split() if "=" in f)
            for line in text.splitlines() if line.strip()]


def span(tasks):
    """Seconds from the first task's start to the last task's end."""
    def t(s):
        return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    return max(t(x["EndTime"]) for x in tasks) - min(t(x["StartTime"]) for x in tasks)


def run_slurm(res, cluster, tool_dir, folder):
    """The documented job array script, /data/ replaced by folder, submitted
    with sbatch --wait; the shards' JSON lines."""
    script = doc_block("As a Slurm job array", "sh").replace("/data/", folder + "/")
    path = os.path.join(folder, "tlsneg.sbatch")
    with open(path, "w") as f:
        f.write(script)
    env = cluster.env({"PATH": tool_dir + os.pathsep + os.environ["PATH"]})
    p = timed("Slurm: sbatch --wait (submit to the last task's end, sbatch's polling included)",
              subprocess.run, ["sbatch", "--wait", "--parsable", path], cwd=folder, env=env,
              capture_output=True, text=True, timeout=600)
    job = p.stdout.strip().split(";")[0]
    ok = res.check(p.returncode == 0 and job.isdigit(),
                   f"sbatch --wait of the documented array script: exit {p.returncode}, job {job}",
                   p.stderr + cluster.log_tail())
    n = int(re.search(r"--array=0-(\d+)", script).group(1)) + 1
    tasks = array_tasks(cluster, job) if ok else []
    done = [t for t in tasks if t.get("JobState") == "COMPLETED" and t.get("ExitCode") == "0:0"
            and t.get("NodeList") == cluster.host]
    res.check(len(done) == n == len(tasks),
              f"all {n} array tasks COMPLETED with exit 0:0 on node {cluster.host} "
              f"({len(done)} of {len(tasks)}; first start to last end: "
              f"{span(tasks) if tasks else 0:.0f} s)",
              [f"{t.get('JobId')} {t.get('JobState')} {t.get('ExitCode')}" for t in tasks])
    return [os.path.join(folder, "out", f"shard-{k}.jsonl") for k in range(n)]


# ---------------------------------------------------------------- DuckDB against the report

# A server's label in the report: address:port, over UDP its transport after it.
LABEL_TRANSPORTS = {"udp/DTLS": "dtls", "udp/QUIC": "quic"}


def report_facts(report):
    """From tlsneg-pcap --report: the first line's numbers, and per server
    (address, port, SNI or None, transport) its intolerance verdict frame and
    findings."""
    first = re.search(r"(\d+) ClientHello, (\d+) ServerHello/HelloRetryRequest, (\d+) "
                      r"HelloVerifyRequest, (\d+) plaintext alerts; (\d+) servers; (\d+) fallback "
                      r"retries; (\d+) servers with a version_intolerance verdict", report)
    totals = [int(x) for x in first.groups()]
    servers, key = {}, None
    section = report.split("--- Servers (address:port, the transport over UDP, SNI) ---\n", 1)[1].split("\n--- ", 1)[0]
    for line in section.splitlines():
        if not line.startswith("  "):
            label, sni = line.split(" ", 1)
            transport = "tcp"
            first, _, rest = sni.partition(" ")
            if first in LABEL_TRANSPORTS and rest:
                transport, sni = LABEL_TRANSPORTS[first], rest
            addr, port = label.rsplit(":", 1)
            key = (addr.strip("[]"), int(port), None if sni == "(no SNI)" else sni, transport)
            servers[key] = {"findings": collections.Counter()}
        elif line.startswith(("  VERSION-INTOLERANT", "  intolerance not consistent")):
            servers[key]["frame"] = int(re.search(r"verdict in frame (\d+)", line).group(1))
        elif line.startswith("  findings: "):
            for item in line[len("  findings: "):].split(", "):
                name, n = item.rsplit(" x", 1)
                servers[key]["findings"][name] = int(n)
    return totals, servers


def duckdb(modules, folder):
    """The documented SQL (its ```sql block) run in folder; the results."""
    sql = os.path.join(folder, "tlsneg.sql")
    with open(sql, "w") as f:
        f.write(doc_block("The JSON lines then go into an SQL engine", "sql"))
    out = timed("DuckDB: the documented SQL over the array's JSON lines", run,
                ["node", os.path.join(HERE, "duckdb_sql.js"), modules, sql], cwd=folder)
    doc = json.loads(out)
    for r in doc["results"]:
        print(f"# duckdb statement {r['sql']}: {len(r['rows'])} rows, {r['ms']:.0f} ms")
    return doc


def key_of(row):
    return (row["server"], int(row["port"]), row["sni"], row.get("transport") or "tcp")


def check_duckdb(res, doc, report, whole_csv):
    """DuckDB's answers (statements: CREATE, intolerant, retries without SCSV,
    in force, totals) against the report and the CSV of one run."""
    results = [r["rows"] for r in doc["results"]]
    res.check(len(results) == 5, f"DuckDB {doc['version']} ran the 5 documented statements "
              f"({len(results)})")
    totals, servers = report_facts(report)
    got = [int(v) for v in results[4][0].values()]
    res.check(got == totals, f"DuckDB's totals equal the report's first line: {got}",
              f"report: {totals}")
    want = {k: (s["frame"], s["findings"]["version_intolerance"])
            for k, s in servers.items() if "frame" in s}
    have = {key_of(r): (int(r["last_verdict_frame"]), int(r["verdicts"])) for r in results[1]}
    res.check(have == want and want, f"version-intolerant servers: DuckDB's last verdict frame "
              f"and count equal the report's ({len(want)} servers)",
              [f"{k}: report {want.get(k)}, DuckDB {have.get(k)}" for k in
               sorted(want.keys() | have.keys(), key=str) if want.get(k) != have.get(k)])
    want = {k: s["findings"]["fallback_retry"] for k, s in servers.items()
            if s["findings"]["fallback_retry"]}
    have = {key_of(r): int(r["retries"]) for r in results[2]}
    res.check(have == want and want, f"fallback retries without SCSV per server: DuckDB's equal "
              f"the report's plain fallback_retry findings ({sum(want.values())} at "
              f"{len(want)} servers)", [f"report {want}", f"DuckDB {have}"])
    want = {(k[0], int(k[1]), k[2] or None, k[3]): keyed(r["in_force"])
            for k, r in csv_rows(whole_csv).items() if r["in_force"]}
    have = collections.defaultdict(collections.Counter)
    for r in results[3]:
        have[key_of(r)][r["version"] or "none"] += int(r["n"])
    res.check(have == want and want, f"versions in force per server: DuckDB's equal one run's "
              f"CSV in_force ({len(want)} servers)",
              [f"{k}: CSV {want.get(k)}, DuckDB {have.get(k)}" for k in
               sorted(want.keys() | have.keys(), key=str) if want.get(k) != have.get(k)][:20])


# ---------------------------------------------------------------- main

def prerequisites(res, modules):
    missing = [c for c in NEEDED if not shutil.which(c)]
    mod = os.path.join(modules, "node_modules", "@duckdb", "node-api", "package.json")
    if not os.path.exists(mod):
        missing.append(f"@duckdb/node-api in {modules}")
    return res.check(os.geteuid() == 0 and not missing,
                     "root, and slurm-wlm, munge, parallel, editcap, node, @duckdb/node-api "
                     "installed", f"missing: {missing}, uid {os.geteuid()} (tools/install-deps.sh "
                     "installs them; the daemons need root)")


def checks(res, args, work):
    tool_dir = os.path.dirname(os.path.abspath(args.tool))
    par, slu = os.path.join(work, "parallel"), os.path.join(work, "data")
    files = timed("captures: bench.gen, editcap, gzip", make_captures,
                  os.path.join(par, "captures"), args.connections, args.parts)
    res.check(files[0] == args.parts, f"{files[0]} bench parts of {files[1]} packets in all "
              f"({args.connections} connections), {files[2]} files with the project's captures")
    os.makedirs(slu)
    os.symlink(os.path.join(par, "captures"), os.path.join(slu, "captures"))
    whole = timed("one run, --jsonl", one_run, tool_dir, par, "--jsonl").splitlines()
    whole_csv = timed("one run, --csv", one_run, tool_dir, par, "--csv")
    report = timed("one run, --report", one_run, tool_dir, par, "--report")
    jsonl, csvs = run_parallel(tool_dir, par)
    problems, used = compare_shards(whole, jsonl)
    res.check(not problems and used == len(jsonl), f"GNU parallel: the {len(jsonl)} shards' JSON "
              f"lines are one run's {len(whole) - 1} records, each in one shard "
              f"({used} shards with records)", problems)
    texts = []
    for path in csvs:
        with open(path) as f:
            texts.append(f.read())
    problems, servers = compare_csv(whole_csv, texts)
    res.check(not problems and servers, f"GNU parallel: the {len(csvs)} shards' CSVs merged are "
              f"one run's CSV ({servers} servers)", problems)
    cluster = Cluster(os.path.join(work, "slurm"))
    try:
        timed("Slurm: munged, slurmctld, slurmd up, node idle", cluster.start)
        res.check(True, f"a one-node Slurm cluster is up (node {cluster.host})")
        shards = run_slurm(res, cluster, tool_dir, slu)
    finally:
        killed = cluster.stop()
    res.check(not cluster.running() and not killed, "the Slurm and munge daemons stopped on "
              f"SIGTERM ({', '.join(n for n, _ in cluster.procs)})", f"killed: {killed}")
    problems, used = compare_shards(whole, shards)
    res.check(not problems and used == len(shards), f"Slurm: the {len(shards)} shards' JSON lines "
              f"are one run's {len(whole) - 1} records, each in one shard ({used} shards with "
              "records)", problems)
    check_duckdb(res, duckdb(args.modules, slu), report, whole_csv)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    ap.add_argument("--connections", type=int, default=10000)
    ap.add_argument("--parts", type=int, default=4, help="files the bench capture is cut into")
    ap.add_argument("--modules", default=DEFAULT_MODULES,
                    help="the folder npm installed @duckdb/node-api into (its node_modules)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that finally stops the daemons
    res = Results(max_detail=20)
    started = time.monotonic()
    if prerequisites(res, args.modules):
        work = tempfile.mkdtemp(prefix="tlsneg-sched-")
        os.chmod(work, 0o755)  # munged: its socket's folders searchable by all
        try:
            checks(res, args, work)
        except (RuntimeError, subprocess.SubprocessError, OSError) as e:
            res.check(False, f"the run went through: {e}")
        finally:
            if args.keep:
                print(f"# kept {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
    print(f"# time in all: {time.monotonic() - started:.1f} s")
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
