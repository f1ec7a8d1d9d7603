#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every output of both front ends on every capture, one file each, for a
byte-for-byte comparison of two trees (a refactoring must change none):

  python3 -m tools.snapshot-outputs --build BUILD --out DIR [CAPTURE ...]
  diff -r DIR_BEFORE DIR_AFTER          # empty when nothing changed

Without CAPTUREs: every capture in pcaps/ and pcaps/public/. For each one:
tshark -V and -2 -V (the plugin's tree), -z tlsneg,report|jsonl|csv|ladder|
ladder-svg, and tlsneg-pcap --jsonl --report --csv (and --ladder when the
tool has it). Standard error is kept beside each output. --only tshark|pcap
limits it to one front end.
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)
from tests.captures.tsharkbox import TsharkBox  # noqa: E402

TSHARK_MODES = {
    "V": ["-V"],
    "2V": ["-2", "-V"],
    "report": ["-q", "-z", "tlsneg,report"],
    "jsonl": ["-q", "-z", "tlsneg,jsonl"],
    "csv": ["-q", "-z", "tlsneg,csv"],
    "ladder": ["-q", "-z", "tlsneg,ladder"],
    "ladder-svg": ["-q", "-z", "tlsneg,ladder-svg"],
}
PCAP_MODES = {
    "pcap-jsonl": ["--jsonl"],
    "pcap-report": ["--report"],
    "pcap-csv": ["--csv"],
}


def captures():
    found = sorted(glob.glob(os.path.join(REPO, "pcaps", "*.pcap*")))
    found += sorted(glob.glob(os.path.join(REPO, "pcaps", "public", "*", "*.pcap*")))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="a build folder (tlsneg.so, tlsneg-pcap)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", choices=("tshark", "pcap"),
                    help="only the plugin's outputs, or only tlsneg-pcap's")
    ap.add_argument("captures", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    box = TsharkBox(os.path.join(args.build, "tlsneg.so"))
    tool = os.path.join(args.build, "tlsneg-pcap")
    help_text = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    pcap_modes = dict(PCAP_MODES)
    if "--ladder" in help_text:
        pcap_modes["pcap-ladder"] = ["--ladder"]

    tshark_modes = {} if args.only == "pcap" else TSHARK_MODES
    if args.only == "tshark":
        pcap_modes = {}

    def one(path):
        name = box.add_capture(path)
        for mode, argv in tshark_modes.items():
            p = box.run(["-r", name] + argv, check=False)
            write(args.out, name, mode, p)
        for mode, argv in pcap_modes.items():
            p = subprocess.run([tool] + argv + [path], capture_output=True, text=True)
            write(args.out, name, mode, p)
        return name

    try:
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            for name in pool.map(one, args.captures or captures()):
                print(name, flush=True)
    finally:
        box.close()


def write(out, name, mode, p):
    base = os.path.join(out, f"{name}.{mode}")
    with open(base, "w") as f:
        f.write(p.stdout)
    with open(base + ".err", "w") as f:
        f.write(p.stderr.replace(os.path.dirname(base), "OUT"))
        f.write(f"exit {p.returncode}\n")


if __name__ == "__main__":
    main()
