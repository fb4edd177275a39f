"""Tests for reward.py: the judge (hacks, faults, known-good kernels, completions, CLI) and the rewards.

    python -m pytest tests/test_reward.py

Every hack in tests/hacks/ and every fault in tests/judge_tasks/faults/ names its task and the verdict it
must get in its header (`# task: NAME`, `# expect: error_type=A|B flag=F` or `correct=True`). They all run
in one verify_many batch on one shared CPU judge, so the suite also shows that the pool survives them.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import time

import pytest

from reward import (Judge, SolutionError, Verdict, compute_ops, drpo_weights, extract_solution, group_advantages,
                    grpo_rewards, init_signature_error, rollout_classes, speed_value, static_check, _worker_env)

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = os.path.join(HERE, "judge_tasks")
HACKS = sorted(glob.glob(os.path.join(HERE, "hacks", "*.py")))
FAULTS = sorted(glob.glob(os.path.join(TASKS, "faults", "*.py")))
GOODS = sorted(glob.glob(os.path.join(TASKS, "good", "*.py")))
CUDA = False
try:
    import torch
    CUDA = torch.cuda.is_available()
except ImportError:
    pass


def read(path):
    with open(path) as f:
        return f.read()


def task_for(path):
    name = read(path).split("# task: ", 1)[1].split()[0]
    return read(os.path.join(TASKS, name + ".py"))


def expectation(path, device="cpu"):
    """`# expect: k=v ...` in the file (default correct=True); `# expect_cuda:` overrides it on the GPU."""
    text = read(path)
    key = "# expect_cuda: " if device == "cuda" and "# expect_cuda: " in text else "# expect: "
    line = text.split(key, 1)[1].splitlines()[0] if key in text else "correct=True"
    return dict(kv.split("=", 1) for kv in line.split())


def check(v, path, device="cpu"):
    exp = expectation(path, device)
    assert v.correct == (exp.get("correct") == "True"), (v.error_type, v.error_msg)
    if "error_type" in exp:
        assert v.error_type in exp["error_type"].split("|"), (v.error_type, v.error_msg)
        assert v.error_msg, "a failure must say why"
    if "flag" in exp:
        assert exp["flag"] in v.flags, v.flags


def run_batch(judge, paths):
    pairs = [(task_for(p), read(p)) for p in paths]
    return dict(zip(paths, judge.verify_many(pairs, progress=False)))


# The hang first, so its timeout overlaps with everything else on the other worker.
ORDER = sorted(HACKS + FAULTS + GOODS, key=lambda p: "infinite" not in p)


BATCH_TIMEOUT_S = 20.0   # per answer: the slowest hacks (attention in the interpreter) take 1.5 s alone, many
                        # times that on a loaded 2-core machine; the infinite loop is stopped at this


@pytest.fixture(scope="module")
def judge():
    with Judge(workers=2, device="cpu", timeout_s=BATCH_TIMEOUT_S) as j:
        yield j


@pytest.fixture(scope="module")
def batch(judge):
    return run_batch(judge, ORDER)


@pytest.mark.parametrize("path", HACKS, ids=os.path.basename)
def test_hack_is_rejected(batch, path):
    check(batch[path], path)
    # a cheat that only pays off when timed is harmless on the CPU, where nothing is; its GPU expectation
    # (checked by test_suite_on_gpu) must reject it
    assert not batch[path].correct or "correct" not in expectation(path, "cuda")


@pytest.mark.parametrize("path", FAULTS, ids=os.path.basename)
def test_fault_gives_typed_verdict(batch, path):
    check(batch[path], path)


@pytest.mark.parametrize("path", GOODS, ids=os.path.basename)
def test_known_good_passes_on_cpu(batch, path):
    v = batch[path]
    check(v, path)
    # max_abs_err spans the scaled trials too, whose outputs reach ~64x the task's own (two blocks of 8x)
    assert v.compiled and v.triton_launches >= 1 and v.max_abs_err < 1e-2
    # CPU: speed is unmeasured, never invented.
    assert v.speedup is None and v.runtime_ms is None and v.ref_ms is None and "speed_unmeasured" in v.flags
    assert json.loads(json.dumps(v.to_dict())) == v.to_dict() and Verdict.from_dict(v.to_dict()) == v


def test_pool_keeps_working_after_faults(judge, batch):
    good = os.path.join(TASKS, "good", "relu_add.py")
    assert all(v is not None for v in batch.values())
    v = judge.verify(task_for(good), read(good))
    assert v.correct, v.error_msg
    assert batch[os.path.join(TASKS, "faults", "infinite_loop.py")].timings.get("verify_s", 0) < BATCH_TIMEOUT_S + 5.0


def test_completions(judge):
    task = read(os.path.join(TASKS, "relu_add.py"))
    good = read(os.path.join(TASKS, "good", "relu_add.py"))
    texts = [
        f"Here is my answer.\n```python\nprint('draft')\n```\nFinal:\n```python\n{good}```\nDone.",
        "I think we should use Triton but here is no code.",
        "```python\n   \n```",
        b"```python\n\xff\xfe\n```",
        "```python\n" + "x = 1\n" * 100_000 + "```",
        "```python\nimport torch\n",
    ]
    vs = judge.verify_many([(task, t) for t in texts], completions=True, progress=False)
    assert vs[0].correct, vs[0].error_msg
    assert [v.error_type for v in vs[1:]] == ["no_code_block", "empty_code", "not_utf8", "too_long",
                                             "unterminated_code_block"]
    assert not any(v.correct for v in vs[1:])


def test_strict_policy_forbids_torch_compute():
    hybrid = os.path.join(TASKS, "good", "linear_relu.py")   # torch matmul + Triton bias/ReLU
    pure = os.path.join(TASKS, "good", "relu_add.py")        # only empty_like outside the kernel
    with Judge(workers=1, device="cpu", timeout_s=10.0, policy="strict") as j:
        v_hybrid, v_pure = j.verify_many([(task_for(hybrid), read(hybrid)), (task_for(pure), read(pure))],
                                         progress=False)
    assert v_hybrid.error_type == "strict_policy" and not v_hybrid.correct
    assert "mm" in v_hybrid.torch_ops
    assert v_pure.correct, v_pure.error_msg


def test_partial_policy_lets_torch_keep_ops_but_not_do_the_task():
    """Policy partial (test-time search's partial programs): an elementwise torch op next to a kernel passes, which
    hybrid refuses; torch computing the whole answer that a kernel then copies is refused under both."""
    after = os.path.join(HERE, "hacks", "torch_after_last_launch.py")
    copy = os.path.join(HERE, "hacks", "torch_fallback_scaled.py")
    pairs = [(task_for(after), read(after)), (task_for(copy), read(copy))]
    with Judge(workers=1, device="cpu", timeout_s=30.0, policy="partial") as j:
        v_after, v_copy = j.verify_many(pairs, progress=False)
    assert v_after.correct, v_after.error_msg
    assert v_copy.error_type == "torch_fallback" and "policy:torch_answer" in v_copy.flags, v_copy.error_msg


def test_wait_ready_then_verify():
    """wait_ready returns once every worker (spares included) is up; the judge then verifies as usual."""
    with Judge(workers=1, device="cpu", timeout_s=30.0, spare_workers=1) as j:
        j.wait_ready()
        assert all(s.ready for s in j.slots) and len(j.slots) == 2
        v = j.verify(read(os.path.join(TASKS, "relu_add.py")), read(os.path.join(TASKS, "good", "relu_add.py")))
    assert v.correct, v.error_msg


RELU_ADD = os.path.join(TASKS, "relu_add.py")
GOOD_RELU_ADD = os.path.join(TASKS, "good", "relu_add.py")


def _hog(body):
    """The known-good relu_add solution with `body` (lines of 8-space-indented code) run first in forward."""
    good = read(GOOD_RELU_ADD)
    hog = good.replace("        out = torch.empty_like(x)\n", body + "        out = torch.empty_like(x)\n")
    assert hog != good
    return hog


# fills 1.6 GB and holds it (its RSS passes 1.2 GB), long enough for the watchdog's 0.5 s polls
RSS_HOG = _hog("        big = torch.ones(400_000_000)\n        for _ in range(200):\n            big.mul_(1.0)\n")
# each forward reserves 3.2 GB of address space without touching it (a worker's imports take ~3.4 GB)
AS_HOG = _hog("        big = torch.empty(800_000_000)\n        del big\n")


def test_host_memory_watchdog_kills_a_worker_over_its_rss_limit():
    """CUDA workers run without an address-space limit, so the parent watches resident memory. Here on CPU:
    a forward that fills 1.6 GB and holds it is stopped as oom, long before the timeout, and the verdict names
    the cap; a forward over the address-space rlimit is oom too, naming that cap (no retry: oom_retry=False,
    the CPU's default anyway);
    the pool judges the next candidate normally."""
    task, good = read(RELU_ADD), read(GOOD_RELU_ADD)
    with Judge(workers=1, device="cpu", timeout_s=60.0, mem_limit_gb=6, rss_limit_gb=1.2, oom_retry=False) as j:
        t = time.monotonic()
        v_hog, v_as, v_good = j.verify_many([(task, RSS_HOG), (task, AS_HOG), (task, good)], progress=False)
    assert v_hog.error_type == "oom" and not v_hog.correct
    assert "RSS" in v_hog.error_msg and "host RSS cap 1.2 GB per worker (rss_limit_gb)" in v_hog.error_msg
    assert v_as.error_type == "oom" and "host address-space cap 6 GB per worker (mem_limit_gb)" in v_as.error_msg
    assert time.monotonic() - t < 45
    assert v_good.correct, v_good.error_msg
    assert "oom_retried_exclusive" not in v_hog.flags + v_as.flags


@pytest.mark.slow
def test_a_task_whose_reference_ran_out_of_memory_runs_alone_at_once():
    """A job whose task's reference ran out of memory under a worker's share is retried alone; the Judge then
    runs every later job of that task alone at once (flag exclusive_task), instead of paying the failed first
    attempt again for each plan or sample (sweeps); a candidate's own oom does not mark its task."""
    task = read(RELU_ADD).replace("        return torch.relu(x * 2.0 + y)",
                                  "        big = torch.empty(800_000_000)  # 3.2 GB of address space, untouched\n"
                                  "        del big\n        return torch.relu(x * 2.0 + y)")
    good = read(GOOD_RELU_ADD)
    with Judge(workers=1, device="cpu", timeout_s=60.0, mem_limit_gb=6, oom_retry=True) as j:
        v1, v2, v3 = j.verify_many([(task, good), (task, good), (read(RELU_ADD), AS_HOG)], progress=False)
        v4 = j.verify(read(RELU_ADD), good)
    assert v1.correct and "oom_retried_exclusive" in v1.flags and "exclusive_task" not in v1.flags, v1.flags
    assert v2.correct and "exclusive_task" in v2.flags and "oom_retried_exclusive" not in v2.flags, v2.flags
    assert "oom_retried_exclusive" in v3.flags  # the candidate's own oom: retried, its task not remembered
    assert v4.correct and not {"exclusive_task", "oom_retried_exclusive"} & set(v4.flags), v4.flags


@pytest.mark.slow
def test_a_reference_oom_is_remembered_across_judges_by_the_baseline_cache(tmp_path):
    """a task whose reference ran out of memory under a worker's share is written to the baseline cache
    (ref_oom, the share), so the next Judge with no larger a share runs its first job alone at once (exclusive_task)
    instead of paying the failed attempt in every eval; a Judge with a larger share tries it normally."""
    task = read(RELU_ADD).replace("        return torch.relu(x * 2.0 + y)",
                                  "        big = torch.empty(800_000_000)  # 3.2 GB of address space, untouched\n"
                                  "        del big\n        return torch.relu(x * 2.0 + y)")
    good, cache = read(GOOD_RELU_ADD), str(tmp_path / "baselines.json")
    with Judge(workers=1, device="cpu", timeout_s=60.0, mem_limit_gb=6, oom_retry=True, baseline_cache=cache) as j:
        v1 = j.verify(task, good)
    assert v1.correct and "oom_retried_exclusive" in v1.flags, v1.flags
    (entry,) = [json.loads(ln) for ln in open(cache)]
    assert entry["ref_oom_share_gb"] == 6 and "address-space" in entry["ref_oom"], entry
    with Judge(workers=1, device="cpu", timeout_s=60.0, mem_limit_gb=6, oom_retry=True, baseline_cache=cache) as j:
        v2 = j.verify(task, good)
    assert v2.correct and "exclusive_task" in v2.flags and "oom_retried_exclusive" not in v2.flags, v2.flags
    with Judge(workers=1, device="cpu", timeout_s=60.0, mem_limit_gb=16, oom_retry=True, baseline_cache=cache) as j:
        v3 = j.verify(task, good)
    assert v3.correct and not {"exclusive_task", "oom_retried_exclusive"} & set(v3.flags), v3.flags


@pytest.mark.slow
def test_oom_is_retried_alone_with_the_caps_lifted():
    """a job that runs out of memory under a worker's share is judged again exclusively, with the
    host caps lifted (on the GPU, where it is the default: the whole GPU, under the exclusive GPU lock); it
    passes and says so."""
    task, good = read(RELU_ADD), read(GOOD_RELU_ADD)
    with Judge(workers=1, device="cpu", timeout_s=60.0, mem_limit_gb=6, oom_retry=True) as j:
        v_as, v_good = j.verify_many([(task, AS_HOG), (task, good)], progress=False)
    assert v_as.correct, v_as.error_msg
    assert "oom_retried_exclusive" in v_as.flags
    assert v_good.correct and "oom_retried_exclusive" not in v_good.flags


@pytest.mark.slow
def test_exclusive_jobs_wait_until_nothing_else_is_in_flight():
    """An oom's retry and every job of a task known too big for a share run after the shared jobs, one at a time,
    with no other job in flight (a job paused between its GPU steps keeps its memory; dispatched beside one, a
    retry found the GPU full). Here: the first job's retry goes after the three shared jobs behind it, and the
    big task's second job waits behind the retry as well."""
    task, good = read(RELU_ADD), read(GOOD_RELU_ADD)
    big = task.replace("        return torch.relu(x * 2.0 + y)",
                       "        big = torch.empty(800_000_000)  # 3.2 GB of address space, untouched\n"
                       "        del big\n        return torch.relu(x * 2.0 + y)")
    pairs = [(task, AS_HOG), (task, good), (big, good), (task, good), (big, good), (task, good)]
    with Judge(workers=2, device="cpu", timeout_s=60.0, mem_limit_gb=6, oom_retry=True) as j:
        vs = j.verify_many(pairs, progress=False)
        log = j.dispatch_log
    assert all(v.correct for v in vs), [(v.error_type, v.error_msg) for v in vs]
    assert "oom_retried_exclusive" in vs[0].flags and "oom_retried_exclusive" in vs[2].flags
    # alone at once, or (where its first attempt went out before the task's first oom came back) retried alone
    assert {"exclusive_task", "oom_retried_exclusive"} & set(vs[4].flags), vs[4].flags
    by_itself = [(i, in_flight) for i, alone, in_flight in log if alone]
    assert sorted(i for i, _ in by_itself) == [0, 2, 4], log
    assert all(in_flight == 0 for _, in_flight in by_itself), log
    last_shared = max(k for k, (_, alone, _) in enumerate(log) if not alone)
    assert all(alone for _, alone, _ in log[last_shared + 1:]) and not any(alone for _, alone, _ in log[:last_shared])
    assert sorted(i for i, alone, _ in log if not alone) == [0, 1, 2, 3, 5] + ([4] if len(log) == 9 else []), log


def test_reference_outputs_placement():
    """How many trials' reference outputs a job keeps on the GPU (reward.ref_gpu_trials, GB here; the rest go to
    the host). A shared job: as many as fit REF_GPU_SHARE of its cap and, with the working set, the cap. An
    exclusive retry: as many as fit, with the working set, EXCLUSIVE_FREE_SHARE of the memory free as it starts
    (a level-1 activation: 5 x 6.4 GB of outputs; the waiting workers' caches are in `free`), none where nothing
    was measured. Where the host cannot take the rest, as many as REF_GPU_SHARE of the cap allows."""
    from reward import ref_gpu_trials, EXCLUSIVE_FREE_SHARE
    relu = dict(out_bytes=6.4, trials=5, working=5 * 6.4 + 4 * 6.4)
    # a 4-worker share: the working set alone is over the cap, and the host cannot take all 5 outputs
    assert ref_gpu_trials(**relu, cap=34.7, host_room=24.0) == 2
    assert ref_gpu_trials(**relu, cap=34.7, host_room=40.0) == 0
    assert ref_gpu_trials(0.4, 5, working=3.0, cap=34.7, host_room=24.0) == 5
    assert ref_gpu_trials(2.0, 5, working=30.0, cap=34.7, host_room=24.0) == 2   # 4.7 GB beside the working set
    assert ref_gpu_trials(2.0, 5, working=30.0, cap=34.7, host_room=5.0) == 5    # ... but the host has no room
    assert ref_gpu_trials(**relu, cap=139.0, host_room=72.0, exclusive=True, free=125.0) == 5
    tight = (5 * 6.4 + relu["working"]) / EXCLUSIVE_FREE_SHARE - 1.0
    assert ref_gpu_trials(**relu, cap=139.0, host_room=72.0, exclusive=True, free=tight) == 4
    assert ref_gpu_trials(**relu, cap=139.0, host_room=72.0, exclusive=True, free=None) == 0
    assert ref_gpu_trials(8.6, 5, working=77.0, cap=139.0, host_room=72.0, exclusive=True, free=130.0) == 3
    assert ref_gpu_trials(8.6, 5, working=10.0, cap=139.0, host_room=20.0, exclusive=True, free=60.0) == 4
    assert ref_gpu_trials(8.6, 5, working=80.0, cap=139.0, host_room=20.0, exclusive=True, free=60.0) == 5
    # an H100 (79 GB, 76 free): a level-1 activation's retry with a cached eager time keeps 4 of its 5 outputs
    assert ref_gpu_trials(6.4, 5, working=4 * 6.4 + 2 * 6.4, cap=79.2, host_room=70.0, exclusive=True,
                          free=76.0) == 4
    assert ref_gpu_trials(0.0, 5, working=1.0, cap=1.0, host_room=0.0) == 5


def test_a_shared_job_over_its_share_stops_after_its_first_reference_output():
    """reward.working_set_over_share: a shared job whose working set (working_bytes, a cached eager time: 4
    inputs' and 2 outputs' worth) is over SHARED_WORKING_MAX of its GPU cap runs alone at once. With 4 workers an
    H200's share is 31.5 GB: level 1's activations (6 GiB tensors: 36 GB) go alone, its 8 GiB reductions (32 GB)
    stay shared, as both did in a run of the lab record; an H100's 17.8 GB share sends a 4 GiB batch norm (24 GB) alone too."""
    from reward import memory_caps, working_set_over_share, working_bytes
    one = {"time_trials": 100, "baseline": {"eager_ms": 1.0}, "compile_baseline": False}
    h200, h100 = memory_caps(125.8, 139.8, 4)["gpu_gb"], memory_caps(125.8, 79.2, 4)["gpu_gb"]
    assert round(h200, 1) == 31.5 and round(h100, 1) == 17.8
    assert working_set_over_share(working_bytes(one, 6.0, 6.0), h200)      # 19_ReLU
    assert not working_set_over_share(working_bytes(one, 8.0, 0.0), h200)  # 47_Sum_reduction
    assert working_set_over_share(working_bytes(one, 4.0, 4.0), h100)      # 33_BatchNorm
    assert not working_set_over_share(working_bytes(one, 4.0, 4.0), h200)
    assert not working_set_over_share(1e12, 0.0)                           # no cap


def test_working_set_counts_the_functions_a_job_times():
    """The working set beside the stored reference outputs follows what the job times (reward.timed_functions):
    timing the candidate, the eager reference and torch.compile holds 5 inputs' and 4 outputs' worth (6 inputs
    where three seeded sets rotate), the candidate alone 4 and 2. A level-1 norm's exclusive retry (7 GB an
    input and an output, 5 trials' outputs) with a cached eager time keeps all its outputs on the GPU with 110 GB
    free; counted as if it timed three functions, one of them went to the host."""
    from reward import EXCLUSIVE_FREE_SHARE, ref_gpu_trials, timed_functions, working_bytes
    cached = {"eager_ms": 1.0}
    assert timed_functions({"time_trials": 0, "baseline": None}) == set()
    assert timed_functions({"time_trials": 100, "baseline": None, "compile_baseline": False}) == {"new", "ref"}
    assert timed_functions({"time_trials": 100, "baseline": cached, "compile_baseline": False}) == {"new"}
    assert timed_functions({"time_trials": 100, "baseline": None, "compile_baseline": True}) == {"new", "ref",
                                                                                                   "compile"}
    assert timed_functions({"time_trials": 100, "baseline": {"eager_ms": 1.0, "compile_failed": True},
                            "compile_baseline": True}) == {"new"}
    both = {"time_trials": 100, "baseline": cached, "compile_baseline": True, "autotune_baseline": True}
    assert timed_functions(both) == {"new", "compile", "max-autotune"}
    assert timed_functions({**both, "baseline": {"eager_ms": 1.0, "compile_ms": 0.5, "max_autotune_failed": True}}) \
        == {"new"}
    assert timed_functions({**both, "compile_baseline": False, "baseline": {"max_autotune_ms": 0.4}}) == {"new", "ref"}
    three = {"time_trials": 100, "baseline": None, "compile_baseline": True}
    one = {"time_trials": 100, "baseline": cached, "compile_baseline": False}
    assert working_bytes(three, 10, 1) == 5 * 10 + 4 * 1
    assert working_bytes(three, 10, 1, draw_on_device=False) == 6 * 10 + 4 * 1
    assert working_bytes(one, 10, 1) == 4 * 10 + 2 * 1
    assert working_bytes({"time_trials": 0}, 10, 1) == 4 * 10 + 2 * 1
    norm = dict(out_bytes=7.0, trials=5, cap=139.8, host_room=72.0, exclusive=True, free=110.0)
    assert ref_gpu_trials(working=working_bytes(three, 7.0, 7.0), **norm) == 4
    assert ref_gpu_trials(working=working_bytes(one, 7.0, 7.0), **norm) == 5
    # 8 GB tensors (38_L1Norm_): 40 + 48 GB does not fit 0.85 of 100 GB free; 4 of the 5 outputs do
    assert 40.0 + working_bytes(one, 8.0, 8.0) > EXCLUSIVE_FREE_SHARE * 100.0
    assert ref_gpu_trials(8.0, 5, working_bytes(one, 8.0, 8.0), 139.8, 72.0, True, 100.0) == 4


def test_inputs_drawn_on_the_device_or_else_on_the_cpu():
    """reward.draw_inputs runs get_inputs with the device as torch's default device, so the draws happen there (the
    CPU generator is not touched), and moves what it drew on the CPU otherwise; search.task_inputs falls back to
    the CPU, under the same seed, where get_inputs cannot run on the device. 'meta' stands in for the GPU."""
    import torch
    import search
    from reward import draw_inputs
    where = []

    def get_inputs():
        where.append(torch.get_default_device().type)
        return [torch.randn(2, 3), 4]

    state = torch.random.get_rng_state()
    xs = draw_inputs(torch, get_inputs, "meta", on_device=True)
    assert where == ["meta"] and xs[0].device.type == "meta" and xs[1] == 4
    assert torch.equal(torch.random.get_rng_state(), state)  # nothing drawn on the CPU
    xs = draw_inputs(torch, get_inputs, "meta", on_device=False)
    assert where[-1] == "cpu" and xs[0].device.type == "meta" and tuple(xs[0].shape) == (2, 3)
    assert not torch.equal(torch.random.get_rng_state(), state)

    def cpu_only():
        where.append(torch.get_default_device().type)
        if where[-1] != "cpu":
            raise NotImplementedError("this get_inputs reads values on the host")
        return [torch.randn(5)]
    where.clear()
    xs = search.task_inputs(cpu_only, "meta", seed=3)
    assert where == ["meta", "cpu"] and xs[0].device.type == "meta"
    torch.manual_seed(3)
    expected = torch.randn(5)
    where.clear()
    assert torch.equal(search.task_inputs(cpu_only, "cpu", seed=3)[0], expected) and where == ["cpu"]


def test_a_long_error_message_keeps_its_reason():
    """A compile error's message shows the kernel source first and the reason last; a message over 1,500
    characters keeps both ends (reward._describe), so the verdict still says why."""
    from reward import _describe
    source = "\n".join(f"        x{i} = tl.load(x_ptr + offs_{i}, mask=mask)" for i in range(60))
    e = RuntimeError(f"at 28:18:\n{source}\nValueError: unsupported tensor index: <class 'NoneType'>")
    text = _describe(e)
    assert text.startswith("RuntimeError: at 28:18:") and text.endswith("<class 'NoneType'>")
    assert len(text) < 1600 and "characters ...]" in text
    assert _describe(ValueError("short")) == "ValueError: short"


def test_large_cached_reference_dropped_when_no_job_of_its_task_waits(monkeypatch):
    """After a job, a worker drops its task's cached reference when it is over TASK_CACHE_BYTES and the judge's
    queue holds no other job of that task (job["task_queued"]); small references, and large ones with more
    candidates queued, stay. The parent sets task_queued from what is left to dispatch in this verify_many call:
    an idle worker's multi-GB reference would otherwise keep an exclusive retry's outputs off the GPU."""
    import reward
    worker = reward._Worker.__new__(reward._Worker)  # only the cache is read
    big, small = reward.TASK_CACHE_BYTES + 1, reward.TASK_CACHE_BYTES // 4

    def job(task, queued):
        return {"task": task, "seed": 0, "trials": 5, "task_queued": queued}
    worker.tasks = {reward._task_key(job("big", 0)): {"nbytes": big},
                    reward._task_key(job("small", 0)): {"nbytes": small}}
    worker.drop_large_task(job("big", True))
    worker.drop_large_task(job("small", False))
    assert len(worker.tasks) == 2
    worker.drop_large_task(job("big", False))
    assert list(worker.tasks) == [reward._task_key(job("small", 0))]

    sent = []
    real = reward._send
    monkeypatch.setattr(reward, "_send", lambda fd, obj: (sent.append(obj), real(fd, obj))[1])
    task, other, good = read(RELU_ADD), task_for(GOODS[0]), read(GOOD_RELU_ADD)
    with Judge(workers=1, device="cpu", timeout_s=60.0) as j:
        j.verify_many([(task, good), (task, good), (other, read(GOODS[0])), (task, good)], progress=False)
    queued = [(m["task"] == task, m["task_queued"]) for m in sent if m.get("type") == "job"]
    assert queued == [(True, True), (True, True), (False, False), (True, False)]


@pytest.mark.slow
def test_scaled_trials_catch_a_partial_mean():
    """A mean taken over the first rows of i.i.d. inputs is within the tolerance of the whole mean on most plain
    draws (its relative error is ~1e-2, about the rtol); on a trial whose inputs have a random block scaled it is
    not. Over several judgings (fresh seeds) it never passes; the honest whole mean always does."""
    hack, good = os.path.join(HERE, "hacks", "partial_mean.py"), os.path.join(TASKS, "good", "mse_mean.py")
    task = task_for(hack)
    with Judge(workers=1, device="cpu", timeout_s=60.0) as j:
        vs = [j.verify_many([(task, read(hack)), (task, read(good))], progress=False) for _ in range(3)]
    for v_hack, v_good in vs:
        assert v_good.correct, v_good.error_msg
        assert not v_hack.correct and v_hack.error_type == "mismatch", v_hack.error_msg


def test_whole_output_rule():
    """Elementwise atol passes zeros for outputs below it; the whole output's relative error does not."""
    import reward
    assert reward.whole_output_rule(None, 1e-2) is None and reward.whole_output_rule(0.005, 1e-2) is None
    assert "rule whole_output" in reward.whole_output_rule(1.0, 1e-2)
    ref = torch.randn(100) * 1e-4
    whole = {}
    err, ok = reward._chunked_close(torch, torch.zeros(100), reward._RefOut(torch, ref), 1e-2, 1e-2, torch.isclose,
                                    torch.equal, "cpu", whole=whole)
    assert ok and whole["rel"] == pytest.approx(1.0)  # elementwise close, and wholly wrong
    whole = {}
    reward._chunked_close(torch, ref * (1 + 1e-4), reward._RefOut(torch, ref), 1e-2, 1e-2, torch.isclose,
                          torch.equal, "cpu", whole=whole)
    assert whole["rel"] == pytest.approx(1e-4, rel=1e-2)
    # where the reference is mostly its own rounding (noise ||ref32 - ref64||), ten times that is allowed
    assert reward.whole_output_rule(1.0, 1e-2, diff=3e-8, ref=3e-8, noise=4e-9) is None   # 3e-8 <= 3e-10 + 4e-8
    assert "rule whole_output" in reward.whole_output_rule(1.0, 1e-2, diff=3e-8, ref=3e-8, noise=2e-9)
    assert "rule whole_output" in reward.whole_output_rule(1.0, 1e-2, diff=1.0, ref=1.0, noise=1e-7)  # zeros, real
    assert reward.whole_output_rule(0.02, 1e-2, diff=0.02, ref=1.0, noise=2e-3) is None


def test_trial_plan_is_fresh_per_seed_and_hides_the_faithfulness_trial():
    """trial_plan: `trials` correctness trials (one sign-symmetric, one block-scaled and one with a slice scaled among them
    from three on) and one
    faithfulness trial of a random kind at a random place but the first (an answer may prepare its weights on
    its first call); the same seed gives the same plan."""
    import reward
    task = read(os.path.join(TASKS, "relu_add.py"))
    plans = [reward.trial_plan(seed, task, 5) for seed in range(60)]
    for plan in plans:
        assert len(plan) == 6 and sum(e["faithful"] for e in plan) == 1
        kinds = sorted(e["kind"] for e in plan if not e["faithful"])
        assert kinds == ["plain", "plain", "scale", "sign", "slice"]
        assert len({e["seed"] for e in plan}) == 6
    places = {next(i for i, e in enumerate(p) if e["faithful"]) for p in plans}
    faithful_kinds = {next(e["kind"] for e in p if e["faithful"]) for p in plans}
    assert places == set(range(1, 6)) and faithful_kinds == set(reward.TRIAL_KINDS)
    assert reward.trial_plan(7, task, 5) == plans[7] and reward.trial_plan(7, task + " ", 5) != plans[7]
    assert [e["kind"] for e in reward.trial_plan(3, task, 1) if not e["faithful"]] == ["plain"]


def test_widened_inputs():
    """widen_inputs: sign flips reach negative values of a torch.rand input and keep magnitudes and strides; a scaled
    trial divides a middle-half block along each of two dims by a factor in SCALE_RANGE (never grows one); both deterministic in the seed; integer
    and bool tensors, non-tensors and plain trials as they were; torch's global RNG untouched."""
    import reward
    x = torch.rand(6, 8).t()  # non-contiguous
    state = torch.get_rng_state()
    s1, s2 = reward.widen_inputs(torch, [x], "sign", 5)[0], reward.widen_inputs(torch, [x], "sign", 5)[0]
    assert torch.equal(torch.get_rng_state(), state)
    assert torch.equal(s1, s2) and s1.stride() == x.stride() and bool((s1 < 0).any()) and bool((s1 > 0).any())
    assert torch.equal(s1.abs(), x)
    v = torch.rand(40) + 0.5  # one dim: one block, one factor
    c = reward.widen_inputs(torch, [v], "scale", 9)[0]
    factors = sorted({round(float(r), 4) for r in c / v})
    assert len(factors) == 2 and 1.0 in factors
    assert max(factors) == 1.0   # values shrink: a correct kernel's rounding stays within the task's own range
    f = 1 / min(factors)
    assert reward.SCALE_RANGE[0] - 1e-3 <= f <= reward.SCALE_RANGE[1] + 1e-3
    scaled = (c / v - 1).abs() > 1e-3  # the block is a prefix or a suffix, 10 to 30 of the 40
    assert 10 <= int(scaled.sum()) <= 30 and (bool(scaled[0]) or bool(scaled[-1]))
    for seed in range(20):  # two dims: a block along each, so ratios vary along rows and along columns
        ratio = reward.widen_inputs(torch, [x + 0.5], "scale", seed)[0] / (x + 0.5)
        assert (ratio.std(dim=0) > 1e-3).any() and (ratio.std(dim=1) > 1e-3).any() and float(ratio.max()) <= 1 + 1e-6
    for seed in range(20):  # slice: one row and one column kept, the rest divided by at least SCALE_RANGE[1]
        y = torch.rand(16, 12) + 0.5
        ratio = reward.widen_inputs(torch, [y], "slice", seed)[0] / y
        kept = (ratio - 1).abs() < 1e-6
        assert int(kept.all(dim=1).sum()) == 1 and int(kept.all(dim=0).sum()) == 1 and int(kept.sum()) == 16 + 12 - 1
        assert float(ratio.max()) == pytest.approx(1.0) and float(ratio[~kept].max()) <= 1 / reward.SCALE_RANGE[1] + 1e-6
        assert torch.equal(ratio, reward.widen_inputs(torch, [y], "slice", seed)[0] / y)
    for same in (torch.arange(6), torch.ones(4, dtype=torch.bool), 3.0):
        assert reward.widen_inputs(torch, [same], "sign", 1)[0] is same
    assert reward.widen_inputs(torch, [x], "plain", 1)[0] is x


def test_a_seed_reproduces_a_verdict_and_a_fresh_judging_draws_new_seeds():
    hack = os.path.join(HERE, "hacks", "elu_drops_negative_branch.py")
    pair = (task_for(hack), read(hack))
    with Judge(workers=1, device="cpu", timeout_s=30.0) as j:
        fresh = [j.verify(*pair), j.verify(*pair)]
    assert fresh[0].seed != fresh[1].seed and all(v.error_type == "mismatch" for v in fresh)
    with Judge(workers=1, device="cpu", timeout_s=30.0, seed=fresh[0].seed) as j:
        again = j.verify(*pair)
    assert (again.seed, again.error_type, again.error_msg) == (fresh[0].seed, "mismatch", fresh[0].error_msg)
    assert "(sign inputs)" in again.error_msg  # only the sign-symmetric trials reach ELU's negative branch


def _alive(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()  # a zombie has exited; only its parent's wait is missing
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_worker_dies_with_a_killed_parent(tmp_path):
    """kill -9 of the trainer while a worker runs an infinite loop: the worker must not live on (the
    wall-clock limit is the parent's job, and the parent is gone)."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {os.path.dirname(HERE)!r})\n"
        "from reward import Judge\n"
        f"task = open({os.path.join(TASKS, 'relu_add.py')!r}).read()\n"
        f"loop = open({os.path.join(TASKS, 'faults', 'infinite_loop.py')!r}).read()\n"
        "j = Judge(workers=1, device='cpu', timeout_s=600.0, spare_workers=0)\n"
        "j.wait_ready()\n"
        "print(j.slots[0].proc.pid, flush=True)\n"
        "j.verify_many([(task, loop)], progress=False)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    worker = int(parent.stdout.readline())
    time.sleep(3.0)  # the worker is inside the candidate's loop by now
    assert _alive(worker)
    parent.kill()
    parent.wait(timeout=30)
    deadline = time.monotonic() + 15
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(worker), "the worker outlived its killed parent"


def test_cli(tmp_path):
    task = os.path.join(TASKS, "relu_add.py")
    sol = os.path.join(TASKS, "good", "relu_add.py")
    comp = tmp_path / "completion.txt"
    comp.write_text("no code here")
    reward_py = os.path.join(os.path.dirname(HERE), "reward.py")
    r = subprocess.run([sys.executable, reward_py, "--task", task, "--solution", sol, "--device", "cpu",
                        "--timeout-s", "30"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["correct"] is True
    r = subprocess.run([sys.executable, reward_py, "--task", task, "--completion", str(comp), "--device", "cpu"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1  # incorrect
    assert json.loads(r.stdout.strip().splitlines()[-1])["error_type"] == "no_code_block"
    assert r.stderr.strip().splitlines()[-1].startswith("incorrect: no_code_block") and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, reward_py, "--solution", sol], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr  # usage
    broken = tmp_path / "broken_task.py"
    broken.write_text("import torch\n\ndef get_inputs(:\n")
    r = subprocess.run([sys.executable, reward_py, "--task", str(broken), "--solution", sol, "--device", "cpu",
                        "--timeout-s", "30"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr  # a broken task
    assert "broken task" in r.stderr.strip().splitlines()[-1]


# ----------------------------------------------------------------------------------------------------
# Pure functions: no workers.


def test_extract_solution_takes_last_block():
    assert extract_solution("```python\na = 1\n```\ntext\n```py\nb = 2\n```") == "b = 2\n"
    with pytest.raises(SolutionError) as e:
        extract_solution("\udcff```python\nx\n```")
    assert e.value.error_type == "not_utf8"


def test_static_check_rules():
    """A few of the gate's rules; tests/test_judge_gate.py has the rest, aliases included."""
    kernel = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x):\n    pass\n"
    assert static_check(kernel) == (None, [])
    cases = {
        "import torch as T\nT.cuda.synchronize = None\n": "patches_module",
        "import torch\nsetattr(torch, 'allclose', None)\n": "reflection",
        "import os\nos.system('ls')\n": "os",
        "import torch\nx = getattr(torch, 'al' + 'lclose')\n": "reflection",
        "from concurrent.futures import ThreadPoolExecutor\n": "thread",
        "from torch.utils.cpp_extension import load_inline\n": "import_not_allowed",
        "import ctypes\n": "native_code",
        "import asyncio\n": "asyncio",
        "class A(Model):\n    pass\n": "subclasses_model",
        "y = eval('1')\n": "dynamic_code",
        "import torch\nt = torch.compile(lambda x: x)\n": "torch_compile",
        "def f(t):\n    t.__class__ = int\n": "dunder",
        "import torch\ntorch.cuda.set_per_process_memory_fraction(1.0)\n": "cuda_state",
    }
    for src, rule in cases.items():
        err, bad = static_check(kernel + src)
        assert err == "static_check" and rule in {r for r, _, _ in bad}, (src, bad)
    assert static_check("import torch\n")[0] == "no_triton_kernel"
    assert static_check("def (:\n")[0] == "syntax_error"


def test_worker_env_is_scrubbed(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("WANDB_API_KEY", "x")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    env = _worker_env(str(tmp_path), "cuda")
    assert not {"HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "WANDB_API_KEY"} & set(env)
    assert env["HOME"] == str(tmp_path) and env["TRITON_CACHE_DIR"].startswith(str(tmp_path))
    assert env["CUDA_VISIBLE_DEVICES"] == "0" and "PATH" in env
    assert _worker_env(str(tmp_path), "cpu")["TRITON_INTERPRET"] == "1"


def test_compute_ops_families():
    assert compute_ops({"empty_like": 2, "t": 1, "addmm": 1, "relu_": 1, "_softmax": 1}) == \
        {"matmul": 1, "relu": 1, "softmax": 1}


def test_library_layer_macs_by_hand_and_against_the_recorder():
    """_layer_macs: a recurrent layer's gate GEMMs (by hand: 4 gates x hidden x (input + output width) per step,
    direction and layer, plus the projection), and attention's four projections and two batched GEMMs, the
    latter equal to what the recorder counts when the same attention runs op by op."""
    import reward
    lstm = torch.nn.LSTM(6, 8, num_layers=2, bidirectional=True, proj_size=3, batch_first=True)
    per_step = (4 * 8 * (6 + 3) + 8 * 3) + (4 * 8 * (3 * 2 + 3) + 8 * 3)   # layer 0, layer 1 (input 2 x proj)
    assert reward._layer_macs(lstm, (torch.randn(3, 5, 6),)) == 3 * 5 * 2 * per_step
    gru = torch.nn.GRU(4, 7)
    assert reward._layer_macs(gru, (torch.randn(5, 2, 4),)) == 5 * 2 * 3 * 7 * (4 + 7)
    assert reward._layer_macs(torch.nn.RNN(4, 7), (torch.randn(5, 4),)) == 5 * 7 * (4 + 7)   # unbatched
    mha = torch.nn.MultiheadAttention(16, 4, batch_first=True).eval()
    q, kv = torch.randn(2, 5, 16), torch.randn(2, 9, 16)
    rec = reward._op_recorder_class(torch)()
    with rec, torch.no_grad():   # the functional path outside the module: every GEMM recorded as the answer's
        torch.nn.functional.multi_head_attention_forward(
            q.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1), 16, 4, mha.in_proj_weight, mha.in_proj_bias,
            None, None, False, 0.0, mha.out_proj.weight, mha.out_proj.bias, training=False, need_weights=False)
    assert reward._layer_macs(mha, (q, kv, kv)) == rec.counts[reward.MACS] > 0
    mha = torch.nn.MultiheadAttention(16, 4, add_bias_kv=True, add_zero_attn=True).eval()
    q, kv = torch.randn(5, 2, 16), torch.randn(9, 2, 16)
    rec = reward._op_recorder_class(torch)()
    with rec, torch.no_grad():   # two more keys attended: the learned bias and the zero
        torch.nn.functional.multi_head_attention_forward(
            q, kv, kv, 16, 4, mha.in_proj_weight, mha.in_proj_bias, mha.bias_k, mha.bias_v, True, 0.0,
            mha.out_proj.weight, mha.out_proj.bias, training=False, need_weights=False)
    assert reward._layer_macs(mha, (q, kv, kv)) == rec.counts[reward.MACS] > 0
    assert reward._layer_macs(lstm, ()) is None   # unreadable: no bound is derived from it


def test_gemm_accumulates_and_short_reductions_by_hand():
    """_accumulates: a GEMM's accumulate operand is an add unless it is a bias broadcast along the rows or columns
    (for a GEMV, a scalar); hybrid_extra_ops: a GEMM whose reduction length is under 8 and under an eighth of the
    reference's shortest (a 1x1 batched GEMM: an elementwise product) is SHORT_REDUCTION, one split in two or
    into chunks of a long reduction is not; more calls than the reference must each reduce over one of its
    lengths within 2x (HEAVY_BEYOND_REFERENCE)."""
    import reward
    a, b, bias, full = torch.randn(4, 6), torch.randn(6, 5), torch.randn(5), torch.randn(4, 5)
    acc = lambda name, *args, **kw: reward._accumulates(torch, name, args, kw, getattr(torch, name)(*args, **kw))  # noqa: E731
    assert not acc("addmm", bias, a, b) and not acc("addmm", bias.expand(4, 5), a, b)
    assert acc("addmm", full, a, b) and not acc("addmm", full, a, b, beta=0)
    assert acc("addmv", torch.randn(4), a, torch.randn(6)) and not acc("addmv", torch.tensor(1.0), a, torch.randn(6))
    assert acc("baddbmm", torch.randn(2, 4, 5), torch.randn(2, 4, 6), torch.randn(2, 6, 5))
    assert not acc("baddbmm", torch.randn(5), torch.randn(2, 4, 6), torch.randn(2, 6, 5))
    k = lambda n: f"{reward.GEMM_K}{n.bit_length()}"   # noqa: E731
    ref = {"matmul": 1, reward.MACS: 4096, k(64): 1}
    half = {"matmul": 2, reward.MACS: 4096, k(32): 2}                  # one GEMM split in two along K
    assert reward.hybrid_extra_ops(half, ref) == {}
    short = {"matmul": 3, reward.MACS: 4000, k(64): 1, k(1): 2}        # and two 1x1 products within the MACs
    assert reward.hybrid_extra_ops(short, ref) == {reward.SHORT_REDUCTION: 2, reward.HEAVY_BEYOND_REFERENCE: 2}
    # more calls than the reference within its multiply-adds: each must reduce over its length within 2x
    rows = {"matmul": 2, reward.MACS: 4096, k(64): 2}                   # split along M: the same reduction
    assert reward.hybrid_extra_ops(rows, ref) == {}
    identity = {"matmul": 2, reward.MACS: 4096, k(64): 1, k(8): 1}     # a block identity of 8 adds a residual
    assert reward.hybrid_extra_ops(identity, ref) == {reward.HEAVY_BEYOND_REFERENCE: 1}
    assert reward.hybrid_extra_ops({"matmul": 1, reward.MACS: 4096, k(8): 1}, ref) == {}   # one call: not this rule
    assert reward.hybrid_extra_ops({"matmul": 1, reward.MACS: 4096, k(7): 1}, ref) == {reward.SHORT_REDUCTION: 1}
    assert reward.hybrid_extra_ops({"matmul": 1, reward.MACS: 4096, k(8): 1}, ref) == {}   # an eighth: kept
    assert reward._layer_min_k(torch.nn.LSTM(10, 20, proj_size=4)) == 4
    assert reward._layer_min_k(torch.nn.MultiheadAttention(16, 4, kdim=8, vdim=12)) == 4
    kv = torch.randn(2, 3, 8)   # (S, N, kdim): attention over two keys reduces over 2 in scores @ V
    assert reward._layer_min_k(torch.nn.MultiheadAttention(16, 4, kdim=8, vdim=8), (torch.randn(5, 3, 16), kv)) == 2
    ref = {"matmul": 1, reward.MACS: 1 << 20, k(1 << 14): 1}   # split along K into 16 chunks: still GEMMs
    assert reward.hybrid_extra_ops({"matmul": 1, reward.MACS: 1 << 20, k(1 << 10): 1}, ref) == {}


def test_worker_own_compile_does_not_trip_its_tripwire(tmp_path):
    """The worker compiles the reference for the compile baselines; torch.compile's first use wraps
    nn.Module.__init__ and __setstate__, which the worker's snapshot must already hold (else every compile-baseline
    verdict becomes patched_critical). In a fresh interpreter: one where dynamo already ran would hide it."""
    script = tmp_path / "snap.py"
    script.write_text(
        "import os, socket, torch, triton, reward\n"
        "a, b = socket.socketpair()\n"
        "w = reward._Worker(torch, triton, 'cpu', os.open(os.devnull, os.O_WRONLY), a)\n"
        "torch.compile(torch.nn.Linear(4, 4), backend='eager')(torch.randn(2, 4))\n"
        "print('PATCHED', w._patched())\n")
    env = dict(os.environ, TRITON_INTERPRET="1",
               PYTHONPATH=os.path.dirname(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert "PATCHED []" in r.stdout, r.stdout + r.stderr[-2000:]


def test_weights_sharing_one_storage_keep_their_anchors():
    """cuDNN flattens an LSTM's weights into one storage on CUDA (here by hand, as flatten_parameters does): a
    kernel given layer 0's bias, or a write into it (the Triton interpreter copies a whole storage back after a
    kernel), leaves layer 1's weights the reference's, checked again by their prints; a weight whose values
    changed is no longer one, and a weight with no print is dropped where written."""
    import reward
    lstm = torch.nn.LSTM(6, 8, 2)
    weights = list(lstm._flat_weights)   # w_ih, w_hh, b_ih, b_hh per layer
    flat = torch.cat([w.detach().reshape(-1) for w in weights])
    offset = 0
    for w in weights:
        w.data = flat[offset:offset + w.numel()].view_as(w)
        offset += w.numel()
    key = 12345
    prints, _ = reward._anchor_prints(torch, weights, key)
    index = {tuple(p[:3]): p[3] for p in prints}
    ids = {}
    anchors = reward._model_anchors(torch, lstm, key, index, ids=ids)
    rec = reward._op_recorder_class(torch)(anchors=anchors, prints=(key, index), proj=True)
    w_ih1, b_ih1, b_hh0 = lstm.weight_ih_l1, lstm.bias_ih_l1, lstm.bias_hh_l0
    assert rec.match(w_ih1)[0] == rec.match(b_ih1)[0] == reward.ANCHOR_PARAM
    with rec, torch.no_grad():
        rec.launched((b_hh0,), {})                  # a kernel was given layer 0's bias ...
        reward._Launches.count += 1
        rec.after_launch()
        b_hh0.copy_(b_hh0.clone())                  # ... and its storage copied back, values unchanged
        flat.copy_(flat.clone())                    # all of the storage written, values unchanged
        assert rec.match(w_ih1)[0] == rec.match(b_ih1)[0] == reward.ANCHOR_PARAM
        b_ih1.add_(1.0)                             # another value: not the reference's bias any more
        assert rec.match(b_ih1)[0] is None and rec.match(w_ih1)[0] == reward.ANCHOR_PARAM
        b_ih1.sub_(1.0)                             # put back: once stale, gone for good
        assert rec.match(b_ih1)[0] is None
    rec = reward._op_recorder_class(torch)(anchors=reward._model_anchors(torch, lstm), proj=False)
    with rec, torch.no_grad():                      # the reference's side: no prints, a write drops what it spans
        lstm.weight_hh_l1.mul_(1.0)
        assert rec.match(lstm.weight_hh_l1)[0] is None and rec.match(w_ih1)[0] == reward.ANCHOR_PARAM


def test_weight_moved_within_its_storage_loses_its_anchor():
    """A buffer of the weight's values that is a view of half a storage holding them twice, re-pointed at the other
    half (param.data = ..., as torch.nn.utils.vector_to_parameters does): its print, taken where it now lies, says
    nothing of the span it anchored, which a copy (or a kernel) then fills with a matrix of the answer's."""
    import reward
    lin = torch.nn.Linear(4, 3)
    big = torch.cat([lin.weight.detach().reshape(-1)] * 2)
    holder = torch.nn.Module()
    holder.register_buffer("wc", big[:12].view(3, 4))
    key = 12345
    prints, _ = reward._anchor_prints(torch, [lin.weight], key)
    index = {tuple(p[:3]): p[3] for p in prints}
    rec = reward._op_recorder_class(torch)(anchors=reward._model_anchors(torch, holder, key, index),
                                           prints=(key, index), proj=True)
    lo = big[:12].view(3, 4)
    assert rec.match(lo)[0] == reward.ANCHOR_PARAM
    with rec, torch.no_grad():
        torch.nn.utils.vector_to_parameters(big[12:], [holder.wc])   # wc now lies in the other half
        lo.copy_(torch.eye(3, 4))
        assert rec.match(lo)[0] is None and rec.match(holder.wc)[0] is None


def test_gemm_outputs_are_exempt_only_while_untouched_and_alive():
    """OpRecorder.gemm_output: memory a functional GEMM wrote, within its region, while no op wrote it and a tensor
    holding that storage lives; a tensor moved by resize_ leaves its old block behind, a bias added to a GEMM's
    output is its epilogue but not once the output was overwritten, and an inference tensor (no version counter)
    is never exempt but does not break the recorder."""
    import reward
    rec = reward._op_recorder_class(torch)()
    a, b = torch.randn(4, 6), torch.randn(6, 5)
    with rec, torch.no_grad():
        out = torch.mm(a, b)
        assert rec.gemm_output(out) and rec.gemm_output(out[1:3]) and not rec.gemm_output(torch.randn(4, 5))
        view = out.view(-1)
        assert rec.gemm_output(view)
        out.add_(1.0)                                   # written: no longer what the GEMM left
        assert not rec.gemm_output(out) and not rec.gemm_output(view)
        moved = torch.mm(a, b)
        old = reward._storage_ptr(moved)
        moved.resize_(1000)                             # to another block: the old one is no GEMM output now
        assert old not in rec.gemm_outs and not rec.gemm_output(moved)
    rec = reward._op_recorder_class(torch)()
    with rec, torch.no_grad():
        out = torch.mm(a, b)
        out.add_(torch.randn(5))                        # the GEMM's bias: its epilogue, not counted
        out2 = torch.mm(a, b)
        out2.copy_(torch.randn(4, 5))                   # overwritten, then a "bias" added: torch's add
        out2.add_(torch.randn(5))
    assert rec.counts.get(reward.GEMM_BIAS) == 1 and rec.counts.get("add_") == 1
    rec = reward._op_recorder_class(torch)()
    with torch.inference_mode(), rec:
        out = torch.mm(a, b)                            # an inference tensor: counted, never exempt
        assert not rec.gemm_output(out)
        torch.addmm(out, a, b)
    assert rec.counts.get(reward.ACCUMULATE) == 1


def V(correct, speedup=None):
    return Verdict(compiled=True, correct=correct, speedup=speedup)


def shaping(**flags):
    """train.py's reward flags: the paper's log speed, lambda 0.1, cap 10, and the written rewards
    (--no-correct-first: coupled 1 + log s, decoupled the plain z-sum); `flags` overrides them."""
    return argparse.Namespace(**{"speedup_cap": 10.0, "speed_shape": "log", "speed_alpha": 1.0, "drpo_lambda": 0.1,
                                 "reward": "coupled", "correct_first": False, "judge_faults": "skip", **flags})


def rewards(vs, **flags):
    """GRPO rewards of one group under `shaping(**flags)`."""
    args = shaping(**flags)
    return grpo_rewards(vs, rollout_classes(vs, args), args)


def weights(vs, **flags):
    """DRPO weights of one group under `shaping(**flags)`."""
    args = shaping(**flags)
    return drpo_weights(vs, rollout_classes(vs, args), args)


def test_speed_value_cap_and_unmeasured():
    args = shaping()
    assert speed_value(2.0, args) == pytest.approx(math.log(2))
    assert speed_value(50.0, args) == pytest.approx(math.log(10))
    assert speed_value(0.01, args) == pytest.approx(-math.log(10))
    assert speed_value(None, args) == 0.0  # unmeasured (CPU): 1x
    assert speed_value(4.0, shaping(speed_shape="power", speed_alpha=0.5)) == pytest.approx(2.0)


def test_rewards_all_correct_timed():
    vs = [V(True, 2.0), V(True, 1.0), V(True, 0.5)]
    assert rollout_classes(vs, shaping()) == ["correct"] * 3
    z = 1024 + 1 + 1 / 1024  # softmax of [ln2, 0, -ln2] / 0.1 = [1024, 1, 1/1024] / z
    assert weights(vs) == pytest.approx([1024 / z, 1 / z, 1 / 1024 / z])
    assert rewards(vs) == pytest.approx([1 + math.log(2), 1.0, 1 - math.log(2)])
    # decoupled: correctness has no spread (0); speed z-score of [ln2, 0, -ln2] = [1.2247, 0, -1.2247]
    assert rewards(vs, reward="decoupled") == pytest.approx([math.sqrt(1.5), 0.0, -math.sqrt(1.5)], rel=1e-5)
    # --correct-first: log s mapped from [-ln10, ln10] onto [0, 1]; the speed z-score divided by sqrt(3 - 1)
    assert rewards(vs, correct_first=True) == pytest.approx([1 + (math.log(2) + math.log(10)) / (2 * math.log(10)),
                                                             1.5, 1 + (math.log(10) - math.log(2)) / (2 * math.log(10))])
    assert rewards(vs, reward="decoupled", correct_first=True) == pytest.approx(
        [math.sqrt(0.75), 0.0, -math.sqrt(0.75)], rel=1e-5)


def test_rewards_all_wrong():
    vs = [V(False), V(False, 3.0), V(False)]
    assert rollout_classes(vs, shaping()) == ["wrong"] * 3
    assert weights(vs) == [0.0] * 3
    assert rewards(vs) == [0.0] * 3 and rewards(vs, reward="decoupled") == [0.0] * 3
    assert group_advantages(rewards(vs), "zscore") == [0.0] * 3  # no spread, no signal


def test_rewards_single_correct_unmeasured():
    vs = [V(False), V(True), V(False), V(False)]  # CPU: speed unmeasured
    assert weights(vs) == [0.0, 1.0, 0.0, 0.0]
    r = rewards(vs)
    assert r == [0.0, 1.0, 0.0, 0.0]
    # mean 0.25, population std sqrt(0.25 * 0.75) = 0.4330
    assert group_advantages(r, "zscore") == pytest.approx([-1 / math.sqrt(3), math.sqrt(3), -1 / math.sqrt(3),
                                                           -1 / math.sqrt(3)], rel=1e-5)
    assert group_advantages(r, "mean") == pytest.approx([-0.25, 0.75, -0.25, -0.25])
    assert rewards(vs, reward="decoupled") == pytest.approx(group_advantages(r, "zscore"), rel=1e-5)
    # a skipped rollout (None) gets advantage 0 and leaves the others' mean alone
    assert group_advantages([None, 1.0, 0.0], "mean") == [0.0, 0.5, -0.5]


def test_rewards_mixed_decoupled():
    vs = [V(True, 4.0), V(True, 1.0), V(False)]
    # c = [1, 1, 0]: mean 2/3, std sqrt(2)/3 -> [0.7071, 0.7071, -1.4142]
    # s over S+ = [ln4, 0]: z = [1, -1]; 0 for the wrong one
    assert rewards(vs, reward="decoupled") == pytest.approx([1 / math.sqrt(2) + 1, 1 / math.sqrt(2) - 1,
                                                             -math.sqrt(2)], rel=1e-5)
    assert weights(vs, drpo_lambda=1.0) == pytest.approx([0.8, 0.2, 0.0])  # softmax([ln4, 0]) = [4, 1] / 5


def test_a_hack_flagged_verdict_earns_what_a_wrong_one_earns():
    """A correct verdict flagged as a hack (a speedup over the cap) is in S-: no DRPO weight, GRPO reward 0."""
    flagged = Verdict(compiled=True, correct=True, speedup=197.0, flags=["speedup_above_cap"])
    honest = V(True, 3.4)
    vs = [flagged, honest, V(False)]
    assert rollout_classes(vs, shaping()) == ["wrong", "correct", "wrong"]
    assert weights(vs) == [0.0, 1.0, 0.0]
    assert rewards(vs) == pytest.approx([0.0, 1 + math.log(3.4), 0.0])
    assert rewards(vs, reward="decoupled") == rewards([V(False), honest, V(False)], reward="decoupled")
    # a group whose only correct verdict is flagged gets no S+ at all
    assert weights([flagged, V(False)]) == [0.0, 0.0] and rewards([flagged, V(False)]) == [0.0, 0.0]


# ----------------------------------------------------------------------------------------------------
# CUDA: the same suite with timing (skipped without a GPU).


@pytest.fixture(scope="module")
def gpu_batch():
    if not CUDA:
        pytest.skip("needs CUDA")
    with Judge(workers=2, device="cuda", timeout_s=30.0, time_trials=20) as j:
        yield run_batch(j, ORDER)


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA, reason="needs CUDA")
@pytest.mark.parametrize("path", ORDER, ids=os.path.basename)
def test_suite_on_gpu(gpu_batch, path):
    v = gpu_batch[path]
    check(v, path, "cuda")
    if v.correct:
        assert v.speedup is not None and v.runtime_ms > 0 and v.ref_ms > 0
        assert "speed_unmeasured" not in v.flags


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA, reason="needs CUDA")
def test_compile_baselines_on_gpu(tmp_path):
    """Both torch.compile baselines (default and max-autotune) are timed beside eager, give a verdict their
    speedups, go into the BaselineCache, and come from it the next time."""
    task, sol = read(os.path.join(TASKS, "relu_add.py")), read(os.path.join(TASKS, "good", "relu_add.py"))
    cache = str(tmp_path / "baselines.jsonl")
    for cached in (False, True):
        with Judge(workers=1, device="cuda", timeout_s=600.0, time_trials=20, compile_baseline=True,
                   autotune_baseline=True, baseline_cache=cache) as j:
            v = j.verify(task, sol)
        assert v.correct, v.error_msg
        for stem in ("compile", "max_autotune"):
            assert v.timings[f"{stem}_ref_ms"] > 0 and v.timings[f"speedup_vs_{stem}"] > 0, v.timings
            assert v.timings[f"{stem}_ref_ms_from_cache"] is cached
    entry = json.loads(open(cache).read().splitlines()[0])
    assert entry["compile_ms"] > 0 and entry["max_autotune_ms"] > 0


class _FakeCuda:
    """Just enough of torch for reward._cuda_times on a machine without a GPU: a clock that advances by the
    'device time' of each run, events that read it, _sleep and synchronize as no-ops."""

    def __init__(self, run_ms):
        self.now_ms, self.run_ms = 0.0, run_ms
        fake = self

        class Event:
            def __init__(self, enable_timing=False):
                self.t = None

            def record(self):
                self.t = fake.now_ms

            def elapsed_time(self, other):
                return other.t - self.t
        self.cuda = type("cuda", (), {"Event": Event, "_sleep": staticmethod(lambda n: None),
                                      "synchronize": staticmethod(lambda: None)})
        self.Tensor, self.no_grad, self.uint8 = torch.Tensor, torch.no_grad, torch.uint8

    def empty(self, *a, **k):
        return torch.empty(1)

    def run(self, k):
        def fn():
            self.now_ms += self.run_ms[k]
            time.sleep(self.run_ms[k] / 1e3)  # wall time too: the budget is estimated from the warm-ups' wall time
            return torch.zeros(1)
        return fn


@pytest.mark.parametrize("run_ms,budget_s,lo,hi", [((0.01, 0.01), 2.0, 100, 100),   # short: all requested trials
                                                   ((20.0, 30.0), 0.5, 20, 20),     # 50 ms a round: the floor
                                                   ((5.0, 5.0), 1.0, 60, 100),      # 10 ms a round: ~100 in 1 s
                                                   ((100.0, 150.0), 1.0, 5, 5)])    # 250 ms a round: the long floor
def test_timing_budget_cuts_trials_of_long_runs(run_ms, budget_s, lo, hi):
    import reward
    fake = _FakeCuda({"ref": run_ms[0], "new": run_ms[1]})
    fns = {"ref": fake.run("ref"), "new": fake.run("new")}
    seen = []
    times = reward._cuda_times(fake, fns, {"ref": [], "new": []}, lambda i: [], 100, lambda fn, _: fn(),
                               check=lambda i, n, outs, inputs: seen.append((i, n)), budget_s=budget_s)
    n = len(times["new"])
    assert lo <= n <= hi and len(times["ref"]) == n
    assert [i for i, _ in seen] == list(range(n)) and {m for _, m in seen} == {n}  # check knows the real count
    assert abs(sorted(times["new"])[n // 2] - run_ms[1]) < 1e-6  # what was timed is the runs' device time


class _FakeTorch:
    """torch with _FakeCuda's clock in place of torch.cuda (and a small L2-flush buffer): an answer process's timing
    loop (_Answer.time) on a machine without a GPU, its forwards running on the CPU."""

    def __init__(self):
        self.clock = _FakeCuda({})
        self.cuda = self.clock.cuda

    def __getattr__(self, name):
        return getattr(torch, name)

    def empty(self, *a, **k):
        return torch.empty(1) if k.get("device") == "cuda" else torch.empty(*a, **k)


def _answer_on_cpu(monkeypatch, source, get_inputs, *init):
    """An answer process's _Answer for its timing loop on the CPU (_FakeTorch for torch.cuda): the launchers counted
    as in an answer process, ModelNew(*init) of `source` built, get_inputs its task's draws."""
    import reward
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    for cls in (JITFunction, InterpretedFunction):
        monkeypatch.setattr(cls, "run", reward._counting_run(getattr(cls.run, "__wrapped__", cls.run)))
    ns = {}
    exec(compile(source, "answer", "exec"), ns)
    ans = object.__new__(reward._Answer)
    ans.torch, ans.device, ans.printed_chars = _FakeTorch(), "cpu", 0
    ans.OpRecorder = reward._op_recorder_class(torch)
    ans.task = type("task", (), {"get_inputs": staticmethod(get_inputs)})
    ans.model = ns["ModelNew"](*init)
    return ans


SWITCHING_ANSWER = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, after):
        super().__init__()
        self.calls, self.after = 0, after

    def forward(self, x):
        self.calls += 1
        out = torch.empty_like(x)
        if self.calls > self.after[0]:
            if self.after[1] == "torch":
                return x * 2.0
            double_kernel[(1,)](x, out, 0, BLOCK=16)   # a launch that does nothing, torch does the work
            return x * 2.0
        double_kernel[(1,)](x, out, x.numel(), BLOCK=16)
        return out
"""


@pytest.mark.parametrize("after, fails", [((10_000, "honest"), None),
                                          ((3, "torch"), "timed_runs"),   # no launch once the trials are over
                                          ((3, "dummy"), "hybrid_ops")])  # a launch, and torch doing the work
def test_timed_runs_are_audited(monkeypatch, after, fails):
    """The answer process's timing loop on the CPU (torch.cuda faked): each plain call's Triton launches are counted
    and two timed runs, drawn there, are recorded as a trial is, untimed. A forward that turns to
    torch after its first calls (what the trials and the faithfulness trial see) fails the judge's check_timed_path,
    by its launch count or by the recorded run's ops; an honest one passes."""
    import reward
    ans = _answer_on_cpu(monkeypatch, SWITCHING_ANSWER, lambda: [torch.randn(16)], after)
    msg = {"trials": 12, "budget_s": None, "fresh": True, "seed_base": 1, "rotation": [], "on_device": False,
           "policy": "hybrid", "numels": [16], "atol_rtol": {"float32": (1e-2, 1e-2)},
           "kinds": ["plain", "sign", "scale", "slice"] * 3}
    head, tensors = ans.time(msg)
    audits = head["audits"]
    assert len(head["times"]) == 12 - 2 and len(audits) == 2              # recorded in the place of timed runs
    assert len(head["spots"]) <= 5                                        # host copies: k + the last, no more
    assert all(a["launches"] == 1 for a in audits) or after[1] == "torch"
    w = object.__new__(reward._Worker)
    v = reward.Verdict(flags=[])
    task = {"ref_ops": {"mul": 1}}
    if fails is None:
        assert head["launches_min"] == 1
        w.check_timed_path(head, task, {"policy": "hybrid"}, v, launch_floor=1)
        return
    with pytest.raises(reward._WorkerError) as e:
        w.check_timed_path(head, task, {"policy": "hybrid"}, v, launch_floor=1)
    assert e.value.error_type == "torch_fallback" and "policy:timed_runs" in e.value.kw["flags"], str(e.value)
    assert f"rule {fails}" in str(e.value)


def test_timed_runs_draw_widened_inputs_and_check_each_kind():
    """The timed runs' fresh draws are widened by a kind per run, drawn per job from the trials' own kinds (the
    answer never sees the nonce), and the spot checks take one run of each widened kind where their number
    allows: a forward that approximates once the trials are over meets a contrast that catches it in a checked
    run (tests/hacks/sampled_once_timed.py)."""
    import random
    import reward
    task = {"plan": reward.trial_plan(7, "task source", 5)}
    a, b = (reward._Worker.timing_kinds(task, {"nonce": n, "time_trials": 100}) for n in ("one", "two"))
    assert len(a) == 100 and set(a) == {"plain", "sign", "scale", "slice"} and a != b
    assert reward._Worker.timing_kinds(task, {"nonce": "one", "time_trials": 100}) == a     # the worker's = the answer's
    narrowed = {"plan": [dict(e, kind="plain") for e in task["plan"]]}    # widenings that left the task's domain
    assert set(reward._Worker.timing_kinds(narrowed, {"nonce": "one", "time_trials": 20})) == {"plain"}
    for seed in range(50):
        picks = reward._spot_picks(random.Random(seed), len(a), 4, a)
        assert len(picks) == 5 and len(a) - 1 in picks
        assert {"sign", "scale", "slice"} <= {a[i] for i in picks if i != len(a) - 1}
        assert len(reward._spot_picks(random.Random(seed), 30, 1, a[:30])) == 2   # k bounds the checks
    assert reward._spot_picks(random.Random(0), 1, 1, ["slice"]) == {0}


@pytest.mark.parametrize("kind, caught", [("plain", False), ("slice", True)])
def test_an_answer_that_samples_once_the_trials_are_over_fails_a_widened_timed_run(monkeypatch, kind, caught):
    """tests/hacks/sampled_once_timed.py at a small size: its full reduction for the trials' six calls, then a
    mean over every 8th row. Its timed runs (answer process, torch.cuda faked) pass the launch and op audits; on
    plain draws its spot-checked outputs are within 1e-2 too (inputs of little variance here; at KernelBench's
    sizes, of any), on widened ("slice") draws they are not."""
    import reward
    # values that vary little: a mean over every 8th row is within 1e-3 of the whole mean on plain draws
    get_inputs = lambda: [1 + 0.01 * torch.rand(256, 32), 0.01 * torch.rand(256, 32)]   # noqa: E731
    ans = _answer_on_cpu(monkeypatch, read(os.path.join(HERE, "hacks", "sampled_once_timed.py")), get_inputs)
    for _ in range(6):   # the five trials and the faithfulness trial
        ans.model(*get_inputs())
    tol = {"float32": (1e-2, 1e-2)}
    msg = {"trials": 12, "budget_s": None, "fresh": True, "seed_base": 3, "rotation": [], "on_device": False,
           "policy": "hybrid", "numels": [1], "atol_rtol": tol, "kinds": [kind] * 12}
    head, outs = ans.time(msg)
    w = object.__new__(reward._Worker)
    w.torch, w.device, w.isclose, w.equal = torch, "cpu", torch.isclose, torch.equal   # compare's fields
    v = reward.Verdict(flags=[])
    w.check_timed_path(head, {"ref_ops": {"sub": 1, "pow": 1, "mean": 1}}, {"policy": "hybrid"}, v, launch_floor=1)

    def inputs_for(i):   # as the worker draws them (make_inputs)
        torch.manual_seed(msg["seed_base"] + 1 + i)
        return reward.widen_inputs(torch, reward.draw_inputs(torch, get_inputs, "cpu", False), kind,
                                   msg["seed_base"] + 1 + i)
    ref = lambda p, t: torch.mean((p - t) ** 2)   # noqa: E731
    errors = []
    for j, i in enumerate(head["spots"]):
        try:
            w.compare(outs[j], ref(*inputs_for(i)), tol, f"timed run {i}", v)
        except reward._WorkerError as e:
            errors.append(e.error_type)
    assert head["spots"] and (set(errors) == {"mismatch"} if caught else not errors), errors


@pytest.mark.slow
def test_verify_bench_pool_fresh_and_cli_agree(monkeypatch, capsys):
    """bench.py verify: the pool, fresh worker processes and one `reward.py` process per candidate give the same
    verdicts (here one known-good solution and one cheat, on the CPU)."""
    import bench
    monkeypatch.setattr(sys, "argv", ["bench.py", "verify", "--device", "cpu", "--n", "2", "--workers", "1",
                                      "--spare-workers", "0", "--cli"])
    bench.main()
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["agree"] and out["n"] == 2 and out["n_correct"] == 1
    assert out["cli_s"] > 0 and out["ratio_cli"] > 0 and out["pool_s"] > 0
    # the Judge's ready log: the pool's first worker was up after the zygote, inside the pool's wall time
    start = out["starts"]["pool"]
    assert start["workers_started"] >= 1 and start["worker_init_s_median"] >= 0
    assert 0 < start["zygote_ready_s"] <= start["first_ready_s"] < out["pool_s"]
    assert start["first_ready_s"] == pytest.approx(out["pool_startup_s"], abs=0.01)


def test_kernelbench_tolerance_flag(judge):
    """An answer 2e-3 off is correct at the default 1e-2 but flagged "fails_kb_tol" (KernelBench's 1e-4);
    the exact answer is not flagged."""
    task = read(os.path.join(TASKS, "relu_add.py"))
    good = read(os.path.join(TASKS, "good", "relu_add.py"))
    off = good.replace("tl.maximum(x * 2.0 + y, 0.0)", "tl.maximum(x * 2.0 + y, 0.0) + 2e-3")
    assert off != good
    exact, loose = judge.verify_many([(task, good), (task, off)], progress=False)
    assert exact.correct and "fails_kb_tol" not in exact.flags
    assert loose.correct and "fails_kb_tol" in loose.flags, (loose.error_msg, loose.flags)


def test_fallback_watch_rule():
    """The torch_fallback rule (b) on hand-made tensors: a torch output recorded before a later launch
    that equals the output is named; one made after the last launch is not; an output the tolerance cannot tell
    from a constant is exempt; a sample is a copy in row-major order taken when the op ran."""
    import reward
    tol = {"float32": (1e-2, 1e-2)}
    torch.manual_seed(0)
    try:
        reward._Launches.count = 0
        w = reward._FallbackWatch(torch, [12], "cpu")
        h = torch.tensor([[-1.0, 2.0, -3.0, 4.0], [5.0, -6.0, 7.0, -8.0], [9.0, 10.0, -11.0, 12.0]])
        w.record("addmm", h)
        w.record("sum", torch.ones(5))               # another size: not kept
        w.record("sort", h.sort(dim=1))              # a tuple of two tensors of the output's size: both kept
        reward._Launches.count = 1                   # a Triton launch
        w.record("relu", h.relu())                   # after the last launch
        assert w.answered_by([h.clone()], tol) == "addmm"                  # the kernel only copied it
        assert w.answered_by([h * (1 + 5e-3)], tol) == "addmm"            # ... or rescaled within the tolerance
        assert w.answered_by([h.relu()], tol) is None                      # torch made it after the last launch
        assert w.answered_by([h + 0.5], tol) is None                       # the kernel changed every value
        assert w.answered_by([h.sort(dim=1).values], tol) == "sort"
        assert w.answered_by([h, h.relu()], tol) is None                   # a tuple: every output must match
        assert w.answered_by([h.int()], tol) == "addmm"                    # integers compare exactly ...
        assert w.answered_by([h.int() + 1], {"int32": (1.0, 1.0), **tol}) is None  # ... whatever the table says
        h.relu_()                                    # a kernel rewrites the torch tensor in place
        assert w.answered_by([h], tol) is None       # the sample is addmm's answer, not the final one

        w = reward._FallbackWatch(torch, [12, 10_000], "cpu")
        z, tiny, t = torch.zeros(12), torch.randn(12) * 1e-3, torch.arange(12.0).reshape(4, 3).t()
        big = torch.randn(100, 100)
        for name, x in [("sub", z), ("mul", tiny), ("permute", t), ("gelu", big)]:
            w.record(name, x)
        reward._Launches.count = 2
        assert w.answered_by([torch.zeros(12)], tol) is None                 # a constant output is exempt
        assert w.answered_by([torch.randn(12) * 1e-3], tol) is None          # ... also within the tolerance
        assert w.answered_by([t.contiguous()], tol) == "permute"             # row-major order, whatever the strides
        assert w.answered_by([torch.arange(12.0)], tol) is None              # same values, another order
        assert w.answered_by([big.clone()], tol) == "gelu"                   # sampled: 4096 of 10,000 positions
        half = big.clone()
        half[::2] += 1.0
        assert w.answered_by([half], tol) is None
    finally:
        reward._Launches.count = 0


@pytest.mark.parametrize("cls, n_args, why", [
    ("class ModelNew(nn.Module):\n    def __init__(self, a, b, c=1):\n        pass", 2, None),
    ("class ModelNew(nn.Module):\n    def __init__(self, a, b, c=1):\n        pass", 3, None),
    ("class ModelNew(nn.Module):\n    def __init__(self, a, b, c=1):\n        pass", 4, "too many positional arguments"),
    ("class ModelNew(nn.Module):\n    def __init__(self, a, b, c=1):\n        pass", 1, "missing a required argument: 'b'"),
    ("class ModelNew(nn.Module):\n    def __init__(self, *args):\n        pass", 7, None),
    ("class ModelNew(nn.Module):\n    def __init__(self, a, *, k):\n        pass", 1, "missing a required argument: 'k'"),
    ("class ModelNew(nn.Module):\n    def __init__(self, a, *, k=2, **kw):\n        pass", 1, None),
    ("class ModelNew(nn.Module):\n    pass", 0, None),
    ("class ModelNew(torch.nn.Module):\n    pass", 2, "too many positional arguments"),
    # beyond a plain reading: left to the runtime check
    ("class ModelNew(Base):\n    pass", 2, None),
    ("class ModelNew(nn.Module, metaclass=Meta):\n    def __init__(self):\n        pass", 2, None),
    ("@deco\nclass ModelNew(nn.Module):\n    def __init__(self):\n        pass", 2, None),
    ("class ModelNew(nn.Module):\n    __init__ = setup", 2, None),
    ("class ModelNew(nn.Module):\n    def __new__(cls, *a):\n        pass\n    def __init__(self):\n        pass", 2, None),
    ("class ModelNew(nn.Module):\n    def __init__(self):\n        pass\nModelNew = Other", 2, None),
    ("def f(:", 2, None),
])
def test_init_signature_error_reads_plain_constructors_only(cls, n_args, why):
    """The static constructor check the judge runs before computing a reference (the lab record: 41 of 100
    KernelBench level-1 answers needed the exclusive retry, 7 of them for an answer whose constructor did not
    fit): it must agree with inspect's binding where the class is plain and abstain otherwise."""
    assert init_signature_error("import torch\nimport torch.nn as nn\n" + cls, n_args) == why


def test_wrong_constructor_fails_before_the_reference_is_computed(judge):
    """A plain constructor that cannot take the task's arguments is rejected from the AST: no reference time."""
    v = judge.verify_many([(read(os.path.join(TASKS, "linear_relu.py")),
                            read(os.path.join(TASKS, "faults", "wrong_signature.py")))], progress=False)[0]
    assert v.error_type == "signature_mismatch" and "static:signature" in v.flags
    assert "ref_s" not in (v.timings or {})


def test_unbuildable_answers_fail_before_the_reference_is_computed():
    """The answer process imports the answer and builds ModelNew before the worker computes the task's
    reference: an answer that fails at import, lacks ModelNew, cannot bind the task's init inputs at runtime or
    raises in its constructor gets its usual error type with no reference computed (no ref_s); a constructor
    that reads a value passes; good answers still pass in the same worker."""
    task = read(os.path.join(TASKS, "relu_add.py"))
    good = read(os.path.join(TASKS, "good", "relu_add.py"))
    wrong_init = good.replace("    def __init__(self):\n        super().__init__()",
                              "    def __init__(self, size):\n        super().__init__()")
    cases = {"import_error.py": "import_error", "wrong_class_name.py": "missing_model_new",
             "init_exception.py": "init_error"}
    reads_value = good.replace("super().__init__()",
                               "super().__init__()\n        self.one = float(torch.ones(1).sum())")
    assert reads_value != good and wrong_init != good
    pairs = [(task_for(os.path.join(TASKS, "faults", name)), read(os.path.join(TASKS, "faults", name)))
             for name in cases] + [(task, wrong_init), (task, reads_value), (task, good)]
    with Judge(workers=1, device="cpu", timeout_s=20.0) as j:
        vs = j.verify_many(pairs, progress=False)
    for (name, error_type), v in zip(list(cases.items()) + [("wrong_init", "signature_mismatch")], vs):
        assert v.error_type == error_type, (name, v.error_type, v.flags, v.error_msg)
        assert "ref_s" not in (v.timings or {}), name
    assert vs[-2].correct, vs[-2].error_msg
    assert vs[-1].correct, vs[-1].error_msg


# ----------------------------------------------------------------------------------------------------
# A CUDA error a candidate leaves pending must not reach the next job on the same worker.

class _DamagedCuda:
    """torch.cuda of a worker whose context a candidate's kernel damaged: synchronize raises, as CUDA's sticky
    errors (an illegal memory access) do from the first call that syncs after them."""

    def __init__(self, damaged, reserved=4 << 30):
        self.damaged, self.emptied, self.reserved = damaged, False, reserved

    def synchronize(self):
        if self.damaged:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")

    def memory_reserved(self):
        return self.reserved

    def empty_cache(self):
        self.emptied = True


@pytest.mark.parametrize("damaged", [False, True])
def test_a_pending_cuda_error_after_a_verdict_replaces_the_worker(damaged):
    from types import SimpleNamespace
    from reward import _Worker
    w = object.__new__(_Worker)   # only return_gpu_cache's state: no worker process, no GPU
    w.torch, w.n_candidates = SimpleNamespace(cuda=_DamagedCuda(damaged)), 3
    v = Verdict(error_type="shape_mismatch", error_msg="trial 0: shape (2,) != (3,)")
    w.return_gpu_cache({"recycle_every": 50}, v)
    assert v.error_type == "shape_mismatch"   # the verdict stands either way
    assert ("cuda_context_damaged" in v.flags) == damaged
    assert (w.n_candidates >= 50) == damaged  # recycled before its next job
    assert w.torch.cuda.emptied == (not damaged)


@pytest.mark.parametrize("reserved_mb, emptied", [(100, False), (600, True)])
def test_an_idle_worker_keeps_little_of_its_allocator_cache(reserved_mb, emptied):
    """After a job a worker's allocator gives back all but KEEP_CACHE_BYTES: an exclusive retry counts the free
    GPU memory beside the idle workers, and under the old 2 GB threshold each could keep GBs of it."""
    from types import SimpleNamespace
    from reward import _Worker
    w = object.__new__(_Worker)
    w.torch, w.n_candidates = SimpleNamespace(cuda=_DamagedCuda(False, reserved=reserved_mb << 20)), 0
    w.return_gpu_cache({"recycle_every": 50}, Verdict(compiled=True, correct=True))
    assert w.torch.cuda.emptied == emptied


def test_an_exclusive_job_counts_its_own_first_input_and_output_as_free():
    """ref_gpu_trials' `free` is the memory the exclusive job had as it started, read after its first input and
    output exist: the driver's free memory plus what this worker's allocator holds. a H100 level-1
    retries passed the driver's figure alone, counted that input and output twice (they are in the working set
    too) and kept 0-2 of an activation's five 6.4 GB outputs on the GPU, where four fit."""
    from types import SimpleNamespace
    import reward
    gb = 1 << 30

    class Cuda:
        def mem_get_info(self):
            return int(63.6 * gb), 80 * gb

        def memory_reserved(self):
            return int(12.9 * gb)   # the first input and output, 6.4 GB each, and the model

    w = object.__new__(reward._Worker)
    w.torch = SimpleNamespace(cuda=Cuda())
    free = w.free_at_job_start()
    assert abs(free - 76.5 * gb) < 0.01 * gb
    relu = dict(out_bytes=6.4 * gb, trials=5, working=(4 + 2) * 6.4 * gb, cap=79.2 * gb, host_room=70 * gb,
                exclusive=True)
    assert reward.ref_gpu_trials(**relu, free=free) == 4
    assert reward.ref_gpu_trials(**relu, free=63.6 * gb) == 2   # the driver's figure alone



class _FreeingCuda:
    """torch.cuda of a worker for the memory-ordering tests: records when the cache is emptied; mem_get_info
    reports `free` values in turn (the last one repeats)."""

    def __init__(self, events, free=(70 << 30,)):
        self.events, self.free = events, list(free)

    def synchronize(self):
        pass

    def memory_reserved(self):
        return 40 << 30

    def empty_cache(self):
        self.events.append("empty_cache")

    def mem_get_info(self):
        return (self.free.pop(0) if len(self.free) > 1 else self.free[0]), 80 << 30


@pytest.mark.parametrize("exclusive, error", [(False, None), (True, None), (False, "oom"), (True, "oom")])
def test_a_job_gives_its_gpu_memory_back_before_the_gpu_lock(monkeypatch, exclusive, error):
    """A job's GPU memory goes back while its worker holds the GPU lock (an exclusive job's hold, else a shared one
    taken for it after the verdict), so the next exclusive retry finds it free: a H100 saw three level-1 retries run out of memory beside the 56-61 GB a finished
    retry's worker had not given back yet. A worker replaced after its job (every exclusive one, every verdict of
    the recycle kind) empties its caches too, and keeps the lock until it exits (_serve: right after the
    result), so the lock goes with its process: a H100 saw two retries run out of memory beside
    68.8 GB another worker still held. After an exclusive job or a recycle-kind verdict every cached task goes;
    after a shared job's verdict a small cached task stays."""
    from types import SimpleNamespace
    import reward
    events = []

    class Lock:
        held = None

        def exclusive(self):
            events.append("lock")
            self.held = "exclusive"

        def shared(self):
            events.append("lock")
            self.held = "shared"

        def release(self):
            events.append(("release", sorted(w.tasks)))
            self.held = None

    def verify(job):
        events.append("verify")
        if error:
            raise reward._WorkerError(error, "CUDA out of memory")
        return Verdict(compiled=True, correct=True)

    w = object.__new__(reward._Worker)
    w.device, w.fd_out, w.n_candidates, w.caps, w._paused = "cuda", None, 0, {}, 0
    w.torch = SimpleNamespace(cuda=_FreeingCuda(events))
    w.tasks = {"small": {"nbytes": 1 << 20}}
    monkeypatch.setattr(reward, "_send", lambda fd, obj: None)
    lock = Lock()
    w.gpu_lock, w.make_room, w.precheck = (lambda job: lock), (lambda job, ex: None), (lambda job: None)
    w.verify, w._patched = verify, (lambda: [])
    job = {"nonce": "n", "exclusive": exclusive, "caps": {}, "task": "t", "seed": 0, "trials": 5,
           "task_queued": False, "recycle_errors": sorted(reward.RECYCLE_ERRORS), "recycle_every": 50}
    out = w.run_job(job)
    replaced = exclusive or error is not None
    assert out["verdict"]["correct"] == (error is None) and out["recycle"] == replaced
    start = ["lock", "verify"] if exclusive else ["verify", "lock"]
    assert events == start + ["empty_cache"] + ([] if replaced else [("release", ["small"])])
    assert (lock.held is not None) == replaced and (not w.tasks) == replaced


def test_a_worker_keeps_the_gpu_lock_on_its_last_job_only():
    """The job that reaches recycle_every also replaces the worker, so it keeps the lock; the one before it
    releases it."""
    from types import SimpleNamespace
    import reward
    w = object.__new__(reward._Worker)
    job = {"exclusive": False, "recycle_errors": ["oom"], "recycle_every": 3}
    ok = Verdict(compiled=True, correct=True)
    w.n_candidates = 1
    assert not w.will_recycle(job, False, ok)
    w.n_candidates = 2
    assert w.will_recycle(job, False, ok)
    w.n_candidates = 0
    assert w.will_recycle(job, True, ok) and w.will_recycle(job, False, Verdict(error_type="oom"))
    assert w.will_recycle(job, True, None) and not w.will_recycle(job, False, None)


def test_an_exclusive_job_waits_while_gpu_memory_is_still_being_given_back():
    """settle_gpu_memory polls the free GPU memory until it stops growing (a replaced worker's memory comes
    back at its exit), and returns after one poll where nothing is given back."""
    from types import SimpleNamespace
    import reward
    w = object.__new__(reward._Worker)
    cuda = _FreeingCuda([], free=[10 << 30, 30 << 30, 60 << 30, 70 << 30, 70 << 30, 5 << 30])
    w.torch = SimpleNamespace(cuda=cuda)
    w.settle_gpu_memory(step_s=0.0)
    assert cuda.free == [5 << 30]          # read until two polls agreed, and no further
    cuda.free = [70 << 30, 70 << 30, 1 << 30]
    w.settle_gpu_memory(step_s=0.0)
    assert cuda.free == [1 << 30]


_OOB_SHAPE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def far_store_kernel(out_ptr):
    tl.store(out_ptr + (1 << 40), 1.0)   # far outside any allocation: an illegal address, reported late


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        far_store_kernel[(1,)](out)
        return out[:-1]   # the wrong shape: a verdict read from metadata, with no sync
'''


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA, reason="needs CUDA")
def test_illegal_access_does_not_fail_the_next_tasks_reference_on_gpu():
    good = os.path.join(TASKS, "good", sorted(os.listdir(os.path.join(TASKS, "good")))[0])
    with Judge(workers=1, device="cuda", timeout_s=60.0) as j:
        bad, after = j.verify_many([(read(os.path.join(TASKS, "relu_add.py")), _OOB_SHAPE),
                                    (task_for(good), read(good))], progress=False)
    assert not bad.correct
    check(after, good, "cuda")


# --- reward.gpu_work: a trainer's GPU work under the judges' timing lock (--pipeline-parallel-ablation) -----------

@pytest.fixture
def fake_gpu(tmp_path, monkeypatch):
    """gpu_work as on a CUDA machine (one GPU, uuid 'fake'), its lock files in tmp_path."""
    import types

    import torch

    import reward
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: types.SimpleNamespace(uuid="fake"))
    synced = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: synced.append(1))
    monkeypatch.setattr(reward, "judge_lock_dir", lambda: str(tmp_path))
    monkeypatch.setattr(reward, "_HOLD", {"locks": {}, "depth": 0})
    return reward, reward._GpuLock(str(tmp_path), "fake"), synced


def test_gpu_work_keeps_timings_out_and_waits_for_them(fake_gpu):
    """While a trainer works on the GPU no judge worker can take the exclusive (timing) hold; a worker's shared
    (correctness) hold can; nested holds are one; the GPU is synchronised before the hold goes. And while a timing
    holds the GPU, the trainer's work waits for it."""
    import fcntl
    import threading

    reward, judge_lock, synced = fake_gpu

    def exclusive_now():
        try:
            fcntl.flock(judge_lock.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(judge_lock.lock, fcntl.LOCK_UN)
        return True

    with reward.gpu_work():
        assert not exclusive_now()
        with reward.gpu_work():  # nested: neither waits on the gate nor releases early
            assert reward._HOLD["depth"] == 2
        assert not exclusive_now() and not synced
        fcntl.flock(judge_lock.lock, fcntl.LOCK_SH | fcntl.LOCK_NB)  # correctness work goes on beside it
        fcntl.flock(judge_lock.lock, fcntl.LOCK_UN)
    assert exclusive_now() and synced == [1] and reward._HOLD["depth"] == 0
    with reward.gpu_work("cpu"):  # CPU work holds nothing
        assert exclusive_now()

    judge_lock.exclusive()  # a timing in progress
    started = threading.Event()

    def trainer():
        with reward.gpu_work():
            started.set()

    t = threading.Thread(target=trainer)
    t.start()
    assert not started.wait(0.5)
    judge_lock.release()
    assert started.wait(5)
    t.join()


def test_gpu_work_is_a_no_op_without_cuda(tmp_path, monkeypatch):
    import torch

    import reward
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(reward, "judge_lock_dir", lambda: str(tmp_path))
    with reward.gpu_work():
        assert reward._HOLD["depth"] == 0
    assert not os.listdir(tmp_path)


def test_gpu_timing_holds_the_gpu_alone(fake_gpu):
    """gpu_timing (search.py's in-process timings): while it runs no worker's correctness work (shared) and no
    trainer's gpu_work can start; inside gpu_work it refuses instead of waiting on its own hold."""
    import fcntl

    reward, judge_lock, _ = fake_gpu
    with reward.gpu_timing():
        with pytest.raises(BlockingIOError):
            fcntl.flock(judge_lock.lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    fcntl.flock(judge_lock.lock, fcntl.LOCK_SH | fcntl.LOCK_NB)  # free again
    fcntl.flock(judge_lock.lock, fcntl.LOCK_UN)
    with reward.gpu_work(), pytest.raises(RuntimeError, match="inside gpu_work"):
        with reward.gpu_timing():
            pass
