#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A one-node Slurm cluster on this machine, for tests.pcap.scheduler: from
Debian 12's packages (slurm-wlm, munge), everything in one folder of its own
(the munge key and socket, slurm.conf, the state and spool folders, the
logs), no systemd, no cgroups. munged, slurmctld and slurmd run in the
foreground as children of this process (munged -F, slurmctld -D, slurmd -D),
each told by the kernel to end when this process does (PR_SET_PDEATHSIG), and
are stopped by stop() (SIGTERM, then SIGKILL after 10 s).

    with Cluster(folder) as c:      # as root
        subprocess.run(["sbatch", ...], env=c.env())

The node is this machine as `slurmd -C` describes it (CPUs, sockets, cores,
threads, memory); SelectType=select/cons_tres with CR_Core (cores, not
memory), ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no
accounting. The controller and node daemon listen on free ports of
127.0.0.1 chosen at start."""
import ctypes
import os
import re
import signal
import socket
import subprocess
import time

PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In the child before exec: SIGTERM when the parent ends (even SIGKILLed)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def free_ports(n):
    """n TCP ports of 127.0.0.1 that are free now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def node_line():
    """This machine as slurm.conf's NodeName line (slurmd -C's first line)."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    line = out.splitlines()[0]
    if not line.startswith("NodeName="):
        raise RuntimeError(f"slurmd -C printed {out!r}")
    return line


def slurm_conf(d, host, node, ports):
    """The cluster's slurm.conf: folder d, controller host, node line, ports."""
    return f"""# A one-node test cluster (tests/pcap/slurm.py)
ClusterName=tlsneg
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/run/munge.sock
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
MailProg=/bin/true
{node} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=tlsneg Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


class Cluster:
    """munged, slurmctld and slurmd over folder d (created; must be empty)."""

    def __init__(self, d):
        self.d = os.path.abspath(d)
        self.procs = []  # (name, Popen), in start order
        self.conf = os.path.join(self.d, "slurm.conf")
        self.host = None

    def env(self, extra=None):
        env = dict(os.environ, SLURM_CONF=self.conf)
        env.update(extra or {})
        return env

    def _spawn(self, name, args):
        log = open(os.path.join(self.d, "log", f"{name}.stderr"), "wb")
        with log:
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                 env=self.env(), preexec_fn=_die_with_parent)
        self.procs.append((name, p))
        return p

    def _munge(self):
        d = self.d
        os.makedirs(f"{d}/munge", mode=0o700)
        with open(f"{d}/munge/munge.key", "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(f"{d}/munge/munge.key", 0o400)
        # munged wants the socket's folder searchable by all, the key's not.
        self._spawn("munged", ["munged", "-F", f"--key-file={d}/munge/munge.key",
                               f"--socket={d}/run/munge.sock", f"--pid-file={d}/run/munged.pid",
                               f"--log-file={d}/log/munged.log",
                               f"--seed-file={d}/munge/munged.seed"])
        self._wait(lambda: os.path.exists(f"{d}/run/munge.sock"), "munged's socket", 10)

    def start(self):
        """Starts the three daemons and waits until the node is idle."""
        d = self.d
        for sub in ("run", "state", "spool", "log"):
            os.makedirs(os.path.join(d, sub), mode=0o755)
        os.chmod(d, 0o755)
        self._munge()
        node = node_line()
        self.host = re.match(r"NodeName=(\S+)", node).group(1)
        with open(self.conf, "w") as f:
            f.write(slurm_conf(d, self.host, node, free_ports(2)))
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", self.conf])
        time.sleep(0.5)
        self._spawn("slurmd", ["slurmd", "-D", "-f", self.conf])
        self._wait(self.idle, "the node to be idle in sinfo", 60)

    def idle(self):
        for name, p in self.procs:
            if p.poll() is not None:
                raise RuntimeError(f"{name} exited with {p.returncode}: {self.log_tail(name)}")
        p = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True,
                           env=self.env())
        return p.returncode == 0 and p.stdout.strip() == "idle"

    def _wait(self, ready, what, seconds):
        end = time.monotonic() + seconds
        while not ready():
            if time.monotonic() > end:
                raise RuntimeError(f"timed out waiting for {what}: {self.log_tail()}")
            time.sleep(0.2)

    def log_tail(self, only=None, lines=15):
        """The last lines of the daemons' logs (only: one daemon's)."""
        out = []
        for name in ("munged", "slurmctld", "slurmd"):
            if only and name != only:
                continue
            for path in (f"{self.d}/log/{name}.log", f"{self.d}/log/{name}.stderr"):
                if os.path.exists(path):
                    with open(path, errors="replace") as f:
                        tail = f.read().splitlines()[-lines:]
                    out += [f"{os.path.basename(path)}: {t}" for t in tail]
        return "\n".join(out)

    def cancel_all(self, seconds=20):
        """Cancels every job of this cluster and waits until none is left."""
        if not any(n == "slurmctld" and p.poll() is None for n, p in self.procs):
            return
        subprocess.run(["scancel", "--full", "--user", "root"], env=self.env(),
                       capture_output=True, timeout=30)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            p = subprocess.run(["squeue", "-h"], capture_output=True, text=True, env=self.env())
            if p.returncode != 0 or not p.stdout.strip():
                return
            time.sleep(0.5)

    def stop(self):
        """Stops the daemons (slurmd, slurmctld, munged); the ones that had
        to be killed, as names."""
        killed = []
        try:
            self.cancel_all()
        finally:
            for name, p in reversed(self.procs):
                if p.poll() is None:
                    p.terminate()
                    try:
                        p.wait(10)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.wait()
                        killed.append(name)
        return killed

    def running(self):
        """The daemons still running, as names."""
        return [n for n, p in self.procs if p.poll() is None]

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False
