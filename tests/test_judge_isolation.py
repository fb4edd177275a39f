"""Tests for the judge's process split (reward.py): one answer per process, forked from a clean hatch.

    python -m pytest tests/test_judge_isolation.py

The static gate refuses every patch an answer could write, so these tests go below it: they drive the answer
processes directly with answers the gate would refuse, to show that what one answer does to torch lasts only
in its own process and cannot change the verdict of the next.
"""
import json
import os
import subprocess
import sys
import tempfile

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the answer hatch is Linux-only")

HERE = os.path.dirname(os.path.abspath(__file__))
TASK = open(os.path.join(HERE, "judge_tasks", "linear_relu.py")).read()

KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        PATCH
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = self.linear(x)
        out = torch.empty_like(h)
        relu_kernel[(triton.cdiv(h.numel(), 256),)](h, out, h.numel(), BLOCK=256)
        return out
'''
# torch.nn.init is outside the identity snapshot: the patch stays, and every Linear built after it in this
# process starts with zero weights
PATCHER = KERNEL.replace("PATCH", "torch.nn.init.kaiming_uniform_ = lambda t, *a, **k: t.data.zero_()")
HONEST = KERNEL.replace("PATCH", "pass")


FAKE_WORKER = '''
class Worker:  # what _AnswerProcess uses of a worker
    def __init__(self, hatch):
        self.hatch, self.torch, self.device, self.printed_chars = hatch, torch, "cpu", 0

    def cap_text(self, e):
        return ""

    def lock_where(self):
        return None
'''


SCRIPT = """
import json, os, sys
import torch
import reward
TASK, PATCHER, HONEST = json.loads(sys.argv[1])


""" + FAKE_WORKER + """

def run(worker, solution, nonce, seed):
    ans = reward._AnswerProcess(worker)
    try:
        ans.ask({"op": "load", "task": TASK, "solution": solution, "gpu_cap_gb": None})
        head, outs = ans.ask({"op": "trial", "seed": seed, "kind": "plain", "faithful": False, "on_device": False,
                              "policy": "strict", "atol_rtol": reward.TOLERANCES, "numels": [128]})
        return ans.pid, head, outs[0]
    finally:
        ans.close()


def expected(seed):
    mod = {}
    exec(compile(TASK, "linear_relu", "exec"), mod)
    torch.manual_seed(reward.MODEL_SEED)
    model = mod["Model"](*mod["get_init_inputs"]())
    torch.manual_seed(seed)
    with torch.no_grad():
        return model(*mod["get_inputs"]())


hatch, hatch_pid = reward._start_answer_hatch("cpu")
worker = Worker(hatch)
pid1, head1, out1 = run(worker, PATCHER, "a" * 32, 123)
pid2, head2, out2 = run(worker, HONEST, "b" * 32, 123)
try:
    os.kill(pid1, 0)
    alive = True
except ProcessLookupError:
    alive = False
print(json.dumps({"pids": [os.getpid(), hatch_pid, pid1, pid2], "launches": head1["launches"],
                  "patched_rows_equal": bool(torch.equal(out1, out1[:1].expand_as(out1))),
                  "honest_is_reference": bool(torch.allclose(out2, expected(123), atol=1e-5)),
                  "first_alive": alive, "head": {k: head2[k] for k in ("container", "tensors", "counts")}}))
"""


@pytest.fixture(scope="module")
def run():
    """The scenario above in a fresh interpreter: the hatch must be forked from a process that has run no
    thread pools (a pytest process that judged before is not one)."""
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.path.dirname(HERE))
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps([TASK, PATCHER, HONEST])], cwd=tmp,
                             env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_patch_lasts_only_in_its_own_answer_process(run):
    me, hatch, pid1, pid2 = run["pids"]
    assert run["launches"] == 1 and run["patched_rows_equal"]  # the patch took effect in its own process
    assert len({me, hatch, pid1, pid2}) == 4  # each answer in a process of its own, neither the caller's
    assert run["honest_is_reference"]  # the next answer's nn.Linear is torch's own
    assert not run["first_alive"]  # and an answer process is gone once judged


def test_outputs_come_back_as_bytes_with_their_shape_and_dtype(run):
    head = run["head"]
    assert head["container"] is None and head["tensors"] == [{"dtype": "float32", "shape": [8, 16], "nbytes": 512}]
    assert head["counts"].get("addmm") == 1  # nn.Linear's GEMM, seen at the dispatcher


def test_a_reference_failing_in_its_timed_runs_is_the_tasks_error():
    """_Worker.run_reference (the runner of the reference's timed runs): no answer code runs there, so a failure
    is a task_error and an out-of-memory is oom_in_reference, never a runtime_error billed to the answer."""
    import torch
    import reward
    w = object.__new__(reward._Worker)
    w.torch, w.caps = torch, {}

    def boom():
        raise ValueError("boom")

    def oom():
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
    assert w.run_reference(lambda: 3, "runtime_error") == 3
    with pytest.raises(reward._WorkerError) as e:
        w.run_reference(boom, "runtime_error")
    assert e.value.error_type == "task_error" and "boom" in str(e.value)
    with pytest.raises(reward._WorkerError) as e:
        w.run_reference(oom, "runtime_error")
    assert e.value.error_type == "oom" and e.value.kw.get("flags") == ["oom_in_reference"]


def test_gpu_hold_is_per_step_nests_and_lets_go_on_errors(monkeypatch):
    """_Worker.gpu_hold takes the GPU lock shared (or exclusive when asked) for one step, inside judge_time (the
    lock wait is not the answer's time), synchronises the device before letting go, releases on an exception, and
    is a no-op inside a hold (an exclusive job's) or on the CPU; judge_time sends one pause/resume pair however
    deeply it nests."""
    from types import SimpleNamespace
    import reward
    events = []

    class Lock:
        held = None

        def shared(self):
            events.append("shared")
            self.held = "shared"

        def exclusive(self):
            events.append("exclusive")
            self.held = "exclusive"

        def release(self):
            events.append("release")
            self.held = None

    monkeypatch.setattr(reward, "_send", lambda fd, msg: events.append(msg["type"]))
    w = object.__new__(reward._Worker)
    w.device, w.fd_out, w._paused, w._gpu_lock = "cuda", None, 0, Lock()
    w.torch = SimpleNamespace(cuda=SimpleNamespace(synchronize=lambda: events.append("sync")))
    job = {"nonce": "n"}
    with w.gpu_hold(job):
        events.append("step")
        with w.gpu_hold(job), w.judge_time(job):  # nested: no second lock, no second pause
            events.append("inner")
    assert events == ["pause", "shared", "resume", "step", "pause", "inner", "resume", "sync", "release"]
    events.clear()
    with pytest.raises(RuntimeError):
        with w.gpu_hold(job, exclusive=True):
            raise RuntimeError("the step failed")
    assert events == ["pause", "exclusive", "resume", "sync", "release"] and w._gpu_lock.held is None
    events.clear()
    w._gpu_lock.held = "exclusive"  # an exclusive job's hold: steps take nothing more
    with w.gpu_hold(job):
        events.append("step")
    assert events == ["step"]
    events.clear()
    w.device = "cpu"
    with w.gpu_hold(job):
        events.append("step")
    assert events == ["step"]


def test_large_outputs_come_through_the_sealed_output_file_and_bad_places_are_refused():
    """_send_tensors puts the tensors that fit into the answer's output file (64-byte steps) and streams the
    rest; _recv_tensors rebuilds both, and refuses a header that places bytes outside the file. The file cannot
    shrink (an answer cannot make the worker's mapping fault)."""
    import mmap
    import threading
    import torch
    import reward
    fd = reward._output_shm()
    assert fd is not None, "Linux has memfd and seals"
    try:
        os.posix_fallocate(fd, 0, 2 << 20)
        with pytest.raises(PermissionError):
            os.ftruncate(fd, 1 << 20)
        shm = mmap.mmap(fd, 2 << 20)
        big = torch.randn(300_000)                 # 1.2 MB: fits
        small = torch.arange(10, dtype=torch.int16).reshape(2, 5).t()   # not contiguous: 20 bytes after it
        late = torch.randn(250_000, dtype=torch.float64)  # 2 MB: no room left, streamed
        r, w = os.pipe()
        sender = threading.Thread(target=reward._send_tensors, args=(w, {"type": "trial"}, [big, small, late],
                                                                      torch, shm))
        sender.start()
        head = reward._recv_blocking(r)
        got = reward._recv_tensors(r, head, torch, "cpu", shm)
        sender.join()
        assert [m.get("at") for m in head["tensors"]] == [0, 1_200_000, None]
        assert torch.equal(got[0], big) and torch.equal(got[1], small) and torch.equal(got[2], late)
        assert got[0].data_ptr() != big.data_ptr() and got[2].data_ptr() != late.data_ptr()
        shm[:8] = b"\0" * 8   # views of the file, no copies: good until the next request rewrites it
        assert float(got[0][:2].abs().sum()) == 0.0 and torch.equal(got[0][2:], big[2:])
        del got
        for at, where in ((len(shm) - 64, shm), (-64, shm), ("0", shm), (0, None), (4, shm), ([0, 0], shm)):
            # past the end, negative, not an int, no file, not on a 64-byte step, overlapping the first
            places = at if isinstance(at, list) else [at]
            bad = {"tensors": [{"dtype": "float32", "shape": [32], "nbytes": 128, "at": a} for a in places]}
            with pytest.raises(ValueError, match="outside the output file"):
                reward._recv_tensors(r, bad, torch, "cpu", where)
        with pytest.raises(ValueError):   # a dimension no tensor has
            reward._recv_tensors(r, {"tensors": [{"dtype": "float32", "shape": [0, 2 ** 70], "nbytes": 0}]},
                                 torch, "cpu")
        with pytest.raises(ValueError):
            reward._recv_tensors(r, {"tensors": [{"dtype": "float32", "shape": [4.0], "nbytes": 16}]}, torch, "cpu")
        shm.close()
        os.close(r)
        os.close(w)
    finally:
        os.close(fd)


def test_a_judged_answer_with_a_large_output_is_compared_from_the_output_file():
    """End to end on the CPU: an output over SHM_MIN_BYTES comes back through the file (the verdict's timings say
    so), a right one passes and a wrong one is refused."""
    import reward
    task = ("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x, y):\n"
            "        return torch.relu(x * 2.0 + y)\n\n\ndef get_inputs():\n"
            "    return [torch.randn(600, 512), torch.randn(600, 512)]\n\n\ndef get_init_inputs():\n    return []\n")
    good = open(os.path.join(HERE, "judge_tasks", "good", "relu_add.py")).read()
    wrong = good.replace("* 2.0", "* 2.5")
    assert wrong != good
    with reward.Judge(workers=1, device="cpu", timeout_s=120) as j:
        ok, bad = j.verify_many([(task, good), (task, wrong)], progress=False)
    assert ok.correct, (ok.error_type, ok.error_msg)
    assert ok.timings["outputs_file_mb"] >= 5 * 600 * 512 * 4 / (1 << 20) and "outputs_pipe_mb" not in ok.timings
    assert not bad.correct and bad.error_type == "mismatch"


OOM_SCRIPT = """
import json, sys
import torch
import reward
TASK, SOLUTION = json.loads(sys.argv[1])


""" + FAKE_WORKER + """

hatch, _ = reward._start_answer_hatch("cpu")
ans = reward._AnswerProcess(Worker(hatch))
try:
    ans.ask({"op": "load", "task": TASK, "solution": SOLUTION, "gpu_cap_gb": None})
    ans.ask({"op": "trial", "seed": 1, "kind": "plain", "faithful": False, "on_device": False, "policy": "strict",
             "atol_rtol": reward.TOLERANCES, "numels": [128]})
    got = {"error_type": None, "msg": ""}
except reward._WorkerError as e:
    got = {"error_type": e.error_type, "msg": str(e)}
ans.close()
try:   # a closed answer process's descriptors may name other files by now: never used again
    ans.ask({"op": "ping"}, out_bytes=4 << 20)
except reward._WorkerError as e:
    got["after_close"] = e.error_type
print(json.dumps(got))
"""


def test_out_of_memory_in_the_answer_process_own_steps_is_an_oom():
    """The answer process draws each trial's inputs itself: running out of memory there (before any answer code
    runs) is the job's size, an oom the Judge retries alone, not the answer's runtime_error."""
    task = TASK.replace("def get_inputs():", "def get_inputs():\n    if torch.is_grad_enabled() is not None:\n"
                        "        raise MemoryError('no room for the draw')")
    assert task != TASK
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.path.dirname(HERE))
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", OOM_SCRIPT, json.dumps([task, HONEST])], cwd=tmp, env=env,
                             capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["error_type"] == "oom" and "no room for the draw" in got["msg"], got
    assert got["after_close"] == "answer_died"


def test_a_trial_checks_its_inputs_unchanged_by_a_keyed_fingerprint_not_a_copy():
    """_fingerprint: equal for the same bits and key; changed by one element's bits (a sign of zero included), by
    a resize or a new storage; stable under NaN; None where a copy is kept instead (not contiguous, complex)."""
    import torch
    import reward
    fp = reward._fingerprint
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.bool):
        x = (torch.randn(1000) > 0) if dtype is torch.bool else (torch.randn(1000) * 50).to(dtype)
        mark = fp(torch, x, 7)
        assert mark is not None and fp(torch, x, 7) == mark and fp(torch, x, 8) != mark
        y = x.clone()
        y[513] = (~y[513]) if dtype is torch.bool else y[513] + 1
        assert fp(torch, y, 7)[-1] != mark[-1], dtype
    z = torch.zeros(64)
    mark = fp(torch, z, 3)
    z[5] = -0.0
    assert fp(torch, z, 3) != mark            # the same value, other bits: an input written to
    d = torch.randn(64, dtype=torch.float64)
    for _ in range(20):   # a float64's sign bit: a change of 2^63 in its bits, seen whatever the key
        key = int.from_bytes(os.urandom(7), "little")
        mark = fp(torch, d, key)
        d[9] = -d[9]
        assert fp(torch, d, key) != mark
    n = torch.full((64,), float("nan"))
    assert fp(torch, n, 3) == fp(torch, n, 3)
    w = torch.randn(4, 8)
    mark = fp(torch, w, 1)
    w.resize_(8, 4)
    assert fp(torch, w, 1) != mark
    big = torch.randn(reward.FINGERPRINT_CHUNK + 5)   # more than one chunk: the last element counts too
    mark = fp(torch, big, 2)
    big[-1] += 1
    assert fp(torch, big, 2) != mark
    assert fp(torch, torch.randn(4, 8).t(), 1) is None and fp(torch, torch.randn(4, dtype=torch.complex64), 1) is None
