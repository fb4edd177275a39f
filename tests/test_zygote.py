"""Tests for the judge's zygote (reward.py): workers forked from one process that imported torch and triton.

    python -m pytest tests/test_zygote.py

The zygote must change how fast a worker starts and nothing else: the same verdicts as spawned workers, the
same crash reports, a worker in its own session with the scrubbed environment and no way back to the zygote,
and a judge that survives the zygote's death.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import reward
from reward import Judge

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the zygote is Linux-only")

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = os.path.join(HERE, "judge_tasks")
CANDIDATES = ["judge_tasks/good/relu_add.py", "judge_tasks/good/softmax.py", "hacks/zero_output.py",
              "hacks/kernel_does_nothing.py", "judge_tasks/faults/abort.py", "judge_tasks/faults/runtime_error.py",
              "judge_tasks/faults/wrong_signature.py", "judge_tasks/faults/shape_mismatch.py"]


def read(path):
    with open(path) as f:
        return f.read()


def pair(rel):
    src = read(os.path.join(HERE, rel))
    return read(os.path.join(TASKS, src.split("# task: ", 1)[1].split()[0] + ".py")), src


def _alive(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()
    except OSError:
        return False


def _when_busy(judge, n, then, settle_s=1.0):
    """In a thread: once `n` workers of `judge` have run a candidate for `settle_s`, call then(busy slots)."""
    def watch():
        deadline, since = time.monotonic() + 60, None
        while time.monotonic() < deadline:
            busy = [s for s in list(judge.slots) if s.job is not None and s.proc is not None]
            since = (since or time.monotonic()) if len(busy) >= n else None
            if since is not None and time.monotonic() - since >= settle_s:
                return then(busy)
            time.sleep(0.05)
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


# These tests exercise the process layers beneath the static gate (crash reports, the scrubbed environment), so
# their judges run answers that do what the gate refuses (static_gate=False).
@pytest.fixture(scope="module")
def zjudge():
    with Judge(workers=2, device="cpu", timeout_s=30.0, spare_workers=0, static_gate=False) as j:
        assert j.start_method == "zygote"
        j.wait_ready()
        yield j


PLAN_SEED = 20260101  # one trial plan for both judges compared below


@pytest.mark.slow
def test_zygote_and_spawn_give_the_same_verdicts(zjudge):
    pairs = [pair(p) for p in CANDIDATES]
    with Judge(workers=2, device="cpu", timeout_s=30.0, spare_workers=0, start_method="spawn",
               static_gate=False, seed=PLAN_SEED) as j:
        spawned = j.verify_many(pairs, progress=False)
        assert j.start_method == "spawn" and all(type(s.proc) is subprocess.Popen for s in j.slots if s.proc)
    zjudge.seed = PLAN_SEED
    forked = zjudge.verify_many(pairs, progress=False)
    assert zjudge.start_method == "zygote" and zjudge.spawn_reason is None  # no silent fallback
    key = lambda v: (v.compiled, v.correct, v.error_type, v.triton_launches, v.torch_ops, sorted(v.flags))  # noqa: E731
    assert [key(v) for v in forked] == [key(v) for v in spawned]
    assert [v.correct for v in forked] == [True, True] + [False] * (len(CANDIDATES) - 2)
    assert forked[CANDIDATES.index("judge_tasks/faults/abort.py")].error_type == "worker_crashed"


def test_signal_deaths_are_reported_with_their_name(zjudge):
    """The zygote, not the Judge, is the workers' parent: the exit status it reports must keep the signal."""
    task, loop = pair("judge_tasks/faults/infinite_loop.py")
    abort = pair("judge_tasks/faults/abort.py")
    v_abort = zjudge.verify(*abort)
    assert v_abort.error_type == "worker_crashed" and "SIGABRT" in v_abort.error_msg
    _when_busy(zjudge, 1, lambda busy: os.kill(busy[0].proc.pid, signal.SIGTERM))
    t = time.monotonic()
    v_term = zjudge.verify(task, loop)
    assert v_term.error_type == "worker_crashed" and "SIGTERM" in v_term.error_msg, v_term.error_msg
    assert time.monotonic() - t < 20  # not the 30 s timeout


def test_forked_workers_lead_their_own_session_and_cannot_reach_the_zygote(zjudge):
    zjudge.wait_ready()
    zygote = zjudge.zygote.proc.pid
    for s in zjudge.slots:
        pid = s.proc.pid
        assert type(s.proc) is reward._Forked
        assert os.getpgid(pid) == pid and os.getsid(pid) == pid  # the Judge's killpg reaches it and only it
        with open(f"/proc/{pid}/stat") as f:
            assert int(f.read().rsplit(")", 1)[1].split()[1]) == zygote  # ppid: forked by the zygote
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        # the zygote's control socket is closed; the one socket left is the worker's own answer hatch's
        assert len([x for x in links if x.startswith("socket:")]) == 1, links
        assert len(links) <= 9, links  # stdin, log x2, job and result pipes, the hatch (+ a few of its own)
        assert os.readlink(f"/proc/{pid}/cwd") == s.tmp
        assert len(os.listdir(f"/proc/{pid}/task")) >= 1


@pytest.mark.parametrize("start_method", ["zygote", "spawn"])
def test_candidate_sees_only_the_scrubbed_environment(monkeypatch, start_method):
    """A credential and a variable off the allowlist are set in the trainer before the Judge starts; the
    candidate (through os.path.expandvars; the gate refuses os, so it is off here) must see neither, and must see
    its own HOME, TMPDIR and TRITON_CACHE_DIR."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "leaked")
    monkeypatch.setenv("DRTRITON_NOT_ALLOWED", "leaked")
    task, good = pair("judge_tasks/good/relu_add.py")
    probe = good.replace("import torch\n", "import os\nimport torch\n", 1).replace(
        "    def forward(self, x, y):\n",
        "    def forward(self, x, y):\n"
        "        here = os.path.realpath(os.getcwd())\n"
        "        env = {k: os.path.expandvars('$' + k) for k in ('AWS_SECRET_ACCESS_KEY', 'DRTRITON_NOT_ALLOWED',\n"
        "                                                         'HOME', 'TMPDIR', 'TRITON_CACHE_DIR')}\n"
        "        if env['AWS_SECRET_ACCESS_KEY'] != '$AWS_SECRET_ACCESS_KEY':\n"
        "            raise ValueError('credential leaked')\n"
        "        if env['DRTRITON_NOT_ALLOWED'] != '$DRTRITON_NOT_ALLOWED':\n"
        "            raise ValueError('variable off the allowlist leaked')\n"
        "        if os.path.realpath(env['HOME']) != here or os.path.realpath(env['TMPDIR']) != here:\n"
        "            raise ValueError('HOME/TMPDIR ' + str(env) + ' not the cwd ' + here)\n"
        "        if os.path.realpath(env['TRITON_CACHE_DIR']) != os.path.join(here, 'triton'):\n"
        "            raise ValueError('TRITON_CACHE_DIR ' + env['TRITON_CACHE_DIR'])\n", 1)
    assert probe.count("expandvars") == 1 and reward.static_check(probe)[0] == "static_check"  # it imports os
    with Judge(workers=1, device="cpu", timeout_s=30.0, spare_workers=0, start_method=start_method,
               static_gate=False) as j:
        j.wait_ready()
        with open(f"/proc/{j.slots[0].proc.pid}/environ", "rb") as f:  # a fork shows the zygote's exec-time env
            assert b"leaked" not in f.read()
        v = j.verify(task, probe)
    assert v.correct, v.error_msg
    leak = probe.replace("'$AWS_SECRET_ACCESS_KEY'", "'$HOME'", 1)  # the probe can fail: HOME is set
    with Judge(workers=1, device="cpu", timeout_s=30.0, spare_workers=0, start_method=start_method,
               static_gate=False) as j:
        v = j.verify(task, leak)
    assert not v.correct and "credential leaked" in v.error_msg


@pytest.mark.slow
def test_killing_the_zygote_mid_batch_loses_only_the_running_candidates():
    """Both workers hang in an infinite loop when the zygote is killed: they die with it (worker_died, long
    before the timeout), a new zygote starts, and the candidates still queued are judged as usual."""
    task, loop = pair("judge_tasks/faults/infinite_loop.py")
    good = pair("judge_tasks/good/relu_add.py")
    with Judge(workers=2, device="cpu", timeout_s=60.0, spare_workers=0) as j:
        j.wait_ready()
        first = j.zygote.proc.pid
        old_workers = [s.proc.pid for s in j.slots]
        _when_busy(j, 2, lambda busy: os.kill(first, signal.SIGKILL))
        t = time.monotonic()
        vs = j.verify_many([(task, loop), (task, loop), good, good, good], progress=False)
        assert time.monotonic() - t < 40  # a restart, not the 60 s timeout
        assert all(v is not None for v in vs)
        assert [v.error_type for v in vs[:2]] == ["worker_died", "worker_died"], [v.error_msg for v in vs]
        assert all("zygote" in v.error_msg for v in vs[:2])
        assert all(v.correct for v in vs[2:]), [v.error_msg for v in vs[2:]]
        assert j.zygote.proc.pid != first and j.startup_failures == 0 and j.start_method == "zygote"
        assert not any(_alive(p) for p in old_workers + [first])
        live = [j.zygote.proc.pid] + [s.proc.pid for s in j.slots if s.proc is not None]
    assert not any(_alive(p) for p in live), "close() left the zygote or a worker running"


def test_judge_falls_back_to_spawn_when_the_zygote_refuses(monkeypatch, capsys):
    """A zygote that finds a thread or CUDA refuses to fork; the Judge then spawns, says so once, and judges."""
    class Refusing:
        def __init__(self, root, device):
            self.ready, self.dead, self.started, self.proc = True, None, time.monotonic(), None
            self.r, self.w = os.pipe()

        def fileno(self):
            return self.r

        def fork(self, request, fds):
            return "refused", "2 OS threads (test)"

        def close(self):
            os.close(self.r)
            os.close(self.w)

    monkeypatch.setattr(reward, "_Zygote", Refusing)
    with Judge(workers=1, device="cpu", timeout_s=30.0, spare_workers=1) as j:
        v = j.verify(*pair("judge_tasks/good/relu_add.py"))
        assert j.start_method == "spawn" and "2 OS threads (test)" in j.spawn_reason
        assert all(type(s.proc) is subprocess.Popen for s in j.slots)
    assert v.correct, v.error_msg
    assert capsys.readouterr().err.count("starting workers with subprocess") == 1


def test_a_zygote_that_cannot_start_closes_the_judge_after_three_tries(monkeypatch, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('no torch here')\nsys.exit(3)\n")
    monkeypatch.setattr(reward, "REWARD_PATH", str(broken))
    j = Judge(workers=1, device="cpu", timeout_s=30.0, spare_workers=0)
    with pytest.raises(RuntimeError, match="zygote exited with code 3:\nno torch here"):
        j.wait_ready()
    assert j.closed and j.zygote is None


def test_fork_unsafe_sees_a_thread():
    import torch
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert "threads" in reward._fork_unsafe(torch)
    finally:
        stop.set()
        t.join()


def test_fork_unsafe_sees_an_initialised_triton_driver(monkeypatch):
    """A loaded libcuda is fine (torch maps it at import on a GPU host); Triton's driver object (cuInit) is not."""
    import torch
    from triton.runtime import driver
    listdir = os.listdir  # this process's threads (pytest's, other tests' leftovers) are not the point here
    monkeypatch.setattr(os, "listdir", lambda p: ["1"] if p == "/proc/self/task" else listdir(p))
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert reward._fork_unsafe(torch) is None
    monkeypatch.setattr(driver, "_default", object())
    assert "Triton" in reward._fork_unsafe(torch)
