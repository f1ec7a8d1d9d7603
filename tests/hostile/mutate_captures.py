#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Mutation campaign: broken captures through tshark with the tlsneg plugin.

Every capture (pcaps/, the public ones in pcaps/public/ included, or those
given) is mutated in four ways:
  editcap   editcap -E (random byte errors) with several seeds and rates,
            from the start of each frame or past the Ethernet/IPv4/TCP headers;
  snaplen   editcap -s: every frame cut to a few lengths;
  cut       the file itself cut in the middle (a record ends early);
  lengths   inside every plaintext TLS/DTLS/SSLv2 hello found in a frame, a few
            length fields (record, handshake, session_id, cipher_suites,
            compression, extensions block, each extension, supported_versions,
            server_name, supported_groups, key_share, ALPN...) set to boundary
            or random values; the frame keeps its size. QUIC hellos are
            encrypted (Initial protection): only editcap reaches them.
Each mutant runs through `tshark -r M -V` and `tshark -r M -2 -V` (or the
--mode options given) with the plugin loaded from a fresh private plugin
folder (tests/captures/tsharkbox.py), by default the ASan + UBSan build with
the runtimes preloaded and LeakSanitizer on. A run fails on a signal (a
crash, or a sanitizer abort), a sanitizer or leak report, or a timeout. The
leak tshark shows with the plugin on a capture without packets (what the
plugin allocates once, at registration) is the baseline: a run that leaks
exactly that passes. A failing mutant is run again without the plugin, to
tell tlsneg's bugs from Wireshark's own, and copied to --keep-dir (a
reproducer: keep it as a regression capture).

Usage (from the checkout; see docs/reliability.md):
  cmake -S . -B build-asan -DCMAKE_C_COMPILER=gcc -DTLSNEG_SANITIZE=ON && cmake --build build-asan
  python3 -m tests.hostile.mutate_captures --plugin build-asan/tlsneg.so -n 3 -j 2
  python3 -m tests.hostile.mutate_captures --plugin build-asan/tlsneg.so --mode '-q -z tlsneg,report'
  python3 -m tests.hostile.mutate_captures --plugin build/tlsneg.so --no-sanitizers -n 1 pcaps/*.pcap
Exit status: 0 if no run failed, 1 otherwise, 2 on a usage or setup error.
"""
import argparse
import concurrent.futures
import glob
import gzip
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

from tests.captures.extract_hellos import default_captures
from tests.captures.tsharkbox import TsharkBox

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SANITIZER_MARKERS = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer")
RUNS = (("-V",), ("-2", "-V"))


# ---------------------------------------------------------------- capture files

def read_capture(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read()


def frames(data):
    """(offset, caplen) of every frame's bytes in a pcap or pcapng file."""
    out = []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = "<" if magic[0] in (0xD4, 0x4D) else ">"
        off = 24
        while off + 16 <= len(data):
            caplen = struct.unpack(end + "I", data[off + 8:off + 12])[0]
            if off + 16 + caplen > len(data):
                break
            out.append((off + 16, caplen))
            off += 16 + caplen
        return out
    if magic == b"\x0a\x0d\x0d\x0a":
        off, end = 0, "<"
        while off + 12 <= len(data):
            if data[off:off + 4] == b"\x0a\x0d\x0d\x0a":
                end = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            btype, blen = struct.unpack(end + "II", data[off:off + 8])
            if blen < 12 or off + blen > len(data):
                break
            if btype == 6 and blen >= 32:  # Enhanced Packet Block
                caplen = struct.unpack(end + "I", data[off + 20:off + 24])[0]
                out.append((off + 28, min(caplen, blen - 32)))
            elif btype == 3 and blen >= 16:  # Simple Packet Block
                out.append((off + 12, blen - 16))
            off += blen
        return out
    return out


# ---------------------------------------------------------------- hello length fields

def be(b, off, n):
    return int.from_bytes(b[off:off + n], "big")


class Fields:
    """Length fields of hellos in one frame: (offset in frame, size)."""

    def __init__(self, frame):
        self.b = frame
        self.out = []

    def add(self, off, size):
        if off + size <= len(self.b):
            self.out.append((off, size))
            return True
        return False

    def vec(self, off, size, limit):
        """A length-prefixed vector at off; returns its end, or None."""
        if not self.add(off, size):
            return None
        end = off + size + be(self.b, off, size)
        return end if end <= limit else None


def walk_extensions(f, off, limit, client):
    end = f.vec(off, 2, limit)
    if end is None:
        return
    p = off + 2
    while p + 4 <= end:
        etype = be(f.b, p, 2)
        f.add(p + 2, 2)
        body, body_end = p + 4, p + 4 + be(f.b, p + 2, 2)
        if body_end > end:
            return
        if etype == 43 and client:
            f.vec(body, 1, body_end)
        elif etype in (0, 10, 13, 16) or (etype in (51, 40) and client):
            inner_end = f.vec(body, 2, body_end)
            q = body + 2
            while inner_end is not None and q < inner_end:
                if etype == 0 and f.vec(q + 1, 2, inner_end) is not None:
                    q += 3 + be(f.b, q + 1, 2)
                elif etype in (51, 40) and f.vec(q + 2, 2, inner_end) is not None:
                    q += 4 + be(f.b, q + 2, 2)
                elif etype == 16 and f.vec(q, 1, inner_end) is not None:
                    q += 1 + be(f.b, q, 1)
                else:
                    break
        elif etype == 45:
            f.vec(body, 1, body_end)
        p = body_end


def walk_hello(f, h, limit, dtls):
    """Handshake message at h (type byte); limit: end of the frame."""
    mtype = f.b[h]
    f.add(h + 1, 3)
    if dtls:
        f.add(h + 9, 3)  # fragment_length
    p = h + (12 if dtls else 4)
    if mtype == 3:
        f.vec(p + 2, 1, limit)
        return
    p += 34  # version, random
    sid_end = f.vec(p, 1, limit)
    if sid_end is None:
        return
    p = sid_end
    if mtype == 1:
        if dtls:
            p = f.vec(p, 1, limit)
            if p is None:
                return
        p = f.vec(p, 2, limit)
        if p is None:
            return
        p = f.vec(p, 1, limit)
        if p is None:
            return
    else:
        p += 3  # cipher_suite, compression
    if p + 2 <= limit:
        walk_extensions(f, p, limit, mtype == 1)


def hello_length_fields(frame):
    f = Fields(frame)
    b, n = frame, len(frame)
    for i in range(n - 9):
        if b[i] == 0x16 and b[i + 1] == 0x03 and b[i + 2] <= 0x04 and b[i + 5] in (1, 2) \
                and be(b, i + 6, 3) <= be(b, i + 3, 2) + 0x4000 and b[i + 9] in (2, 3, 0x7f, 0xfe):
            f.add(i + 3, 2)
            walk_hello(f, i + 5, n, False)
        elif b[i] == 0x16 and (b[i + 1], b[i + 2]) in ((0xFE, 0xFF), (0xFE, 0xFD), (0xFE, 0xFC), (1, 0)) \
                and i + 13 < n and b[i + 13] in (1, 2, 3):
            f.add(i + 11, 2)
            walk_hello(f, i + 13, n, True)
        elif b[i] & 0x80 and b[i + 2] == 1 and b[i + 3] == 3 and b[i + 4] <= 3 \
                and be(b, i, 2) & 0x7FFF == n - i - 2:
            for k in (0, 5, 7, 9):  # record length, the three SSLv2 lengths
                f.add(i + k, 2)
    return f.out


def mutate_value(rng, old, size):
    top = (1 << (8 * size)) - 1
    choice = rng.randrange(8)
    if choice == 0:
        return 0
    if choice == 1:
        return top
    if choice == 2:
        return (old + 1) & top
    if choice == 3:
        return (old - 1) & top
    if choice == 4:
        return old ^ (1 << rng.randrange(8 * size))
    if choice == 5:
        return rng.choice((1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF)) & top
    return rng.randrange(top + 1)


def mutate_lengths(data, rng):
    """Returns the mutated bytes and how many fields changed."""
    buf = bytearray(data)
    changed = 0
    for off, caplen in frames(data):
        fields = hello_length_fields(bytes(buf[off:off + caplen]))
        if not fields:
            continue
        for foff, size in rng.sample(fields, min(len(fields), rng.randint(1, 3))):
            pos = off + foff
            old = int.from_bytes(buf[pos:pos + size], "big")
            buf[pos:pos + size] = mutate_value(rng, old, size).to_bytes(size, "big")
            changed += 1
    return bytes(buf), changed


# ---------------------------------------------------------------- mutants

def make_mutants(src, box_dir, stem, n, rng):
    """Writes the mutants of one capture into box_dir; returns [(name, how)]."""
    out = []
    data = read_capture(src)
    plain = os.path.join(box_dir, stem + ".orig")
    with open(plain, "wb") as f:
        f.write(data)

    def target(kind, i):
        return "%s.%s%d" % (stem, kind, i)

    for i in range(n):
        seed = rng.randrange(1 << 31)
        rate = (0.01, 0.05, 0.002)[i % 3]
        offset = (0, 54)[i % 2]
        name = target("E", i)
        p = subprocess.run(["editcap", "-E", str(rate), "--seed", str(seed), "-o", str(offset),
                            plain, os.path.join(box_dir, name)], capture_output=True, text=True)
        if p.returncode == 0:
            out.append((name, "editcap -E %s --seed %d -o %d" % (rate, seed, offset)))
    for i, snap in enumerate(rng.sample((60, 80, 100, 150, 250, 400, 700), min(n, 5))):
        name = target("s", i)
        p = subprocess.run(["editcap", "-s", str(snap), plain, os.path.join(box_dir, name)],
                           capture_output=True, text=True)
        if p.returncode == 0:
            out.append((name, "editcap -s %d" % snap))
    for i in range(max(1, n // 2)):
        cut = rng.randrange(len(data) // 4, len(data))
        name = target("cut", i)
        with open(os.path.join(box_dir, name), "wb") as f:
            f.write(data[:cut])
        out.append((name, "file cut at byte %d of %d" % (cut, len(data))))
    for i in range(2 * n):
        mutated, changed = mutate_lengths(data, rng)
        if not changed:
            break  # no plaintext hello in a frame of its own: nothing to aim at
        name = target("len", i)
        with open(os.path.join(box_dir, name), "wb") as f:
            f.write(mutated)
        out.append((name, "%d hello length fields changed" % changed))
    os.remove(plain)
    for name, _ in out:
        os.chmod(os.path.join(box_dir, name), 0o644)
    return out


# ---------------------------------------------------------------- running tshark

LEAK_SUMMARY = re.compile(r"SUMMARY: AddressSanitizer: (\d+) byte\(s\) leaked in (\d+) allocation")


def leak_summary(err):
    m = LEAK_SUMMARY.search(err)
    return (int(m.group(1)), int(m.group(2))) if m else None


def only_baseline_leak(err, baseline):
    """True when err holds nothing but the leak every run has at exit (the
    plugin's registration data, once): no other report, the same total."""
    if baseline is None or leak_summary(err) != baseline:
        return False
    return "runtime error:" not in err and "ERROR: AddressSanitizer" not in err


def run_on_empty(box, env, args):
    """tshark with the plugin on a capture with no packet."""
    empty = os.path.join(box.dir, "empty.pcap")
    if not os.path.exists(empty):
        with open(empty, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        os.chmod(empty, 0o644)
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    return subprocess.run(prefix + [box.tshark, "-r", "empty.pcap"] + list(args),
                          capture_output=True, text=True, env=env, cwd=box.dir)


def baseline_leak(box, env):
    """The LeakSanitizer summary of tshark with the plugin on a capture with
    no packet: what does not grow with the input."""
    p = run_on_empty(box, env, [])
    return leak_summary(p.stderr), p.stderr


def run_tshark(box, args, env, timeout, baseline=None):
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    start = time.monotonic()
    proc = subprocess.Popen(prefix + [box.tshark] + list(args), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, cwd=box.dir, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "timeout after %ds" % timeout, "", time.monotonic() - start
    err = err.decode("utf-8", "replace")
    if only_baseline_leak(err, baseline):
        return None, err, time.monotonic() - start
    if proc.returncode < 0:
        return "killed by signal %d" % -proc.returncode, err, time.monotonic() - start
    if proc.returncode > 128:
        return "exit status %d" % proc.returncode, err, time.monotonic() - start
    for marker in SANITIZER_MARKERS:
        if marker in err:
            return "sanitizer report (%s)" % marker, err, time.monotonic() - start
    return None, err, time.monotonic() - start


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="*",
                    help="files or folders (their *.pcap*); default: everything under pcaps/")
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build-asan", "tlsneg.so"))
    ap.add_argument("--no-sanitizers", action="store_true",
                    help="the plugin is a build without ASan/UBSan: preload nothing")
    ap.add_argument("-n", type=int, default=4,
                    help="mutants per kind and capture: n editcap, min(n,5) snaplen, n/2 cuts, "
                         "2n length (default 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", action="append", default=None,
                    help="tshark options of one run per mutant, repeatable (default: '-V' and "
                         "'-2 -V'), e.g. --mode '-q -z tlsneg,report'")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per tshark run")
    ap.add_argument("--one-run", action="store_true",
                    help="one tshark run per mutant (alternating -V and -2 -V), for the smoke test")
    ap.add_argument("--sample", type=int, default=0,
                    help="run only this many tshark runs, drawn at random (seeded) from all")
    ap.add_argument("--keep-dir", default=None,
                    help="copy failing mutants here (default: mutate-failures/ in the current folder)")
    args = ap.parse_args(argv[1:])

    captures = []
    for c in args.captures:
        captures += sorted(glob.glob(os.path.join(c, "*.pcap*"))) if os.path.isdir(c) else [c]
    captures = captures if args.captures else default_captures()
    if not captures:
        sys.stderr.write("no captures\n")
        return 2
    if not os.path.exists(args.plugin):
        sys.stderr.write("no plugin at %s: build it first (see --help)\n" % args.plugin)
        return 2
    box = TsharkBox(args.plugin, sanitizers=not args.no_sanitizers)
    env = box.env()
    if not args.no_sanitizers:
        env["ASAN_OPTIONS"] = "detect_leaks=1:halt_on_error=1:abort_on_error=1"
        env["UBSAN_OPTIONS"] = "halt_on_error=1:abort_on_error=1:print_stacktrace=1"
    bare = dict(env)
    bare["WIRESHARK_PLUGIN_DIR"] = box.extcap  # an empty folder: no plugin
    rng = random.Random(args.seed)
    baseline = None
    if not args.no_sanitizers:
        baseline, report = baseline_leak(box, env)
        if baseline:
            print("Note: with no packet at all, LeakSanitizer reports %d bytes in %d allocations at "
                  "exit; runs that leak exactly that pass (it does not grow with the input):\n%s" % (
                      baseline[0], baseline[1], report.strip()[-1500:]), flush=True)

    modes = [tuple(m.split()) for m in args.mode] if args.mode else RUNS
    for mode in modes:
        p = run_on_empty(box, env, mode)
        if p.returncode != 0 and not only_baseline_leak(p.stderr, baseline):
            sys.stderr.write("tshark %s fails on an empty capture (%d): %s\n" % (
                " ".join(mode), p.returncode, p.stderr[-1000:]))
            box.close()
            return 2

    jobs = []
    kinds = {}
    started = time.monotonic()
    try:
        for src in captures:
            stem = os.path.basename(src)
            for name, how in make_mutants(src, box.dir, stem, args.n, rng):
                kind = name.rsplit(".", 1)[1].rstrip("0123456789")
                kinds[kind] = kinds.get(kind, 0) + 1
                runs = modes
                if args.one_run:
                    runs = (modes[len(jobs) % len(modes)],)
                for run in runs:
                    jobs.append((src, name, how, ["-r", name] + list(run)))
        if args.sample and args.sample < len(jobs):
            jobs = rng.sample(jobs, args.sample)
            kinds = {}
            for name in sorted(set(j[1] for j in jobs)):
                kind = name.rsplit(".", 1)[1].rstrip("0123456789")
                kinds[kind] = kinds.get(kind, 0) + 1
        print("%d captures, %d mutants (%s), %d tshark runs, plugin %s%s" % (
            len(captures), sum(kinds.values()),
            ", ".join("%s %d" % kv for kv in sorted(kinds.items())), len(jobs), args.plugin,
            "" if args.no_sanitizers else " with ASan+UBSan+LSan"), flush=True)

        failures = []
        slowest = (0.0, None)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futs = {pool.submit(run_tshark, box, j[3], env, args.timeout, baseline): j
                    for j in jobs}
            for done, fut in enumerate(concurrent.futures.as_completed(futs), 1):
                src, name, how, targv = futs[fut]
                why, err, secs = fut.result()
                if done % 100 == 0:
                    print("... %d of %d runs, %d failed" % (done, len(jobs), len(failures)),
                          flush=True)
                if secs > slowest[0]:
                    slowest = (secs, " ".join(targv))
                if why:
                    failures.append((src, name, how, targv, why, err))
                    print("FAIL %s (%s): tshark %s: %s" % (name, how, " ".join(targv), why),
                          flush=True)

        real = 0
        keep = args.keep_dir or os.path.join(os.getcwd(), "mutate-failures")
        for src, name, how, targv, why, err in failures:
            base_why, _, _ = run_tshark(box, targv, bare, args.timeout, baseline)
            owner = "Wireshark too (fails without the plugin)" if base_why else "tlsneg"
            real += not base_why
            os.makedirs(keep, exist_ok=True)
            shutil.copy(os.path.join(box.dir, name), os.path.join(keep, name))
            print("\n== %s: %s; %s\n   from %s, %s; kept as %s\n%s" % (
                name, why, owner, src, how, os.path.join(keep, name), err[-4000:]))
        print("%d tshark runs on %d mutants in %.0f s (slowest %.1f s: %s); %d failed, "
              "%d of them only with the plugin" % (
                  len(jobs), sum(kinds.values()), time.monotonic() - started, slowest[0],
                  slowest[1], len(failures), real))
        return 1 if failures else 0
    finally:
        box.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
