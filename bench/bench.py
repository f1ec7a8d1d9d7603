#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg benchmark: what tlsneg costs tshark on large captures.

Builds tlsneg.so, the empty-postdissector variant and bench_core in a build
folder of its own, generates captures of N connections (bench/gen.py), and
measures, for every mode below, against plain tshark without any plugin:

  instructions  valgrind --tool=callgrind on a slice (repeatable on a busy
                machine); also minus tshark's start-up (the same mode on an
                empty capture), which is what a long capture pays
  wall time     best of --reps runs, and user+system CPU time
  peak memory   maximum resident set size (/usr/bin/time -v)

plus the core parser alone (bench_core, hellos per second) and a profile of
tlsneg's own instructions. Writes Markdown to stdout and bench/results.md.
Nothing here is a test: no number fails anything.

Modes (every tshark run as the same user, with the same environment and a
plugin folder of its own that tshark -G plugins is checked against):
  plain          tshark -r FILE > /dev/null, no plugin (the baseline)
  empty          the same with tlsneg_bench_empty.so: tlsneg's wanted fields
                 and tap listener, no work of its own
  tlsneg         the same with tlsneg.so
  tlsneg -z      tshark -r FILE -z tlsneg,report (when tshark -z help lists it)
  tlsneg fields  tshark -r FILE -Y tlsneg -T fields -e tlsneg.* (the facts as text)
  tlsneg jsonl   tshark -r FILE -q -z tlsneg,jsonl (the facts as JSON records, when listed)
  pipeline       no plugin: tshark -Y ... -T fields -e tls.* -e dtls.* piped
                 into bench/fields_facts.py, the same facts without tlsneg
"""
import argparse
import collections
import concurrent.futures
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

from bench import fields_facts  # bench/fields_facts.py: the fields and the filter
from pcaps import synth
from tests.captures.tsharkbox import TsharkBox

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

TLSNEG_FIELDS = ["frame.number", "tlsneg.msg_type", "tlsneg.hrr", "tlsneg.record_version",
                 "tlsneg.legacy_version", "tlsneg.offered_version", "tlsneg.offered_max",
                 "tlsneg.selected_version", "tlsneg.negotiated_version", "tlsneg.grease_count",
                 "tlsneg.sni", "tlsneg.fallback_scsv", "tlsneg.downgrade_sentinel"]


def log(msg):
    sys.stderr.write("[%s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def parse_size(s):
    s = s.strip()
    mult = {"k": 1000, "K": 1000, "M": 1000000, "m": 1000000}.get(s[-1], 1)
    return int(float(s[:-1] if mult > 1 else s) * mult)


def size_name(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


# ---------------------------------------------------------------- build and boxes

def build(work, jobs):
    bdir = os.path.join(work, "build")
    log("building tlsneg.so, tlsneg_bench_empty.so and bench_core in %s" % bdir)
    subprocess.run(["cmake", "-S", REPO, "-B", bdir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DTLSNEG_BUILD_BENCH=ON", "-DTLSNEG_BUILD_TESTS=OFF",
                    "-DTLSNEG_SANITIZE=OFF"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", bdir, "-j%d" % jobs, "--target", "tlsneg",
                    "tlsneg_bench_empty", "tlsneg_field_probe", "tlsneg_derandom", "bench_core"],
                   check=True,
                   stdout=subprocess.DEVNULL)
    return {"tlsneg": os.path.join(bdir, "tlsneg.so"),
            "empty": os.path.join(bdir, "bench", "tlsneg_bench_empty.so"),
            "probe": os.path.join(bdir, "bench", "tlsneg_field_probe.so"),
            "derandom": os.path.join(bdir, "bench", "tlsneg_derandom.so"),
            "bench_core": os.path.join(bdir, "bench", "bench_core")}


def plain_box(plugin):
    """A box like the others (same user, same environment) with no plugin in it."""
    box = TsharkBox(plugin)
    os.remove(box.plugin)
    listed = [l for l in box.run(["-G", "plugins"]).stdout.splitlines() if "tlsneg" in l]
    if listed:
        raise RuntimeError("plain tshark still loads a tlsneg plugin: %s" % listed)
    return box


class Mode:
    def __init__(self, name, box, args, pipeline=False, env=None):
        self.name, self.box, self.args, self.pipeline = name, box, args, pipeline
        self.extra_env = env or {}

    def env(self):
        env = self.box.env()
        env.update(self.extra_env)
        return env

    def tshark_cmd(self, capture, prefix=()):
        args = [a.replace("{FILE}", capture) for a in self.args]
        return self.box._prefix() + list(prefix) + [self.box.tshark] + args


def make_modes(boxes, ztaps):
    modes = [Mode("plain", boxes["plain"], ["-r", "{FILE}"]),
             Mode("empty", boxes["empty"], ["-r", "{FILE}"]),
             Mode("tlsneg", boxes["tlsneg"], ["-r", "{FILE}"])]
    if "tlsneg,report" in ztaps:
        modes.append(Mode("tlsneg -z", boxes["tlsneg"], ["-r", "{FILE}", "-z", "tlsneg,report"]))
    fields = ["-Y", "tlsneg", "-T", "fields"]
    for f in TLSNEG_FIELDS:
        fields += ["-e", f]
    modes.append(Mode("tlsneg fields", boxes["tlsneg"], ["-r", "{FILE}"] + fields))
    if "tlsneg,jsonl" in ztaps:
        modes.append(Mode("tlsneg jsonl", boxes["tlsneg"],
                          ["-r", "{FILE}", "-q", "-z", "tlsneg,jsonl"]))
    modes.append(Mode("pipeline", boxes["plain"], ["-r", "{FILE}"] + fields_facts.tshark_args(),
                      pipeline=True))
    return modes


SCRIPT = [sys.executable, os.path.join(HERE, "fields_facts.py")]
DERANDOM = None  # bench/derandom.c, preloaded into tshark under callgrind


# ---------------------------------------------------------------- wall time and memory

def _read_time(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().rpartition(": ")
            out[k] = v
    return {"rss_kb": int(out["Maximum resident set size (kbytes)"]),
            "cpu": float(out["User time (seconds)"]) + float(out["System time (seconds)"])}


def timed_run(mode, capture, tmp):
    """One run: wall seconds, CPU seconds, peak RSS in KB (pipeline: both
    processes, which run at the same time)."""
    t1, t2 = os.path.join(tmp, "time1"), os.path.join(tmp, "time2")
    env = mode.env()
    start = time.perf_counter()
    p1 = subprocess.Popen(["/usr/bin/time", "-v", "-o", t1] + mode.tshark_cmd(capture),
                          env=env, cwd=mode.box.dir, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE if mode.pipeline else subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if mode.pipeline:
        p2 = subprocess.Popen(["/usr/bin/time", "-v", "-o", t2] + SCRIPT, stdin=p1.stdout,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        p1.stdout.close()
        err2 = p2.communicate()[1]
    err = p1.communicate()[1]
    wall = time.perf_counter() - start
    if p1.returncode != 0:
        raise RuntimeError("%s failed: %s" % (mode.name, err[-2000:]))
    r = _read_time(t1)
    if mode.pipeline:
        if p2.returncode != 0:
            raise RuntimeError("fields_facts.py failed: %s" % err2[-2000:])
        r2 = _read_time(t2)
        r = {"rss_kb": r["rss_kb"] + r2["rss_kb"], "cpu": r["cpu"] + r2["cpu"]}
    r["wall"] = wall
    return r


# ---------------------------------------------------------------- callgrind

def callgrind_total(path):
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("no total in " + path)


def callgrind_run(mode, capture, cgdir, tag):
    """Total Ir of one mode on one capture; the pipeline adds the script's."""
    out = os.path.join(cgdir, "%s.%s.out" % (re.sub(r"\W+", "_", mode.name), tag))
    vg = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    env = mode.env()
    # repeatable counts: wmem's hash maps are seeded with g_random_int()
    # (bench/derandom.c), Python's str hashes with PYTHONHASHSEED
    if DERANDOM:
        env["LD_PRELOAD"] = (DERANDOM + " " + env.get("LD_PRELOAD", "")).strip()
    if mode.pipeline:
        fields_out = os.path.join(cgdir, "fields.%s.txt" % tag)
        with open(fields_out, "w") as fo:
            os.chmod(fields_out, 0o666)
        cmd = "exec %s > %s" % (" ".join(_q(a) for a in mode.tshark_cmd(capture, vg)),
                                _q(fields_out))
        p = subprocess.run(["sh", "-c", cmd], env=env, cwd=mode.box.dir,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError("callgrind %s: %s" % (mode.name, p.stderr[-2000:]))
        out2 = out + ".script"
        with open(fields_out) as fi:
            p = subprocess.run(vg[:2] + ["--callgrind-out-file=" + out2] + SCRIPT, stdin=fi,
                               env=dict(os.environ, PYTHONHASHSEED="0"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError("callgrind fields_facts.py: %s" % p.stderr[-2000:])
        return {"ir": callgrind_total(out) + callgrind_total(out2), "out": out,
                "hellos": _hellos(p.stderr)}
    p = subprocess.run(mode.tshark_cmd(capture, vg), env=env, cwd=mode.box.dir,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("callgrind %s: %s" % (mode.name, p.stderr[-2000:]))
    return {"ir": callgrind_total(out), "out": out}


def _hellos(stderr):
    m = re.search(r"fields_facts.py: (\d+) hellos", stderr)
    return int(m.group(1)) if m else None


def _q(s):
    return "'" + s.replace("'", "'\\''") + "'"


class Profile:
    """Self costs per (object, function) and call costs between them, read
    from a callgrind output file (Ir only)."""

    def __init__(self, path):
        self.self_cost = collections.Counter()
        self.calls = collections.defaultdict(collections.Counter)  # caller -> callee -> Ir
        self.ncalls = collections.defaultdict(collections.Counter)
        names = {}

        def name(kind, rest):
            m = re.match(r"\((\d+)\)(?: (.*))?", rest)
            if not m:
                return rest
            key = (kind, m.group(1))
            if m.group(2) is not None:
                names[key] = m.group(2)
            return names.get(key, rest)

        ob = fn = cob = cfn = None
        pending_call = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                c = line[0]
                if c.isdigit() or c in "+-*":
                    ir = int(line.split()[-1]) if len(line.split()) > 1 else 0
                    if pending_call is not None:
                        self.calls[(ob, fn)][pending_call] += ir
                        pending_call = None
                    else:
                        self.self_cost[(ob, fn)] += ir
                    continue
                key, _, rest = line.partition("=")
                if key == "ob":
                    ob = os.path.basename(name("ob", rest))
                elif key == "fn":
                    fn = name("fn", rest)
                    cob = None
                elif key == "cob":
                    cob = os.path.basename(name("ob", rest))
                elif key == "cfn":
                    cfn = name("fn", rest)
                elif key == "calls":
                    target = (cob or ob, cfn)
                    if target != (ob, fn):
                        pending_call = target
                        self.ncalls[(ob, fn)][target] += int(rest.split()[0])
                    else:
                        pending_call = ("", "")  # recursion: already in the self cost
                    cob = None
        self.calls_clean()

    def calls_clean(self):
        for caller in self.calls:
            self.calls[caller].pop(("", ""), None)

    def inclusive(self, key):
        return self.self_cost.get(key, 0) + sum(self.calls.get(key, {}).values())

    def find(self, fn_name, obj_part=None):
        return [k for k in set(self.self_cost) | set(self.calls)
                if k[1] == fn_name and (obj_part is None or obj_part in (k[0] or ""))]

    def by_object(self):
        out = collections.Counter()
        for (ob, _), ir in self.self_cost.items():
            out[ob] += ir
        return out

    def by_function(self):
        out = collections.Counter()
        for (ob, fn), ir in self.self_cost.items():
            out["%s [%s]" % (fn, ob)] += ir
        return out


# ---------------------------------------------------------------- the price of each wanted field

FIELD_STEPS = [
    ("a postdissector that wants no field", []),
    ("tls.handshake.type", ["tls.handshake.type"]),
    ("+ tls.record.version", ["tls.record.version"]),
    ("+ dtls.handshake.type, dtls.record.version",
     ["dtls.handshake.type", "dtls.record.version"]),
    ("+ dtls.fragments (tlsneg 0.1's set is complete here)", ["dtls.fragments"]),
    ("+ tls.alert_message.desc, dtls.alert_message.desc",
     ["tls.alert_message.desc", "dtls.alert_message.desc"]),
    ("+ tcp.stream", ["tcp.stream"]),
    ("+ tcp.flags", ["tcp.flags"]),
    ("+ tcp.flags.reset, tcp.flags.fin", ["tcp.flags.reset", "tcp.flags.fin"]),
]


def field_cost(plain_mode, probe_box, capture, empty_cap, cgdir, jobs):
    """Callgrind with field_probe.so wanting ever more of tlsneg's fields."""
    modes = [plain_mode]
    fields = []
    for label, more in FIELD_STEPS:
        fields = fields + more
        modes.append(Mode("probe %d" % len(modes), probe_box, ["-r", "{FILE}"],
                          env={"TLSNEG_PROBE_FIELDS": ",".join(fields)}))
        modes[-1].label = label
    plain_mode.label = "plain tshark, no plugin"
    out = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(callgrind_run, m, cap, cgdir, "fc" + tag): (m, tag)
                for m in modes for cap, tag in ((capture, "slice"), (empty_cap, "startup"))}
        for fut in concurrent.futures.as_completed(futs):
            m, tag = futs[fut]
            out[(m.name, tag)] = fut.result()["ir"]
            log("  field cost %-10s %-8s %15s Ir" % (m.name, tag, "{:,}".format(out[(m.name, tag)])))
    return [(m.label, out[(m.name, "slice")] - out[(m.name, "startup")]) for m in modes]


# ---------------------------------------------------------------- the core alone

def core_bench(bench_core, capture, work, seconds):
    """Hellos taken from a generated capture with tshark's own dissection
    (tests/captures/extract_hellos.py), then bench_core."""
    import json
    hellos = os.path.join(work, "hellos.txt")
    p = subprocess.run([sys.executable, os.path.join(REPO, "tests", "captures", "extract_hellos.py"),
                        capture], capture_output=True, text=True, check=True)
    with open(hellos, "w") as f:
        for line in p.stdout.splitlines():
            m = json.loads(line)
            f.write("%s %s\n" % (m["wire"], m["hex"]))
    p = subprocess.run([bench_core, "--seconds", str(seconds), hellos], capture_output=True,
                       text=True, check=True)
    return p.stdout.strip()


# ---------------------------------------------------------------- report

def fmt_ratio(x):
    return "%.3fx" % x


def mark(ok):
    return "met" if ok else "**missed**"


def main(argv):
    ap = argparse.ArgumentParser(description="tlsneg benchmark (see bench/README.md)")
    ap.add_argument("--sizes", default="10k,100k",
                    help="capture sizes in connections, e.g. 10k,100k,1M (default 10k,100k)")
    ap.add_argument("--slice", default="10k", help="connections in the callgrind slice")
    ap.add_argument("--reps", type=int, default=3, help="wall-time runs per mode and size (1M: 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", help="work folder (captures, build, callgrind files); "
                    "default a new one under $TMPDIR, removed unless --keep")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--jobs", type=int, default=2, help="callgrind runs at a time")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--modes", help="only these modes, comma-separated (plain is always run)")
    ap.add_argument("--field-cost", action="store_true",
                    help="also price tlsneg's wanted fields one by one (field_probe.so, callgrind)")
    ap.add_argument("--field-cost-slice", default="2k",
                    help="connections in the field-cost slice (default 2k)")
    ap.add_argument("--max-minutes", type=float, default=25,
                    help="skip a size whose wall-time runs would take longer, by the previous "
                         "size's timing (default 25)")
    ap.add_argument("--core-seconds", type=float, default=2.0)
    ap.add_argument("--out", default=os.path.join(HERE, "results.md"))
    a = ap.parse_args(argv)

    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    slice_n = parse_size(a.slice)
    started = time.time()
    work = a.work or tempfile.mkdtemp(prefix="tlsneg-bench-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    cgdir = os.path.join(work, "callgrind")
    os.makedirs(cgdir, exist_ok=True)
    os.chmod(cgdir, 0o1777)
    for tool in ("valgrind", "/usr/bin/time", "tshark", "cmake"):
        if not shutil.which(tool):
            raise SystemExit("bench: %s is missing (apt-get install valgrind time tshark cmake)" % tool)

    built = build(work, a.jobs)
    global DERANDOM
    DERANDOM = built["derandom"]
    boxes = {"plain": plain_box(built["tlsneg"]), "empty": TsharkBox(built["empty"]),
             "tlsneg": TsharkBox(built["tlsneg"])}
    if a.field_cost:
        boxes["probe"] = TsharkBox(built["probe"])
    zhelp = boxes["tlsneg"].run(["-z", "help"], check=False)  # tshark lists them on stderr
    ztaps = {l.strip() for l in (zhelp.stdout + zhelp.stderr).splitlines()}
    have_report = "tlsneg,report" in ztaps
    modes = make_modes(boxes, ztaps)
    if a.modes:
        wanted = {m.strip() for m in a.modes.split(",")} | {"plain"}
        modes = [m for m in modes if m.name in wanted]
    tshark_version = boxes["plain"].run(["--version"]).stdout.splitlines()[0]

    # Captures
    def capture(n):
        path = os.path.join(work, "conn-%d-seed%d.pcap" % (n, a.seed))
        if not os.path.exists(path):
            log("generating %s connections" % size_name(n))
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "bench.gen", "-n", str(n), "-o",
                            os.path.abspath(path + ".part"), "--seed", str(a.seed)],
                           cwd=REPO, check=True)
            os.rename(path + ".part", path)
            gen_times[n] = time.perf_counter() - t0
        os.chmod(path, 0o644)
        return path

    gen_times = {}
    empty_cap = os.path.join(work, "empty.pcap")
    synth.PcapWriter(empty_cap).close()
    os.chmod(empty_cap, 0o644)

    results = {"sizes": {}, "callgrind": {}, "core": None}
    info = {}
    try:
        # The core alone
        small = capture(500)
        log("core benchmark (bench_core)")
        results["core"] = core_bench(built["bench_core"], small, work, a.core_seconds)

        # Instructions on the slice
        slice_cap = capture(slice_n)
        info["slice_packets"] = _count_packets(slice_cap)
        if not a.no_callgrind:
            log("callgrind: %d modes on %s connections and on an empty capture, %d at a time"
                % (len(modes), size_name(slice_n), a.jobs))
            jobs = [(m, cap, tag) for m in modes
                    for cap, tag in ((slice_cap, "slice"), (empty_cap, "startup"))]
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
                futs = {ex.submit(callgrind_run, m, cap, cgdir, tag): (m.name, tag)
                        for m, cap, tag in jobs}
                for fut in concurrent.futures.as_completed(futs):
                    name, tag = futs[fut]
                    results["callgrind"][(name, tag)] = fut.result()
                    log("  %-14s %-8s %15s Ir" % (name, tag,
                                                   "{:,}".format(fut.result()["ir"])))

        if a.field_cost:
            fc_n = parse_size(a.field_cost_slice)
            log("field cost: field_probe.so on %s connections" % size_name(fc_n))
            results["field_cost"] = (fc_n, field_cost(modes[0], boxes["probe"], capture(fc_n),
                                                      empty_cap, cgdir, a.jobs))

        # Wall time and memory per size
        mem_avail = _mem_available_kb()
        for n in sizes:
            reps = 1 if n >= 1000000 else a.reps
            largest = max((k for k in results["sizes"]), default=None)
            if largest:
                prev = results["sizes"][largest]
                per_conn = max(r["rss_kb"] for r in prev["best"].values()) / largest
                need = per_conn * n
                minutes = prev["seconds"] / prev["reps"] * reps * n / largest / 60
                why = []
                if need > 0.8 * mem_avail:
                    why.append("tshark would need about %.1f GB of memory (%.1f KB per "
                               "connection at %s), %.1f GB are available"
                               % (need / 1e6, per_conn, size_name(largest), mem_avail / 1e6))
                if minutes > a.max_minutes:
                    why.append("the runs would take about %.0f minutes (--max-minutes %g)"
                               % (minutes, a.max_minutes))
                if why:
                    results["sizes"][n] = {"skipped": "; ".join(why)}
                    log("skipping %s: %s" % (size_name(n), results["sizes"][n]["skipped"]))
                    continue
            cap = capture(n)
            runs = collections.defaultdict(list)
            t_size = time.perf_counter()
            for rep in range(reps):
                for m in modes:
                    log("%s connections, run %d/%d: %s" % (size_name(n), rep + 1, reps, m.name))
                    runs[m.name].append(timed_run(m, cap, work))
            best = {name: {"wall": min(r["wall"] for r in rs), "cpu": min(r["cpu"] for r in rs),
                           "rss_kb": max(r["rss_kb"] for r in rs),
                           "walls": [r["wall"] for r in rs]} for name, rs in runs.items()}
            results["sizes"][n] = {"best": best, "reps": reps,
                                   "seconds": time.perf_counter() - t_size,
                                   "packets": _count_packets(cap)}
        # start-up memory, for the per-connection figures
        results["startup"] = {m.name: timed_run(m, empty_cap, work) for m in modes}
    finally:
        for b in boxes.values():
            b.close()

    md = report(a, results, modes, info, gen_times, have_report, tshark_version, slice_n,
                time.time() - started, cgdir)
    sys.stdout.write(md)
    with open(a.out, "w") as f:
        f.write(md)
    log("wrote %s" % a.out)
    if a.keep or a.work:
        log("work folder kept: %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def source_state():
    """The commit measured, and whether the plugin sources had changes on top."""
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--", "plugin",
                                "CMakeLists.txt"], capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return "commit %s%s" % (head, " with uncommitted changes to plugin/" if dirty else "")


def _count_packets(path):
    n = 0
    with open(path, "rb") as f:
        f.seek(24)
        while True:
            hdr = f.read(16)
            if len(hdr) < 16:
                return n
            caplen = int.from_bytes(hdr[8:12], "little")
            f.seek(caplen, 1)
            n += 1


def _mem_available_kb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def report(a, results, modes, info, gen_times, have_report, tshark_version, slice_n, elapsed,
           cgdir):
    L = []
    w = L.append
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    w("# tlsneg benchmark results\n")
    cmd = "bench/run.sh --sizes %s --slice %s --reps %d" % (a.sizes, a.slice, a.reps)
    if a.field_cost:
        cmd += " --field-cost --field-cost-slice %s" % a.field_cost_slice
    w("Measured %s with `%s` on %s, %d CPUs (shared with other work), %s; source %s; "
      "%.0f minutes in all.\n"
      % (datetime.date.today().isoformat(), cmd, cpu, os.cpu_count(),
         tshark_version.rstrip("."), source_state(), elapsed / 60))
    w("Ratios are to plain tshark (`tshark -r FILE > /dev/null`, no plugin). "
      "`empty` is tlsneg's wanted fields and tap listener with a postdissector that does "
      "nothing (`TLSNEG_BENCH_EMPTY`); `tlsneg / empty` is tlsneg's own work.\n")
    if not have_report:
        w("`tlsneg -z` (`-z tlsneg,report`): not available (`tshark -z help` does not list "
          "tlsneg in this build).\n")

    cg = results["callgrind"]
    names = {m.name for m in modes}
    full = {"plain", "empty", "tlsneg", "pipeline"} <= names
    base = {}
    if cg:
        slice_pk = info.get("slice_packets")
        w("## Instructions (callgrind, %s connections, %s packets)\n" % (size_name(slice_n),
                                                                         "{:,}".format(slice_pk)))
        w("Total Ir of the whole run, and per connection after subtracting the same mode "
          "on an empty capture (tshark's start-up, about %.2f G instructions, which a "
          "capture of millions of packets does not notice).\n"
          % (cg[("plain", "startup")]["ir"] / 1e9))
        w("| mode | Ir total | ratio | Ir per connection (minus start-up) | ratio |")
        w("| --- | ---: | ---: | ---: | ---: |")
        for m in modes:
            tot = cg[(m.name, "slice")]["ir"]
            marg = (tot - cg[(m.name, "startup")]["ir"]) / slice_n
            base.setdefault("tot", tot)
            base.setdefault("marg", marg)
            w("| %s | %s | %s | %s | %s |" % (m.name, "{:,}".format(tot),
                                             fmt_ratio(tot / base["tot"]),
                                             "{:,.0f}".format(marg), fmt_ratio(marg / base["marg"])))
        w("")

    sizes = results["sizes"]
    for n, s in sizes.items():
        if "skipped" in s:
            w("## %s connections: not run\n\nSkipped: %s.\n" % (size_name(n), s["skipped"]))
            continue
        b = s["best"]
        w("## %s connections (%s packets): wall time, CPU, peak memory\n"
          % (size_name(n), "{:,}".format(s["packets"])))
        w("Best of %d runs (all runs: see the wall column's range); %.0f min for this size.\n"
          % (s["reps"], s["seconds"] / 60))
        w("| mode | wall s (runs) | ratio | CPU s | ratio | peak RSS MB | ratio |")
        w("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        p = b["plain"]
        for m in modes:
            r = b[m.name]
            w("| %s | %.2f (%s) | %s | %.2f | %s | %.0f | %s |" % (
                m.name, r["wall"], " ".join("%.1f" % x for x in r["walls"]),
                fmt_ratio(r["wall"] / p["wall"]), r["cpu"], fmt_ratio(r["cpu"] / p["cpu"]),
                r["rss_kb"] / 1024, fmt_ratio(r["rss_kb"] / p["rss_kb"])))
        w("")

    ran = [n for n, s in sizes.items() if "skipped" not in s]
    if len(ran) >= 2:
        w("## Linearity\n")
        w("CPU time and peak memory per connection (memory minus the same mode on an empty "
          "capture).\n")
        w("| mode | " + " | ".join("CPU us/conn %s" % size_name(n) for n in ran) + " | "
          + " | ".join("KB/conn %s" % size_name(n) for n in ran) + " |")
        w("| --- |" + " ---: |" * (2 * len(ran)))
        st = results.get("startup", {})
        for m in modes:
            cpu_pc = ["%.0f" % (sizes[n]["best"][m.name]["cpu"] * 1e6 / n) for n in ran]
            mem_pc = ["%.1f" % ((sizes[n]["best"][m.name]["rss_kb"]
                                 - st.get(m.name, {}).get("rss_kb", 0)) / n) for n in ran]
            w("| %s | %s | %s |" % (m.name, " | ".join(cpu_pc), " | ".join(mem_pc)))
        w("")

    # Targets
    w("## Targets\n")
    w("| target | measured | |")
    w("| --- | --- | --- |")
    if cg and full:
        marg = lambda name: (cg[(name, "slice")]["ir"] - cg[(name, "startup")]["ir"])  # noqa: E731
        r1 = marg("tlsneg") / marg("plain")
        r2 = marg("tlsneg") / marg("empty")
        r_tot = cg[("tlsneg", "slice")]["ir"] / cg[("plain", "slice")]["ir"]
        w("| tlsneg / plain, instructions <= 1.30x | %.3fx per connection (%.3fx with start-up) | %s |"
          % (r1, r_tot, mark(r1 <= 1.30)))
        w("| tlsneg / empty postdissector, instructions <= 1.05x | %.3fx | %s |"
          % (r2, mark(r2 <= 1.05)))
        w("| of which the wanted fields (empty / plain) | %.3fx | |"
          % (marg("empty") / marg("plain")))
    for n in ran:
        b = sizes[n]["best"]
        r = b["tlsneg"]["wall"] / b["plain"]["wall"]
        w("| tlsneg / plain, wall time <= 1.30x (%s) | %.3fx (CPU %.3fx) | %s |"
          % (size_name(n), r, b["tlsneg"]["cpu"] / b["plain"]["cpu"], mark(r <= 1.30)))
        r = b["tlsneg"]["rss_kb"] / b["plain"]["rss_kb"]
        w("| tlsneg / plain, peak memory <= 1.1x (%s) | %.3fx | %s |"
          % (size_name(n), r, mark(r <= 1.10)))
    if len(ran) >= 2:
        lo, hi = ran[0], ran[-1]
        c_lo = sizes[lo]["best"]["tlsneg"]["cpu"] / lo
        c_hi = sizes[hi]["best"]["tlsneg"]["cpu"] / hi
        p_lo = sizes[lo]["best"]["plain"]["cpu"] / lo
        p_hi = sizes[hi]["best"]["plain"]["cpu"] / hi
        m_lo = (sizes[lo]["best"]["tlsneg"]["rss_kb"]
                - results.get("startup", {}).get("tlsneg", {}).get("rss_kb", 0)) / lo
        m_hi = (sizes[hi]["best"]["tlsneg"]["rss_kb"]
                - results.get("startup", {}).get("tlsneg", {}).get("rss_kb", 0)) / hi
        w("| cost linear in connections | tlsneg CPU per connection %s -> %s: %.2fx "
          "(plain: %.2fx); memory per connection %.2fx | %s |"
          % (size_name(lo), size_name(hi), c_hi / c_lo, p_hi / p_lo, m_hi / m_lo,
             mark(c_hi / c_lo <= 1.15 * max(1.0, p_hi / p_lo) and m_hi / m_lo <= 1.1)))
    w("")

    # Pipeline
    if {"pipeline", "tlsneg fields"} <= names:
        w("## tlsneg against the `-T fields` pipeline (the same facts)\n")
        if cg:
            w("- Instructions (%s slice, whole runs): pipeline %s, `tlsneg fields` %s: tlsneg "
              "needs %.2fx fewer; plain `tlsneg` (summary lines, facts in the tree) %.2fx fewer."
              % (size_name(slice_n), "{:,}".format(cg[("pipeline", "slice")]["ir"]),
                 "{:,}".format(cg[("tlsneg fields", "slice")]["ir"]),
                 cg[("pipeline", "slice")]["ir"] / cg[("tlsneg fields", "slice")]["ir"],
                 cg[("pipeline", "slice")]["ir"] / cg[("tlsneg", "slice")]["ir"]))
            if ("tlsneg jsonl", "slice") in cg:
                w("- `tlsneg jsonl` (`-q -z tlsneg,jsonl`: one JSON record per hello, no tree "
                  "output) %s: %.2fx fewer instructions than the pipeline."
                  % ("{:,}".format(cg[("tlsneg jsonl", "slice")]["ir"]),
                     cg[("pipeline", "slice")]["ir"] / cg[("tlsneg jsonl", "slice")]["ir"]))
            if cg[("pipeline", "slice")].get("hellos"):
                w("- Hellos in the slice (as the pipeline counts them): %d."
                  % cg[("pipeline", "slice")]["hellos"])
        for n in ran:
            b = sizes[n]["best"]
            for name in ("tlsneg fields", "tlsneg jsonl"):
                if name in b:
                    w("- %s: wall time pipeline %.2f s, `%s` %.2f s: pipeline / tlsneg = %.2fx "
                      "(CPU %.2fx; above 1: tlsneg faster)."
                      % (size_name(n), b["pipeline"]["wall"], name, b[name]["wall"],
                         b["pipeline"]["wall"] / b[name]["wall"], b["pipeline"]["cpu"] / b[name]["cpu"]))
        w("")

    if results.get("field_cost"):
        fc_n, rows = results["field_cost"]
        w("## The price of each wanted field (field_probe.so, %s connections)\n" % size_name(fc_n))
        w("A postdissector that only asks for these fields (cumulative, top to bottom) and "
          "does nothing; instructions per connection minus start-up.\n")
        w("| wanted fields | Ir per connection | vs plain | this step |")
        w("| --- | ---: | ---: | ---: |")
        base_ir, prev = rows[0][1], rows[0][1]
        for label, ir in rows:
            w("| %s | %s | %s | %+.1f %% |" % (label, "{:,.0f}".format(ir / fc_n),
                                             fmt_ratio(ir / base_ir), 100 * (ir - prev) / base_ir))
            prev = ir
        w("")

    # Core
    w("## The core alone (bench_core)\n")
    w("Every ClientHello, ServerHello and HelloVerifyRequest of a 500-connection capture "
      "of the same mix (taken out with tshark's own dissection by "
      "`tests/captures/extract_hellos.py`), parsed again and again:\n")
    w("```\n%s\n```\n" % results["core"])

    # Profile
    if cg and full:
        w(profile_section(cg, modes, slice_n))
    if gen_times:
        w("## Generator\n")
        w(", ".join("%s connections in %.0f s" % (size_name(n), t)
                    for n, t in sorted(gen_times.items())) + " (bench/gen.py, this machine).\n")
    return "\n".join(L) + "\n"


def profile_section(cg, modes, slice_n):
    L = []
    w = L.append
    prof = {name: Profile(cg[(name, "slice")]["out"]) for name in ("plain", "empty", "tlsneg")}
    t = prof["tlsneg"]
    w("## Where the instructions go (callgrind, %s slice)\n" % size_name(slice_n))
    marg = lambda name: cg[(name, "slice")]["ir"] - cg[(name, "startup")]["ir"]  # noqa: E731
    w("Per connection: plain %.0f, wanted fields (empty - plain) %.0f, tlsneg's own work "
      "(tlsneg - empty) %.0f instructions.\n"
      % (marg("plain") / slice_n, (marg("empty") - marg("plain")) / slice_n,
         (marg("tlsneg") - marg("empty")) / slice_n))

    # tlsneg's own: the postdissector's inclusive cost and its callees
    roots = [k for k in t.find("dissect_tlsneg")]
    total = sum(t.inclusive(k) for k in roots)
    hellos = cg[("pipeline", "slice")].get("hellos")
    w("### tlsneg's postdissector\n")
    w("`dissect_tlsneg` and everything it calls: %s Ir (%s per connection%s).\n"
      % ("{:,}".format(total), "{:,.0f}".format(total / slice_n),
         ", %s per analysed hello" % "{:,.0f}".format(total / hellos) if hellos else ""))
    callees = collections.Counter()
    counts = collections.Counter()
    self_ir = 0
    for k in roots:
        self_ir += t.self_cost.get(k, 0)
        for callee, ir in t.calls.get(k, {}).items():
            if callee[1] == "dissect_tlsneg":
                continue
            callees[callee] += ir
            counts[callee] += t.ncalls[k][callee]
    w("| callee of dissect_tlsneg | calls | Ir | share | its top callees |")
    w("| --- | ---: | ---: | ---: | --- |")
    w("| (its own code) | | %s | %.1f %% | |" % ("{:,}".format(self_ir), 100 * self_ir / total))
    for callee, ir in callees.most_common(12):
        # callees of tlsneg's own functions only: a library function's calls
        # come from every caller, not just tlsneg
        sub = t.calls.get(callee, {}) if callee[0] == "tlsneg.so" else {}
        top = ", ".join("%s %s" % (c[1], "{:,}".format(v)) for c, v in
                        collections.Counter(sub).most_common(5))
        w("| %s [%s] | %s | %s | %.1f %% | %s |" % (callee[1], callee[0], "{:,}".format(counts[callee]),
                                                   "{:,}".format(ir), 100 * ir / total, top))
    w("")

    # by object
    w("### Instructions by library (self cost), whole run\n")
    objs = [prof[n].by_object() for n in ("plain", "empty", "tlsneg")]
    keys = sorted(set().union(*objs), key=lambda o: -objs[2].get(o, 0))[:10]
    w("| object | plain | empty | tlsneg | empty - plain | tlsneg - empty |")
    w("| --- | ---: | ---: | ---: | ---: | ---: |")
    for o in keys:
        v = [x.get(o, 0) for x in objs]
        w("| %s | %s | %s | %s | %+d | %+d |" % (o, *("{:,}".format(x) for x in v),
                                                v[1] - v[0], v[2] - v[1]))
    w("")

    # what the hidden tree costs
    w("### What the wanted fields cost tshark (empty - plain), top functions by self cost\n")
    fp, fe, ft = (prof[n].by_function() for n in ("plain", "empty", "tlsneg"))
    diff = collections.Counter({k: fe.get(k, 0) - fp.get(k, 0) for k in set(fp) | set(fe)})
    total_d = sum(diff.values())
    w("Total %s Ir (%s per connection).\n" % ("{:,}".format(total_d),
                                              "{:,.0f}".format(total_d / slice_n)))
    w("| function | Ir added | share |")
    w("| --- | ---: | ---: |")
    for k, v in diff.most_common(12):
        w("| %s | %s | %.1f %% |" % (k, "{:,}".format(v), 100 * v / total_d if total_d else 0))
    w("")
    w("### tlsneg - empty, top functions by self cost\n")
    diff = collections.Counter({k: ft.get(k, 0) - fe.get(k, 0) for k in set(fe) | set(ft)})
    w("| function | Ir added |")
    w("| --- | ---: |")
    for k, v in diff.most_common(15):
        w("| %s | %s |" % (k, "{:,}".format(v)))
    w("")
    w("(callgrind files: `%s`; `callgrind_annotate --inclusive=yes --tree=calling FILE`.)\n"
      % "callgrind/")
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
