"""A private one-node Slurm cluster for the tests (Debian's ``slurm-wlm`` and ``munge``), and its session fixture.

:class:`SlurmCluster` starts munged, slurmctld and slurmd as this user (root), with every file (munge key and
socket, ``slurm.conf``, state, spool, logs) in one folder and on free ports, so that it never meets a cluster or
munged already on the machine; the tests reach it through ``SLURM_CONF``. :func:`slurm_cluster` (session scope)
starts it once, waits until ``sinfo`` shows the node idle, and stops every daemon (and any job left) at the end.

Where it cannot start (not root, the packages missing) the fixture skips with the reason; in CI (``CI=true``,
``.ci/run`` installs the packages and runs as root) it fails instead, so no Slurm test is ever skipped there.

``python -m tests.slurm_cluster FOLDER`` starts one by hand and keeps it until Ctrl-C.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

import pytest

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scontrol", "scancel", "srun")
TAG = "PENB_TEST_SLURM"                    # set in the daemons' environment: finds their leftovers at teardown
PARTITION = "debug"

# The timings, and why (the values a small real cluster would take, shortened where Slurm's defaults would make a
# test wait for nothing; none changes what a job sees):
TIMINGS = dict(
    # A requeued job waits the step credential's lifetime before it may start again (slurm.conf(5), AuthInfo
    # cred_expire: 120 s by default; it was most of the 2.5-3 minutes a requeued attempt waited in issue 29).
    # Ten seconds still covers a step's launch on one idle node.
    cred_expire=10,
    # The main scheduling loop every 2 s instead of 60 s: a requeued job whose wait is over starts at the next
    # pass (a submission or a job's end starts one at once anyway); backfill every 5 s instead of 30 s.
    SchedulerParameters="sched_interval=2,bf_interval=5",
    # Finished jobs leave slurmctld's table after 30 s (default 300 s): squeue shows the queue as it is.
    MinJobAge=30,
    # SIGTERM to SIGKILL after scancel or at the time limit: 5 s (default 30 s). submitit ignores SIGTERM, so a
    # cancelled job is killed 5 s after scancel.
    KillWait=5,
    # The time limit is hard (the default): a job that ignores its warning signal is killed at its limit.
    OverTimeLimit=0,
)


def unavailable() -> Optional[str]:
    """Why a private cluster cannot start here (None: it can)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "starting slurmctld, slurmd and munged needs root (the CI runs as root)"
    missing = [p for p in DAEMONS + CLIENTS if shutil.which(p, path=os.environ.get("PATH", "") + ":/usr/sbin")
               is None]
    if missing:
        return f"Slurm or munge is not installed (missing {', '.join(missing)}: apt-get install slurm-wlm munge)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _node_line(host: str) -> str:
    """The node as ``slurmd -C`` finds it (CPUs, sockets, cores, threads, real memory), reachable on 127.0.0.1."""
    out = subprocess.run([shutil.which("slurmd", path="/usr/sbin:" + os.environ.get("PATH", "")), "-C"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    fields = out.splitlines()[0].split()
    assert fields[0].startswith("NodeName="), out
    return " ".join([f"NodeName={host}", "NodeAddr=127.0.0.1", *fields[1:], "State=UNKNOWN"])


class SlurmCluster:
    """munged, slurmctld and slurmd of a one-node cluster, everything under ``root``."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.host = socket.gethostname().split(".")[0]
        self.conf = self.root / "slurm.conf"
        self.procs: dict[str, subprocess.Popen] = {}
        self.env = {**os.environ, "SLURM_CONF": str(self.conf), TAG: str(self.root),
                    "PATH": "/usr/sbin:" + os.environ.get("PATH", "")}

    # -- configuration ------------------------------------------------------------------------------------------
    def write_conf(self) -> str:
        r, node = self.root, _node_line(self.host)
        cpus = int(node.split("CPUs=")[1].split()[0])
        memory = int(node.split("RealMemory=")[1].split()[0])
        t = TIMINGS
        text = f"""# A one-node test cluster written by tests/slurm_cluster.py
ClusterName=penbtest
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={r}/munge/munge.socket,cred_expire={t['cred_expire']}
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig={r}/plugstack.conf
# no cgroups in a container: processes tracked through /proc, tasks not bound
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={r}/log/jobcomp.txt
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
# one CPU per job unless asked otherwise; memory shared out per CPU
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU={memory // cpus}
SchedulerType=sched/backfill
SchedulerParameters={t['SchedulerParameters']}
MinJobAge={t['MinJobAge']}
KillWait={t['KillWait']}
OverTimeLimit={t['OverTimeLimit']}
JobRequeue=1
{node}
PartitionName={PARTITION} Nodes={self.host} Default=YES MaxTime=INFINITE State=UP
"""
        self.conf.write_text(text)
        (r / "plugstack.conf").write_text("")
        return text

    # -- daemons ------------------------------------------------------------------------------------------------
    def start(self, timeout: float = 180) -> None:
        for d in ("munge", "state", "spool", "log"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root / "munge", 0o700)
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        self.write_conf()
        m = self.root / "munge"
        self._spawn("munged", ["munged", "-F", "--force", f"--socket={m}/munge.socket", f"--key-file={key}",
                               f"--pid-file={m}/munged.pid", f"--log-file={self.root}/log/munged.log",
                               f"--seed-file={m}/munged.seed"])
        self._wait(lambda: (m / "munge.socket").exists(), 30, "munged's socket")
        self._spawn("slurmctld", ["slurmctld", "-D", "-c", "-i", "-f", str(self.conf)])
        self._wait(lambda: self.run("scontrol", "ping", check=False).returncode == 0, 60, "slurmctld to answer")
        self._spawn("slurmd", ["slurmd", "-D", "-N", self.host, "-f", str(self.conf)])
        self._wait(self.idle, timeout, f"node {self.host} idle in sinfo")

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.root / "log" / f"{name}.out", "ab")
        argv[0] = shutil.which(argv[0], path=self.env["PATH"])
        self.procs[name] = subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)

    def _wait(self, ready, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead:
                raise RuntimeError(f"{', '.join(dead)} exited while waiting for {what}:\n{self.logs()}")
            if ready():
                return
            time.sleep(0.5)
        raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}:\n{self.logs()}")

    def idle(self) -> bool:
        out = self.run("sinfo", "-h", "-N", "-o", "%T", check=False).stdout.split()
        return out == ["idle"]

    def run(self, *argv: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
        """A Slurm client command against this cluster."""
        return subprocess.run(list(argv), env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=check)

    def logs(self, tail: int = 40) -> str:
        parts = []
        for f in sorted((self.root / "log").glob("*")):
            lines = f.read_text(errors="replace").splitlines()[-tail:]
            parts.append(f"--- {f.name}\n" + "\n".join(lines))
        return "\n".join(parts)

    def jobs(self) -> list[str]:
        """Ids of the jobs in the queue (pending or running)."""
        return self.run("squeue", "-h", "-o", "%i", check=False).stdout.split()

    def records(self, job_id: str) -> list[dict]:
        """Slurm's own completion records of job ``job_id`` (an array task as ``<array id>_<task>``), oldest first:
        one per attempt that ended (a requeued attempt, a cancelled or a completed job), from ``JobCompLoc``."""
        out = []
        f = self.root / "log" / "jobcomp.txt"
        for line in (f.read_text().splitlines() if f.exists() else []):
            rec = dict(field.split("=", 1) for field in line.split() if "=" in field)
            name = f"{rec.get('ArrayJobId')}_{rec.get('ArrayTaskId')}" if rec.get("ArrayJobId") else rec.get("JobId")
            if name == str(job_id):
                out.append(rec)
        return out

    def clear(self, grace_s: float = 0, guard_s: float = 120) -> None:
        """Give the jobs in the queue ``grace_s`` to end (a job that has written its result may still be exiting),
        then cancel every job left and wait until the queue is empty (``guard_s`` at most)."""
        deadline = time.monotonic() + grace_s
        while self.jobs() and time.monotonic() < deadline:
            time.sleep(0.5)
        self.run("scancel", "--full", f"--partition={PARTITION}", check=False)
        deadline = time.monotonic() + guard_s
        while self.jobs() and time.monotonic() < deadline:
            time.sleep(0.5)

    def stop(self) -> None:
        """Cancel every job, wait for the queue to empty (60 s at most), then end the daemons and any process left
        by them (slurmstepd and its job), never anything else."""
        if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
            self.clear(guard_s=60)
        for name in reversed(DAEMONS):
            proc = self.procs.get(name)
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=30)
        for pid in _tagged(str(self.root)):
            _kill_tree(pid)


def _tagged(value: str) -> list[int]:
    """Pids of live processes whose environment has ``TAG=value`` (the daemons and the slurmstepd they forked)."""
    found = []
    needle = f"{TAG}={value}".encode()
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if needle in (d / "environ").read_bytes().split(b"\0"):
                    found.append(int(d.name))
            except OSError:
                pass
    return found


def _kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and its descendants (read from /proc), children first."""
    children = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    children.append(int(d.name))
            except (OSError, ValueError, IndexError):
                pass
    for child in children:
        _kill_tree(child)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A running one-node cluster; ``SLURM_CONF`` points at it for the session (sbatch, squeue, ... and submitit)."""
    reason = unavailable()
    in_ci = os.environ.get("CI", "").lower() in ("true", "1", "yes")
    if reason:
        if in_ci:
            pytest.fail(f"the Slurm tests must run in CI, but: {reason}")
        pytest.skip(reason)
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm", numbered=True))
    old = {k: os.environ.get(k) for k in ("SLURM_CONF", "PATH")}
    try:
        cluster.start()
    except Exception as e:  # noqa: BLE001 (any failure to start is reported, with the daemons' logs)
        cluster.stop()
        message = f"the private Slurm cluster did not start: {e}"
        pytest.fail(message) if in_ci else pytest.skip(message)
    os.environ["SLURM_CONF"], os.environ["PATH"] = str(cluster.conf), cluster.env["PATH"]
    try:
        yield cluster
    finally:
        cluster.stop()
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


if __name__ == "__main__":
    import sys

    c = SlurmCluster(Path(sys.argv[1]))
    try:
        c.start()
        print(f"export SLURM_CONF={c.conf}", flush=True)
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        c.stop()
