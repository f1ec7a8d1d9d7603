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


class TsharkBox:
    def __init__(self, plugin, tshark="tshark"):
        self.tshark = tshark
        self.dir = tempfile.mkdtemp(prefix="tlsneg-test-")
        os.chmod(self.dir, 0o755)
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
        env.pop("WIRESHARK_CONFIG_DIR", None)
        return env

    def run(self, args, check=True):
        p = subprocess.run(self._prefix() + [self.tshark] + list(args), capture_output=True,
                           text=True, env=self.env(), cwd=self.dir, timeout=600)
        if check and p.returncode != 0:
            raise RuntimeError(f"tshark {' '.join(args)} failed ({p.returncode}): {p.stderr[:2000]}")
        return p

    def _check_plugin(self):
        lines = [l for l in self.run(["-G", "plugins"]).stdout.splitlines() if "tlsneg" in l]
        paths = [l.split("\t")[-1].strip() for l in lines]
        if paths != [self.plugin]:
            raise RuntimeError(f"tshark does not load exactly the fresh build {self.plugin}: {lines}")

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
