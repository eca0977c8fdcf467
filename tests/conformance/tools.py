"""Running each tool on the device under strace: fio, `iofleet-agent run`,
a fleet of one (a controller and an agent), and a replay of an I/O log;
Throttle holds a run to a device's IOPS (blkio cgroup)."""
import glob
import json
import os
import shutil
import signal
import subprocess
import time
from syscalls import TRACED, flat, issued


class Throttle:
    """A blkio cgroup (v1) holding read IOPS on device to riops: a slow
    drive, whose latency grows with the queue (latency_target's cases).
    join() is a preexec_fn that puts the process started into it."""

    def __init__(self, device, riops):
        self.path = None
        if not riops:
            return
        root = "/sys/fs/cgroup/blkio"
        if not os.path.exists(os.path.join(root, "blkio.throttle.read_iops_device")):
            raise RuntimeError("no blkio cgroup (v1) at %s to throttle %s" % (root, device))
        st = os.stat(device)
        self.path = os.path.join(root, "iofleet-conformance-%d" % os.getpid())
        os.makedirs(self.path, exist_ok=True)
        with open(os.path.join(self.path, "blkio.throttle.read_iops_device"), "w") as f:
            f.write("%d:%d %d\n" % (os.major(st.st_rdev), os.minor(st.st_rdev), riops))

    def join(self):
        if self.path:
            with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def remove(self):
        if self.path:
            for _ in range(50):
                try:
                    os.rmdir(self.path)
                    return
                except OSError:
                    time.sleep(0.1)


def run_tool(tool, args, jobfile, work, device, files=None, logs=None, riops=0, fails=False,
             untraced=False):
    """Runs one tool on the job under strace; returns (streams, json).  With
    files, it runs in a directory of its own holding them, and the streams
    are of every file there (device is then that directory).  logs (name ->
    text, @DEV@ standing for the device) are written where it runs, for
    read_iolog to read."""
    prefix = os.path.join(work, tool, "trace")
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    for old in glob.glob(prefix + ".*"):
        os.unlink(old)
    # fio writes its verify state (local-*-verify.state) where it runs.
    cwd = os.path.dirname(prefix)
    if files is not None:
        cwd = os.path.join(work, tool, "files")
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        for name, size in files.items():
            os.makedirs(os.path.dirname(os.path.join(cwd, name)), exist_ok=True)
            with open(os.path.join(cwd, name), "wb") as f:
                f.truncate(size)
        device = os.path.realpath(cwd) + "/"
    for name, text in (logs or {}).items():
        with open(os.path.join(cwd, name), "w") as f:
            f.write(text.replace("@DEV@", device))
    out = os.path.join(work, tool, "out.json")
    # write_iolog appends (fio's, and so iofleet's): no earlier case's log.
    if os.path.exists(os.path.join(cwd, "io.log")):
        os.unlink(os.path.join(cwd, "io.log"))
    if tool == "fio":
        cmd = ["fio", "--output-format=json", "--output=" + out, jobfile]
    else:
        # The device is the test's own loop device: a plan's purge step
        # ([iofleet] purge=discard) may discard it.
        cmd = [args.agent, "run", "--output-format", "json", "--allow-purge", device, jobfile]
    # -xx: buffer contents in hex, so none holds a character the parse looks
    # for; -s 128: batches of up to 128 iocbs printed whole.
    st = ["strace", "-ff", "-ttt", "-y", "-qq", "-xx", "-s", "128", "-e", "signal=none",
          "-e", "trace=" + TRACED, "-o", prefix] + cmd
    # A case that judges timing only (latency_target's search) runs the
    # tools without strace, whose cost per system call moves their timing.
    if untraced:
        st = cmd
    cg = Throttle(device, riops)
    try:
        if tool == "fio":
            p = subprocess.run(st, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=cwd, preexec_fn=cg.join)
        else:
            with open(out, "w") as f:
                p = subprocess.run(st, stdout=f, stderr=subprocess.PIPE, text=True, cwd=cwd,
                                   preexec_fn=cg.join)
    finally:
        cg.remove()
    # A case whose job fails (rate_min) expects a non-zero exit, and JSON.
    if (p.returncode != 0) != fails:
        raise RuntimeError("%s exited %d: %s" % (tool, p.returncode, p.stderr.strip()[-400:]))
    with open(out) as f:
        text = f.read()
    # fio may print notes before the JSON document.
    doc = json.loads(text[text.index("{"):])
    return issued(prefix, device), doc


def run_fleet(args, jobfile, work, device, logs=None, riops=0):
    """Runs the job as a plan on a fleet of one: a controller, and an agent
    under strace allowed to write device; returns (streams, json), json
    being the run's report as fio's JSON (iofleet report --format
    fio-json).  Everything it starts is stopped before it returns."""
    d = os.path.join(work, "fleet")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "wd"))
    # A relative read_iolog is in the agent's --workdir.
    for name, text in (logs or {}).items():
        with open(os.path.join(d, "wd", name), "w") as f:
            f.write(text.replace("@DEV@", device))
    prefix = os.path.join(d, "trace")
    env = dict(os.environ, IOFLEET_CONTROLLER="ipc://%s/admin.sock" % d)
    bindir = os.path.dirname(args.agent)
    procs = []
    cg = Throttle(device, riops)
    try:
        ctl = subprocess.Popen([os.path.join(bindir, "iofleet-controller"), "--no-config",
                                "--db", os.path.join(d, "c.db"), "--listen", "tcp://127.0.0.1:*",
                                "--admin", env["IOFLEET_CONTROLLER"], "--port-file",
                                os.path.join(d, "ep")], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(d, "controller.log"), "w"),
                               start_new_session=True)
        procs.append(ctl)
        for _ in range(100):
            if os.path.exists(os.path.join(d, "ep")) and os.path.getsize(os.path.join(d, "ep")):
                break
            time.sleep(0.05)
        ep = open(os.path.join(d, "ep")).read().strip()
        agent = subprocess.Popen(
            ["strace", "-ff", "-ttt", "-y", "-qq", "-xx", "-s", "128", "-e", "signal=none",
             "-e", "trace=" + TRACED, "-o", prefix, args.agent, "--no-config", "--controller", ep,
             "--name", "conf", "--workdir", os.path.join(d, "wd"), "--spool-dir",
             os.path.join(d, "spool"), "--allow", device, "--allow-write", device],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "agent.log"), "w"),
            start_new_session=True, preexec_fn=cg.join)
        procs.append(agent)
        cli = os.path.join(bindir, "iofleet")
        for _ in range(100):
            p = subprocess.run([cli, "agents", "--json"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            if p.returncode == 0 and any(a.get("connected") for a in json.loads(p.stdout or "[]")):
                break
            time.sleep(0.1)
        p = subprocess.run([cli, "plan", "add", "conf", jobfile], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError("fleet: plan add: %s" % p.stderr.strip()[-300:])
        p = subprocess.run([cli, "run", "conf", "--agents", "conf", "--wait", "--json"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = p.stdout[p.stdout.find("{"):p.stdout.rfind("}") + 1] if "{" in p.stdout else ""
        run = json.loads(out).get("run") if out else None
        if p.returncode != 0 or run is None:
            why = ""
            if run is not None:
                r = subprocess.run([cli, "report", str(run), "--format", "json"], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                try:
                    why = "; ".join("%s: %s %s" % (st.get("name"), a.get("status"), a.get("message"))
                                    for st in json.loads(r.stdout)["steps"] for a in st["agents"])
                except (ValueError, KeyError):
                    why = r.stdout[-300:]
            raise RuntimeError("fleet: run exited %d: %s" % (p.returncode, why or
                                                             (p.stdout + p.stderr).strip()[-400:]))
        p = subprocess.run([cli, "report", str(run), "--format", "fio-json"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError("fleet: report: %s" % p.stderr.strip()[-300:])
        doc = json.loads(p.stdout)
    finally:
        # Each runs in a session of its own: SIGTERM to the whole group
        # stops the agent too, not only the strace that runs it (which
        # would detach and leave it connecting to the next case's
        # controller).
        for proc in reversed(procs):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=10)
                    if subprocess.run(["pgrep", "-g", str(proc.pid)],
                                      stdout=subprocess.DEVNULL).returncode != 0:
                        break
                    time.sleep(0.5)
                except subprocess.TimeoutExpired:
                    pass
        cg.remove()
    return issued(prefix, device), doc


def replay(log, work, device):
    """fio's read_iolog of log under strace: the stream it issued on device."""
    job = os.path.join(work, "replay.fio")
    with open(job, "w") as f:
        f.write("[replay]\nioengine=psync\ndirect=1\nread_iolog=%s\n" % log)
    prefix = os.path.join(work, "replay", "trace")
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    for old in glob.glob(prefix + ".*"):
        os.unlink(old)
    p = subprocess.run(["strace", "-ff", "-y", "-qq", "-xx", "-e", "signal=none", "-e",
                        "trace=pread64,pwrite64", "-o", prefix, "fio", "--output-format=json",
                        job], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       cwd=os.path.dirname(prefix))
    if p.returncode != 0:
        raise RuntimeError("fio replay exited %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    return flat(issued(prefix, device))
