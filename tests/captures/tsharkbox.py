# SPDX-License-Identifier: GPL-2.0-or-later
"""Run tshark with a freshly built tlsneg.so and nothing else.

DESIGN.md, "Loading the fresh build in tests": tshark run as root ignores
WIRESHARK_PLUGIN_DIR, a global copy wins over a personal one, and a .so placed
directly in the plugin folder is ignored. So: copy the plugin to
$tmp/X.Y/epan/ in a mode-755 temporary folder, copy the captures there too,
point WIRESHARK_PLUGIN_DIR (and HOME) at it, run tshark as nobody when we are
root, and refuse to go on unless `tshark -G plugins` lists exactly that copy.

Every tshark start goes through start(): with $TLSNEG_TSHARK_LOG set, it
appends a line to that file (seconds, then the arguments), to count them.
A run asked for with share=True (box.run, plain_run) is made once and its
output shared: in memory, or with $TLSNEG_TSHARK_CACHE set (ctest sets it, and
empties that folder first: the tshark.cache test), in that folder, among the
runners of one ctest run, keyed by what decides the output: tshark (version,
or binary), the plugin's bytes, the captures' bytes and the arguments.
"""
import fcntl
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

LOG = "TLSNEG_TSHARK_LOG"
CACHE = "TLSNEG_TSHARK_CACHE"


def start(cmd, **kwargs):
    """subprocess.run(cmd, capture_output=True, text=True, **kwargs), logged
    to $TLSNEG_TSHARK_LOG when set (one line, appended)."""
    t0 = time.monotonic()
    try:
        return subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    finally:
        log = os.environ.get(LOG)
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{time.monotonic() - t0:.3f}\t{' '.join(cmd)}\n")


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Shared:
    """Outputs of tshark runs by key: in memory, or in the folder
    $TLSNEG_TSHARK_CACHE names, one JSON file per key, written to a temporary
    name and renamed; a lock file per key makes a second process (or thread)
    wait for the first's run instead of making it again. Only runs that
    succeeded are kept."""

    def __init__(self):
        self.lock = threading.Lock()
        self.key_locks = {}
        self.memo = {}

    def get(self, key, run):
        """run()'s CompletedProcess for key (a list of strings), made once."""
        digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()
        with self.lock:
            key_lock = self.key_locks.setdefault(digest, threading.Lock())
        with key_lock:
            folder = os.environ.get(CACHE)
            if not folder:
                if digest not in self.memo:
                    self.memo[digest] = run()
                return self.memo[digest]
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, digest + ".json")
            with open(path + ".lock", "a", encoding="utf-8") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    with open(path, encoding="utf-8") as f:
                        d = json.load(f)
                    return subprocess.CompletedProcess(d["args"], d["returncode"], d["stdout"],
                                                       d["stderr"])
                except FileNotFoundError:
                    pass
                p = run()
                tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    json.dump({"key": key, "args": p.args, "returncode": p.returncode,
                               "stdout": p.stdout, "stderr": p.stderr}, f)
                os.replace(tmp, path)
                return p


SHARED = Shared()


def _tshark_id(tshark):
    """The tshark binary as a key: its path and the size and time of its file."""
    path = os.path.realpath(shutil.which(tshark) or tshark)
    st = os.stat(path)
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def plain_run(args, tshark="tshark", share=False):
    """tshark ARGS as this user, no plugin of ours: tshark's own dissection.
    Raises CalledProcessError unless it exits 0. share=True: made once (the
    capture after -r keyed by its bytes)."""
    cmd = [tshark] + list(args)

    def run():
        p = start(cmd)
        p.check_returncode()
        return p

    if not share:
        return run()
    key = ["plain", _tshark_id(tshark)] + [
        "capture:" + file_hash(a) if i and args[i - 1] == "-r" else a for i, a in enumerate(args)]
    return SHARED.get(key, run)


def sanitizer_runtimes():
    """The gcc ASan and UBSan runtimes, for LD_PRELOAD into tshark."""
    libs = []
    for name in ("libasan.so", "libubsan.so"):
        path = subprocess.run(["gcc", "-print-file-name=" + name], capture_output=True,
                              text=True).stdout.strip()
        if not os.path.isabs(path):
            raise RuntimeError(f"gcc does not know {name}")
        libs.append(path)
    return " ".join(libs)


# Decode As rules a capture's manifest asks for (its `decode_as` lines,
# tests/captures/README.md), by the capture's name in the box: every tshark
# run that reads that capture gets them, as a user gives Wireshark a port it
# does not know.
DECODE_AS = {}


def box_name(path):
    """A capture's name in the box (add_capture): its file name, without .gz."""
    name = os.path.basename(path)
    return name[:-3] if name.endswith(".gz") else name


class TsharkBox:
    def __init__(self, plugin, tshark="tshark", sanitizers=False):
        self.tshark = tshark
        self.dir = tempfile.mkdtemp(prefix="tlsneg-test-")
        os.chmod(self.dir, 0o755)
        # An empty extcap folder: tshark -G starts every extcap helper, and one
        # that hangs would hang the test.
        self.extcap = os.path.join(self.dir, "extcap")
        os.mkdir(self.extcap)
        os.chmod(self.extcap, 0o755)
        # A plugin built with ASan/UBSan needs their runtimes loaded first.
        self.preload = sanitizer_runtimes() if sanitizers else ""
        out = start([tshark, "--version"]).stdout
        m = re.search(r"TShark \(Wireshark\) (\d+)\.(\d+)", out)
        if not m:
            raise RuntimeError("cannot read tshark's version from: " + out[:200])
        self.ws_version = f"{m.group(1)}.{m.group(2)}"
        self.version_line = out.splitlines()[0]
        # name in the box -> the bytes' hash, for the keys of shared runs
        self.captures = {}
        self.lock = threading.Lock()
        epan = os.path.join(self.dir, self.ws_version, "epan")
        os.makedirs(epan)
        for d in (os.path.join(self.dir, self.ws_version), epan):
            os.chmod(d, 0o755)
        self.plugin = os.path.join(epan, "tlsneg.so")
        shutil.copy(plugin, self.plugin)
        os.chmod(self.plugin, 0o755)
        self.plugin_hash = file_hash(self.plugin)
        self._check_plugin()

    def _prefix(self):
        if os.geteuid() == 0:
            return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        return []

    def env(self):
        env = dict(os.environ)
        env["WIRESHARK_PLUGIN_DIR"] = self.dir
        env["HOME"] = self.dir
        env["WIRESHARK_EXTCAP_DIR"] = self.extcap
        env.pop("WIRESHARK_CONFIG_DIR", None)
        if self.preload:
            env["LD_PRELOAD"] = self.preload
            # tshark itself frees little at exit: leaks are not ours to judge here.
            env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1:abort_on_error=1"
            env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
        return env

    def run(self, args, check=True, share=False):
        """tshark ARGS in the box; raises if check and it fails, and on a
        sanitizer report. share=True (check implied): made once (Shared),
        for a run whose output only tshark, the plugin, the captures named
        in args and args decide."""
        if "-r" in args[:-1]:
            for rule in DECODE_AS.get(args[args.index("-r") + 1], ()):
                if rule not in args:
                    args = list(args) + ["-d", rule]
        if share:
            key = ["box", self.version_line, self.plugin_hash, str(bool(self.preload))] + [
                "capture:" + self.captures[a] if a in self.captures else a for a in args]
            return SHARED.get(key, lambda: self.run(args))
        p = start(self._prefix() + [self.tshark] + list(args), env=self.env(), cwd=self.dir,
                  timeout=600)
        if check and p.returncode != 0:
            raise RuntimeError(f"tshark {' '.join(args)} failed ({p.returncode}): {p.stderr[:2000]}")
        for marker in ("runtime error:", "AddressSanitizer", "LeakSanitizer"):
            if marker in p.stderr:
                raise RuntimeError(f"tshark {' '.join(args)}: sanitizer report:\n{p.stderr[:4000]}")
        return p

    def field_text(self, value):
        """A string value as -T fields printed it, unescaped. Per-version
        note: 4.4 and later write a backslash as \\\\ (4.0 as it is; 4.2 not
        tried); both write CR, LF and tab as \\r, \\n, \\t."""
        if tuple(int(x) for x in self.ws_version.split(".")) < (4, 4):
            return value
        return re.sub(r"\\(.)", lambda m: {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}.get(
            m.group(1), "\\" + m.group(1)), value)

    def _check_plugin(self):
        p = self.run(["-G", "plugins"])
        lines = [l for l in p.stdout.splitlines() if "tlsneg" in l]
        paths = [l.split("\t")[-1].strip() for l in lines]
        if paths != [self.plugin]:
            # tshark's stderr says why, e.g. "The plugin 'tlsneg.so' was
            # compiled for Wireshark version 4.0" for a build against other
            # headers than this tshark's.
            raise RuntimeError(f"tshark {self.ws_version} does not load exactly the fresh build "
                               f"{self.plugin}: {lines}\n{p.stderr.strip()[:2000]}")

    def add_capture(self, path):
        """Copy a capture into the box (unpacking .gz) and return its name
        there; a capture copied before (and still there) is not copied again."""
        gz = path.endswith(".gz")
        name = box_name(path)
        dest = os.path.join(self.dir, name)
        with self.lock:
            if name in self.captures and os.path.exists(dest):
                return name
            tmp = dest + ".tmp"
            if gz:
                with gzip.open(path, "rb") as src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                shutil.copy(path, tmp)
            os.chmod(tmp, 0o644)
            os.replace(tmp, dest)
            self.captures[name] = file_hash(dest)
        return name

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    @classmethod
    def from_args(cls, args):
        """A box from the options add_arguments() declared."""
        return cls(args.plugin, args.tshark, args.sanitizers)


def add_arguments(ap, plugin_required=True, plugin_default=None):
    """The options every runner with a TsharkBox takes: --plugin, --tshark,
    --sanitizers (TsharkBox.from_args reads them)."""
    ap.add_argument("--plugin", required=plugin_required and plugin_default is None,
                    default=plugin_default, help="the freshly built tlsneg.so")
    ap.add_argument("--tshark", default="tshark", help="the tshark to run (default: tshark)")
    ap.add_argument("--sanitizers", action="store_true",
                    help="the plugin is an ASan/UBSan build: preload their runtimes into tshark")


def clear_cache():
    """The tshark.cache test: $TLSNEG_TSHARK_CACHE emptied, so that a ctest
    run shares only what it made itself. TAP."""
    folder = os.environ.get(CACHE)
    if not folder:
        print(f"not ok 1 - ${CACHE} names the folder to empty")
        return 1
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    ok = not os.listdir(folder)
    print(f"{'ok' if ok else 'not ok'} 1 - the shared tshark outputs start empty ({folder})")
    print("1..1")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] != ["--clear-cache"]:
        sys.exit("usage: python3 -m tests.captures.tsharkbox --clear-cache")
    sys.exit(clear_cache())
