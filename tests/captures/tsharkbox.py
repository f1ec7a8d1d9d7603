# SPDX-License-Identifier: GPL-2.0-or-later
"""Run tshark with a freshly built tlsneg.so and nothing else.

DESIGN.md, "Loading the fresh build in tests": tshark run as root ignores
WIRESHARK_PLUGIN_DIR, a global copy wins over a personal one, and a .so placed
directly in the plugin folder is ignored. So: copy the plugin to
$tmp/X.Y/epan/ in a mode-755 temporary folder, copy the captures there too,
point WIRESHARK_PLUGIN_DIR (and HOME) at it, run tshark as nobody when we are
root, and refuse to go on unless `tshark -G plugins` lists exactly that copy.
"""
import gzip
import os
import re
import shutil
import subprocess
import tempfile


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
        out = subprocess.run([tshark, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"TShark \(Wireshark\) (\d+)\.(\d+)", out)
        if not m:
            raise RuntimeError("cannot read tshark's version from: " + out[:200])
        self.ws_version = f"{m.group(1)}.{m.group(2)}"
        epan = os.path.join(self.dir, self.ws_version, "epan")
        os.makedirs(epan)
        for d in (os.path.join(self.dir, self.ws_version), epan):
            os.chmod(d, 0o755)
        self.plugin = os.path.join(epan, "tlsneg.so")
        shutil.copy(plugin, self.plugin)
        os.chmod(self.plugin, 0o755)
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

    def run(self, args, check=True):
        p = subprocess.run(self._prefix() + [self.tshark] + list(args), capture_output=True,
                           text=True, env=self.env(), cwd=self.dir, timeout=600)
        if check and p.returncode != 0:
            raise RuntimeError(f"tshark {' '.join(args)} failed ({p.returncode}): {p.stderr[:2000]}")
        for marker in ("runtime error:", "AddressSanitizer", "LeakSanitizer"):
            if marker in p.stderr:
                raise RuntimeError(f"tshark {' '.join(args)}: sanitizer report:\n{p.stderr[:4000]}")
        return p

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
        """Copy a capture into the box (unpacking .gz) and return its name there."""
        name = os.path.basename(path)
        if name.endswith(".gz"):
            name = name[:-3]
            with gzip.open(path, "rb") as src, open(os.path.join(self.dir, name), "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            shutil.copy(path, os.path.join(self.dir, name))
        os.chmod(os.path.join(self.dir, name), 0o644)
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
