#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tlsneg-pcap live, in a network namespace of its own (unshare -n as root,
unshare -rn otherwise): loopback up, `tlsneg-pcap -i lo --jsonl --report`
(with `-Z nobody` when root), then a real client falling back against a
version-intolerant server, as pcaps/make-captures.sh makes intolerant-rst.pcap:
OpenSSL's s_server -tls1_2 behind pcaps/tlsproxy.py, which resets every
ClientHello that offers more than TLS 1.2; `openssl s_client` fails, then
`openssl s_client -tls1_2` gets through. Checks, while the capture runs, that
the records come out as they happen (line-buffered), that root was given up,
then sends SIGINT and checks that the tool ends cleanly (exit 0) with the
report: the fallback retry, the reset outcome, the version-intolerance verdict.
A second, short capture (one TLS 1.3 handshake with s_server) is ended by
SIGTERM, the way a service manager stops it: exit 0 and the report again.

Every wait is bounded. Prints TAP ("ok N - ...") and "N passed, N failed"."""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PORT, BACKEND, TERM_PORT = 44323, 44324, 44325
res = Results()
ok = res.check


def stop(proc, sig):
    """Send sig and wait (10 s at most) for proc's exit status; None if it
    had to be killed."""
    proc.send_signal(sig)
    try:
        return proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        return None


def wait_for(pred, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def listening(port):
    out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True,
                         text=True).stdout
    return bool(out.strip())


def lines_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def records(path):
    out = []
    for line in lines_of(path):
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def inside(tool):
    """The test itself, in the new namespace."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    tmp = tempfile.mkdtemp(prefix="tlsneg-live-")
    os.chmod(tmp, 0o755)
    procs = []
    try:
        cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "2", "-subj", "/CN=localhost"], check=True,
                       capture_output=True, timeout=30)
        out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
        root = os.geteuid() == 0 and not os.environ.get("TLSNEG_LIVE_USERNS")
        cmd = [tool, "--jsonl", "--report", "-i", "lo"]
        if root:
            cmd[1:1] = ["-Z", "nobody"]
        cmd += ["tcp", "port", str(PORT)]
        with open(out, "wb") as fo, open(err, "wb") as fe:
            tp = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        procs.append(tp)
        if not ok(wait_for(lambda: "listening on lo" in open(err).read(), 10),
                  "tlsneg-pcap -i lo says it is listening"):
            print("# " + open(err).read().replace("\n", "\n# "))
            return
        if root:
            uid = [l for l in open(f"/proc/{tp.pid}/status") if l.startswith("Uid:")]
            ok(uid and uid[0].split()[1:] == ["65534"] * 4,
               f"-Z nobody: real, effective, saved and filesystem uid are nobody's: {uid}")
        else:
            print("# not root: -Z is not tested (unshare -rn maps no other user)")
        server = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{BACKEND}",
                                   "-cert", cert, "-key", key, "-naccept", "1", "-quiet",
                                   "-tls1_2"], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(server)
        proxy = subprocess.Popen(["timeout", "15", sys.executable, "-m", "pcaps.tlsproxy",
                                  "intolerant", str(PORT), str(BACKEND), "0303", "rst", "2"],
                                 cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proxy)
        ok(wait_for(lambda: listening(BACKEND) and listening(PORT), 10),
           "the TLS 1.2 server and the intolerant proxy listen")
        # Classical groups only: OpenSSL 3.5 (Debian 13) would add an
        # X25519MLKEM768 share, and its -tls1_2 retry would then change its
        # key exchange and size too, which rightly gives no version verdict.
        client = ["timeout", "10", "openssl", "s_client", "-connect", f"127.0.0.1:{PORT}",
                  "-servername", "localhost", "-groups", "x25519:secp256r1"]
        first = subprocess.run(client, stdin=subprocess.DEVNULL, capture_output=True)
        ok(first.returncode not in (0, 124), "the client's TLS 1.3 attempt fails (reset)")
        second = subprocess.run(client + ["-tls1_2"], stdin=subprocess.DEVNULL,
                                capture_output=True)
        ok(second.returncode == 0, "its TLS 1.2 retry gets through")

        def retry_seen():
            return any(r.get("record") == "hello" and "fallback_of" in r for r in records(out))

        # Line-buffered: the retry's record is out before the capture ends.
        ok(wait_for(retry_seen, 10), "the fallback retry's record is written while capturing")
        rc = stop(tp, signal.SIGINT)
        ok(rc == 0, f"SIGINT ends tlsneg-pcap cleanly (exit {rc})")
        recs = records(out)
        hellos = [r for r in recs if r["record"] == "hello" and r["msg"] == "ClientHello"]
        ok(len(hellos) == 2 and hellos[0]["offered_max"] == "0x0304"
           and hellos[1]["offered_max"] == "0x0303" and hellos[1]["fallback_of"] ==
           hellos[0]["frame"] and "fallback_retry" in hellos[1]["findings"],
           "two ClientHellos: up to TLS 1.3, then up to TLS 1.2 with fallback_of the first "
           "and fallback_retry")
        ok(any(r["record"] == "outcome" and r["outcome"] == "reset"
               and r["attempt_frame"] == hellos[0]["frame"] for r in recs) if hellos else False,
           "the first attempt's outcome is the reset")
        ok(any(r["record"] == "hello" and r["msg"] == "ServerHello" and r["negotiated"] == "0x0303"
               and "version_intolerance" in r["findings"] for r in recs),
           "the TLS 1.2 ServerHello carries the version_intolerance verdict")
        text = "\n".join(lines_of(out))
        ok("=== tlsneg report ===" in text and "VERSION-INTOLERANT" in text
           and "fallback_retry" in text.split("=== tlsneg report ===")[-1],
           "the report follows at the end, with the intolerant server and the retry")
        if res.failed:
            print("# output:\n# " + text.replace("\n", "\n# "))
            print("# stderr:\n# " + open(err).read().replace("\n", "\n# "))
        sigterm_run(tool, tmp, cert, key, root, procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)
        shutil.rmtree(tmp, ignore_errors=True)


def sigterm_run(tool, tmp, cert, key, root, procs):
    """One handshake captured live, then SIGTERM while its connection is
    still open: the same clean end as SIGINT (the handler sets a flag and
    breaks the loop), with the report, and the open flow ended as at a
    file's end (--stats: no connection kept)."""
    out, err = os.path.join(tmp, "term-out"), os.path.join(tmp, "term-err")
    cmd = [tool, "--jsonl", "--report", "--stats", "-i", "lo"]
    cmd += ["-Z", "nobody"] if root else []
    cmd += ["tcp", "port", str(TERM_PORT)]
    with open(out, "wb") as fo, open(err, "wb") as fe:
        tp = subprocess.Popen(cmd, stdout=fo, stderr=fe)
    procs.append(tp)
    if not ok(wait_for(lambda: "listening on lo" in open(err).read(), 10),
              "a second tlsneg-pcap -i lo says it is listening"):
        return
    # Standard input open on both sides: at its end each would close.
    server = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{TERM_PORT}",
                               "-cert", cert, "-key", key, "-naccept", "1", "-quiet"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    procs.append(server)
    ok(wait_for(lambda: listening(TERM_PORT), 10), "a TLS server listens")
    client = subprocess.Popen(["openssl", "s_client", "-connect", f"127.0.0.1:{TERM_PORT}",
                               "-servername", "localhost"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    procs.append(client)

    def server_hello_seen():
        return any(r.get("record") == "hello" and r.get("msg") == "ServerHello"
                   for r in records(out))

    ok(wait_for(server_hello_seen, 10), "its ServerHello's record is written while capturing")
    ok(client.poll() is None, "the client's connection is still open")
    rc = stop(tp, signal.SIGTERM)
    ok(rc == 0, f"SIGTERM ends tlsneg-pcap cleanly (exit {rc})")
    client.stdin.close()
    server.stdin.close()
    ok(client.wait(timeout=10) == 0, "the TLS client then ends without an error")
    session = [l for l in open(err).read().splitlines() if ": session: " in l]
    ok(len(session) == 1 and "session: 0 connections kept now, 1 at most" in session[0],
       f"--stats: the open connection was ended when the capture stopped ({session})")
    report = "\n".join(lines_of(out)).split("=== tlsneg report ===")
    ok(len(report) == 2 and f"127.0.0.1:{TERM_PORT}" in report[1],
       f"the report follows at the end, with the server (port {TERM_PORT})")
    if res.failed:
        print("# output:\n# " + "\n# ".join(lines_of(out)))
        print("# stderr:\n# " + open(err).read().replace("\n", "\n# "))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inside:
        # Only the TAP lines: the summary is the outer process's.
        inside(os.path.abspath(args.tool))
        return 0 if res.count and not res.failed else 1
    # A namespace of our own: as root a plain one (so -Z can be tested),
    # else a user namespace that maps us to root in it.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    if os.geteuid() == 0:
        ns = ["unshare", "-n"]
    else:
        ns = ["unshare", "-rn"]
        env["TLSNEG_LIVE_USERNS"] = "1"
    p = subprocess.run(ns + [sys.executable, "-m", "tests.pcap.live", "--tool",
                             os.path.abspath(args.tool), "--inside"], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    lines = p.stdout.splitlines()
    res.add(sum(1 for l in lines if l.startswith("ok ")),
            sum(1 for l in lines if l.startswith("not ok ")))
    if p.returncode != 0 and not res.count:
        res.check(False, f"could not run in a network namespace: {p.stderr[:500]}")
    elif p.returncode != 0 and not res.failed:
        res.check(False, f"the test in the namespace exited {p.returncode}", p.stderr[-2000:])
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
