"""eval.py: metrics against hand-computed tables, the CLI on hand-written solutions (CPU), rerun-skip, bad flags.

tests/eval_data/tasks holds 7 tiny KernelBench-format tasks; tests/eval_data/solutions answers them:
  1_relu_add, 1_scale_shift, abs_neg  correct Triton
  1_softmax                           wrong numerics (exp without the row-sum division)  -> mismatch, compiled
  2_add_tanh                          syntax error                                     -> syntax_error
  2_mul_clamp                         calls a Triton function with too few operands     -> kernel_error
  2_sub_abs                           no file                                           -> missing_solution
"""
import json
import math
import os
import subprocess
import sys

import pytest

import eval as ev
import policy as P
from reward import Verdict, judge_candidates, static_check

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TASKS = os.path.join(HERE, "eval_data", "tasks")
SOLUTIONS = os.path.join(HERE, "eval_data", "solutions")

# Hand-computed: level -> (tasks, correct, compiled share, Acc). The directory "tasks" names no level, so every
# task is level "-" (the file names' leading numbers are not levels).
EXPECTED = {"-": (7, 3, 4 / 7, 3 / 7), "overall": (7, 3, 4 / 7, 3 / 7)}
EXPECTED_ERRORS = {"1_relu_add": None, "1_scale_shift": None, "abs_neg": None, "1_softmax": "mismatch",
                   "2_add_tanh": "syntax_error", "2_mul_clamp": "kernel_error", "2_sub_abs": "missing_solution"}


def check_cpu_table(agg):
    for name, (n, c, compiled, acc) in EXPECTED.items():
        a = agg["overall"] if name == "overall" else agg["levels"][name]
        assert (a["n_tasks"], a["n_correct"]) == (n, c), name
        assert a["compiled"] == pytest.approx(compiled) and a["acc"] == pytest.approx(acc), name
        assert a["fast_0"] == pytest.approx(acc) and a["acc_kb_tol"] == pytest.approx(acc)  # no fails_kb_tol flag
        assert a["speed_measured"] is False
        assert not any(k.startswith(("fast_1", "fast_2", "geomean", "pass@")) for k in a), a  # absent, not 0
    assert list(agg["levels"]) == ["-"]


# ----------------------------------------------------------------------------------------------------
# Metrics


def test_pass_at_k_hand_computed():
    assert ev.pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert ev.pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)   # 1 - C(3,2)/C(5,2)
    assert ev.pass_at_k(5, 2, 3) == pytest.approx(1 - 1 / 10)   # 1 - C(3,3)/C(5,3)
    assert ev.pass_at_k(5, 2, 4) == 1.0                          # fewer than k failures
    assert ev.pass_at_k(4, 0, 2) == 0.0 and ev.pass_at_k(3, 3, 1) == 1.0
    with pytest.raises(ValueError):
        ev.pass_at_k(2, 1, 3)
    # train.py's held-out pass@N takes k = n: 1 with any correct sample, else 0
    assert ev.pass_at_k(4, 0, 4) == 0.0 and ev.pass_at_k(4, 1, 4) == 1.0


def test_mean_ci95_hand_computed():
    mu, half = ev.mean_ci95([0.6, 0.7, 0.8])
    assert mu == pytest.approx(0.7) and half == pytest.approx(4.303 * 0.1 / math.sqrt(3))  # t(2) = 4.303, sd 0.1
    assert ev.mean_ci95([0.5, None]) == (0.5, None) and ev.mean_ci95([]) == (None, None)


def test_geomean_and_fast_p_hand_computed():
    assert ev.geomean([2.0, 0.5, 1.25, 3.2]) == pytest.approx(math.sqrt(2))
    assert ev.geomean([]) is None
    with pytest.raises(ValueError):
        ev.geomean([1.0, 0.0])
    rows = [{"correct": True, "speedup": 2.0}, {"correct": False, "speedup": 5.0}, {"correct": True, "speedup": None}]
    assert ev.fast_p(rows, 0) == pytest.approx(2 / 3)   # p = 0: every correct row, timed or not
    assert ev.fast_p(rows, 1) == pytest.approx(1 / 3)   # an incorrect fast row never counts
    assert ev.fast_p(rows, 2) == 0.0                    # strictly greater than p


def _row(level, correct, compiled, speedup=None, vs_compile=None, n_samples=1, n_correct=None):
    return {"level": level, "correct": correct, "compiled": compiled, "speedup": speedup,
            "speedup_vs_compile": vs_compile, "n_samples": n_samples,
            "n_correct": int(correct) if n_correct is None else n_correct}


def test_aggregate_with_speedups_hand_computed():
    rows = [_row("1", True, True, 2.0, 1.0), _row("1", True, True, 0.5, 0.25), _row("1", False, True),
            _row("2", True, True, 1.25, 0.8), _row("2", False, False), _row("2", True, True, 3.2, 2.0)]
    agg = ev.aggregate_by_level(rows, speed_measured=True, compile_measured=True)
    o = agg["overall"]
    assert o["n_tasks"] == 6 and o["compiled"] == pytest.approx(5 / 6) and o["acc"] == pytest.approx(4 / 6)
    assert [o[f"fast_{p}"] for p in ("0", "1", "1.5", "2")] == pytest.approx([4 / 6, 3 / 6, 2 / 6, 1 / 6])
    assert o["geomean_speedup"] == pytest.approx(4.0 ** 0.25)           # (2 * 0.5 * 1.25 * 3.2) ** (1/4)
    assert [o[f"fast_{p}_vs_compile"] for p in ("1", "1.5", "2")] == pytest.approx([1 / 6, 1 / 6, 0.0])
    assert o["geomean_speedup_vs_compile"] == pytest.approx(0.4 ** 0.25)  # 1 * 0.25 * 0.8 * 2
    l1, l2 = agg["levels"]["1"], agg["levels"]["2"]
    assert [l1[f"fast_{p}"] for p in ("0", "1", "1.5", "2")] == pytest.approx([2 / 3, 1 / 3, 1 / 3, 0.0])
    assert [l2[f"fast_{p}"] for p in ("0", "1", "1.5", "2")] == pytest.approx([2 / 3, 2 / 3, 1 / 3, 1 / 3])
    assert l1["geomean_speedup"] == pytest.approx(1.0) and l2["geomean_speedup"] == pytest.approx(2.0)
    # No correct task but speed measured: fast_p is a real 0, the geomean undefined.
    none = ev.aggregate([_row("1", False, True)], speed_measured=True)
    assert none["fast_1"] == 0.0 and none["geomean_speedup"] is None
    # Speed not measured: fast_p for p > 0 and the geomean are absent.
    cpu = ev.aggregate([_row("1", True, True), _row("1", False, False)], speed_measured=False)
    assert cpu["fast_0"] == cpu["acc"] == 0.5 and "fast_1" not in cpu and "geomean_speedup" not in cpu


def test_aggregate_pass_at_k_over_tasks():
    rows = [_row("1", c > 0, True, n_samples=4, n_correct=c) for c in (0, 1, 4, 2)]
    o = ev.aggregate(rows, speed_measured=False)
    assert o["pass@1"] == pytest.approx((0 + 0.25 + 1 + 0.5) / 4)
    assert o["pass@2"] == pytest.approx((0 + 0.5 + 1 + 5 / 6) / 4)   # 1 - C(n-c,2)/C(4,2) per task
    assert o["pass@4"] == pytest.approx(0.75)
    assert "pass@3" not in o and "pass@8" not in o


def test_acc_kb_tol_hand_computed():
    """Acc at KernelBench's fp32 tolerance: correct rows without the judge's fails_kb_tol flag, over ALL rows."""
    rows = [dict(_row("1", True, True), flags=[]), dict(_row("1", True, True), flags=["fails_kb_tol"]),
            dict(_row("1", True, True), flags=["speedup_above_cap"]), dict(_row("2", False, True), flags=["fails_kb_tol"]),
            _row("2", False, False)]  # a row without flags at all (an older results.jsonl)
    assert ev.acc_kb_tol(rows) == pytest.approx(2 / 5) and ev.acc_kb_tol([]) is None
    agg = ev.aggregate_by_level(rows, speed_measured=False)
    assert agg["overall"]["acc"] == pytest.approx(3 / 5) and agg["overall"]["acc_kb_tol"] == pytest.approx(2 / 5)
    assert agg["levels"]["1"]["acc_kb_tol"] == pytest.approx(2 / 3) and agg["levels"]["2"]["acc_kb_tol"] == 0.0


def test_level_comes_from_directory_or_flag(tmp_path):
    import search

    assert search.level_of_path("/x/KernelBench/level2") == "2" and search.level_of_path("/x/level1/") == "1"
    assert search.level_of_path("/x/kb_level_3_small") == "3" and search.level_of_path(TASKS) is None
    assert search.level_of_path("/x/level2/sub") is None  # the last component only
    kb = tmp_path / "KernelBench" / "level1"
    kb.mkdir(parents=True)
    for name in ("16_Matmul_with_transposed_A.py", "1_relu_add.py"):
        (kb / name).write_text(open(os.path.join(TASKS, "1_relu_add.py")).read())
    assert {r["level"] for r in ev.load_tasks(str(kb), None)} == {"1"}  # not "16"
    assert {r["level"] for r in ev.load_tasks(TASKS, None)} == {None}
    assert {ev.task_level(r) for r in ev.load_tasks(TASKS, None, level="2")} == {"2"}
    assert {r["level"] for r in ev.load_tasks(str(kb / "1_relu_add.py"), None)} == {"1"}


def test_baseline_cache_flag(tmp_path, monkeypatch):
    """--baseline-cache: XDG default, 'none' disables, and the Judge gets it only if it takes the keyword."""
    import reward

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ev.default_baseline_cache() == str(tmp_path / "xdg" / "drtriton-lite" / "baselines.json")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert ev.default_baseline_cache() == os.path.expanduser("~/.cache/drtriton-lite/baselines.json")
    base = ["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", str(tmp_path / "o")]
    args = ev.check_args(ev.build_parser().parse_args(base + ["--baseline-cache", "none"]))
    assert args.baseline_cache is None
    monkeypatch.chdir(tmp_path)
    args = ev.check_args(ev.build_parser().parse_args(base + ["--baseline-cache", "c.json"]))
    assert args.baseline_cache == str(tmp_path / "c.json")  # absolute: the judge's workers run elsewhere

    class OldJudge:
        def __init__(self, workers=2, device="cpu", timeout_s=60.0, policy="hybrid", trials=5, time_trials=100,
                     compile_baseline=False, seed=0):
            pass

    class NewJudge(OldJudge):
        def __init__(self, *a, baseline_cache=None, **kw):
            super().__init__(*a, **kw)

    monkeypatch.setattr(reward, "Judge", OldJudge)
    assert "baseline_cache" not in ev.judge_kwargs(args)
    monkeypatch.setattr(reward, "Judge", NewJudge)
    assert ev.judge_kwargs(args)["baseline_cache"] == str(tmp_path / "c.json")


def test_relative_paths_become_absolute(tmp_path, monkeypatch):
    """run.json is re-read on resume, maybe from another directory: tasks, out and policy paths are absolute."""
    import shutil

    shutil.copytree(SOLUTIONS, tmp_path / "sol")
    shutil.copytree(TASKS, tmp_path / "tasks")
    monkeypatch.chdir(tmp_path)
    args = ev.check_args(ev.build_parser().parse_args(["--tasks", "tasks", "--policy", "solutions:sol", "--out", "o"]))
    assert (args.tasks, args.out, args.policy) == (str(tmp_path / "tasks"), str(tmp_path / "o"),
                                                   f"solutions:{tmp_path / 'sol'}")
    assert ev._identity({"tasks": "tasks", "policy": "solutions:sol"})["policy"] == args.policy


def test_task_row_picks_fastest_correct_sample():
    vs = [Verdict(compiled=True, error_type="mismatch"), Verdict(compiled=True, correct=True, speedup=1.5),
          Verdict(compiled=True, correct=True, speedup=2.5, timings={"speedup_vs_compile": 1.1})]
    row = ev.task_row({"id": "3_x", "level": None}, vs)
    assert (row["best_sample"], row["speedup"], row["speedup_vs_compile"]) == (2, 2.5, 1.1)
    # KernelBench's "3_x" is task 3 of its level, not level 3: no level given is "-"
    assert (row["level"], row["n_samples"], row["n_correct"], row["n_compiled"]) == ("-", 3, 2, 3)
    row = ev.task_row({"id": "x", "level": 5}, [Verdict(error_type="syntax_error"), Verdict(compiled=True)])
    assert (row["best_sample"], row["level"], row["correct"]) == (1, "5", False)


def test_reference_policy_is_plain_pytorch_which_the_judge_rejects():
    src = open(os.path.join(TASKS, "1_softmax.py")).read()
    [[cand]] = P.ReferencePolicy().propose([{"id": "t", "source": src}], 1, 0)
    assert "class ModelNew(nn.Module)" in cand["text"] and "Model(" not in cand["text"].replace("ModelNew(", "")
    assert static_check(cand["text"])[0] == "no_triton_kernel"  # reward.py has no reference mode


def test_resolve_checkpoint_layouts(tmp_path):
    step = tmp_path / "run" / "checkpoints" / "step_000010" / "policy"
    step.mkdir(parents=True)
    (step / "policy.json").write_text("{}")
    (tmp_path / "run" / "checkpoints" / ".tmp-step_000020-1" / "policy").mkdir(parents=True)  # half-written
    assert P.resolve_checkpoint(str(tmp_path / "run")) == str(step)
    assert P.resolve_checkpoint(str(step.parent)) == str(step)
    assert P.resolve_checkpoint(str(step)) == str(step)
    assert P.resolve_checkpoint(str(tmp_path)) is None


def test_report_and_plots_with_measured_speed(tmp_path):
    rows = [dict(_row("2", True, True, 2.0, 1.0), task_id="a", error_type=None, flags=["fails_kb_tol"]),
            dict(_row("2", False, True), task_id="b", error_type="mismatch",
                 error_msg="max abs err 0.5 | at index (0, 3)\nsecond line")]
    agg = ev.aggregate_by_level(rows, True, True)
    run = {"args": {"policy": "p", "tasks": "t", "device": "cuda", "judge_policy": "hybrid", "trials": 5,
                    "timeout_s": 60.0, "workers": 1, "time_trials": 100, "baseline": "eager,compile", "samples": 1,
                    "search": False}, "argv": ["python", "eval.py"], "time": "now", "python": "3",
           "versions": {"torch": "x"}, "gpus": [{"name": "NVIDIA H200"}]}
    plots = ev.write_plots(str(tmp_path), rows, compile_measured=True)
    assert [os.path.basename(p) for p in plots] == ["speedup_hist.png", "fast_p_curve.png"]
    assert all(os.path.getsize(p) > 1000 for p in plots)
    ev.write_report(str(tmp_path), rows, agg, run, True, True, plots)
    report = (tmp_path / "report.md").read_text()
    # Acc 50%, Acc at 1e-4 0% (the one correct task is outside KernelBench's tolerance), fast_1/1.5/2, geomean
    assert "NVIDIA H200" in report and "| 2 | 2 | 100.0% | 50.0% | 0.0% | 50.0% | 50.0% | 0.0% | 2.000x |" in report
    # every failed task named with its cause, on one line (the message's pipe escaped)
    assert "| b | 2 | mismatch | max abs err 0.5 \\| at index (0, 3) second line |" in report
    assert "not measured" not in report and "![speedup_hist.png]" in report


# ----------------------------------------------------------------------------------------------------
# The CLI on CPU: one full run (subprocess, as a user runs it), then resumes in-process.


def run_main(argv, capsys):
    assert ev.main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.mark.slow
def test_cli_table_rerun_skip_and_torn_tail(tmp_path, capsys):
    out = str(tmp_path / "ev")
    argv = ["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", out, "--workers", "2", "--timeout-s", "60"]
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "eval.py")] + argv, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    agg = json.loads(proc.stdout.strip().splitlines()[-1])
    check_cpu_table(agg)
    assert (agg["judged"], agg["skipped"]) == (7, 0)
    results = os.path.join(out, "results.jsonl")
    rows = [json.loads(line) for line in open(results)]
    assert {r["task_id"]: r["error_type"] for r in rows} == EXPECTED_ERRORS
    report = open(os.path.join(out, "report.md")).read()
    assert "| **all** | 7 | 57.1% | 42.9% | 42.9% | not measured |" in report
    assert "| 2_add_tanh | - | syntax_error |" in report  # the Failures table
    assert not any(f.endswith(".png") for f in os.listdir(out))  # no plots without measured speed
    assert sorted(os.listdir(os.path.join(out, "solutions"))) == sorted(f"{t}.py" for t in EXPECTED_ERRORS
                                                                        if t != "2_sub_abs")

    # A crash: the last two rows lost, a torn line left behind. The rerun judges exactly those two.
    lines = open(results).read().splitlines(keepends=True)
    with open(results, "w") as f:
        f.writelines(lines[:5])
        f.write(lines[5][:40])
    agg = run_main(argv, capsys)
    check_cpu_table(agg)
    assert (agg["judged"], agg["skipped"]) == (2, 5)
    rows = [json.loads(line) for line in open(results) if line.startswith("{") and line.rstrip().endswith("}")]
    assert sorted(r["task_id"] for r in rows) == sorted(EXPECTED_ERRORS)

    # Nothing left: no judging at all, same table.
    agg = run_main(argv, capsys)
    check_cpu_table(agg)
    assert (agg["judged"], agg["skipped"]) == (0, 7)

    # Another policy into the same --out is refused rather than mixed in.
    with pytest.raises(SystemExit) as e:
        ev.main(["--tasks", TASKS, "--policy", "reference", "--out", out])
    assert e.value.code == 2 and "different run" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--baseline", "eager,fast"], "--baseline"),
    (["--samples", "0"], "--samples must be >= 1"),
    (["--workers", "0"], "--workers must be >= 1"),
    (["--timeout-s", "0"], "--timeout-s must be > 0"),
    (["--chunk-size", "0"], "--chunk-size must be >= 1"),
    (["--samples", "4"], "needs a model policy"),
    (["--policy", "solutions:/no/such/dir"], "is not a directory"),
    (["--policy", "/no/such/checkpoint"], "checkpoint directory"),
    (["--tasks", "/no/such/tasks.jsonl"], "does not exist"),
    (["--device", "gpu"], "invalid choice"),
    (["--shrink-to", "-1"], "--shrink-to must be >= 0"),
])
def test_bad_flags_exit_2(tmp_path, capsys, extra, message):
    argv = ["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", str(tmp_path / "o")]
    for i in range(0, len(extra), 2):  # a flag given twice: argparse keeps the last
        argv += extra[i:i + 2]
    with pytest.raises(SystemExit) as e:
        ev.main(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "o")  # refused before anything was written


def test_missing_optional_parts_exit_2(tmp_path, capsys):
    import importlib.util

    import torch

    base = ["--tasks", TASKS, "--out", str(tmp_path / "o")]
    cases = []
    if importlib.util.find_spec("teacher") is None:
        cases.append((["--policy", "teacher"], "needs teacher.py"))
    if importlib.util.find_spec("search") is None:
        cases.append((["--policy", "reference", "--search"], "needs search.py"))
    if not torch.cuda.is_available():
        cases.append((["--policy", "reference", "--device", "cuda"], "no CUDA device"))
    for extra, message in cases:
        with pytest.raises(SystemExit) as e:
            ev.main(base + extra)
        assert e.value.code == 2 and message in capsys.readouterr().err


def test_teacher_and_search_wiring_with_stand_ins(tmp_path, capsys, monkeypatch):
    """Stand-ins for teacher.compile_program and search.search_tasks: the teacher's answers are judged,
    TeacherError becomes a failed row; --search passes the budgets and takes the search's own verdict of its
    answer as the row's (no second judging: the stand-in's verdict says speedup 7)."""
    import search
    import teacher

    def solution(task_id):
        return open(os.path.join(SOLUTIONS, f"{task_id}.py")).read()

    def compile_program(record, seed=0, target="cpu", dot_precision="ieee"):
        assert target == "cpu" and dot_precision == "ieee"
        assert "nodes" in record["program"]  # traced once by eval.py, shared with the search
        if record["id"] == "1_softmax":
            raise teacher.TeacherError("softmax is not supported")
        return solution(record["id"])

    monkeypatch.setattr(teacher, "compile_program", compile_program)
    calls = []

    def search_tasks(records, proposer, judge, samples, seed, sample_budget=None, time_budget_s=None, logs=None,
                     order="shortest", beam=4, progress=None, precision="any"):
        from reward import Verdict

        out = []
        progress("judge round 1: stand-in")
        for record, log in zip(records, logs):
            calls.append((record["id"], sample_budget, time_budget_s, beam))
            log({"event": "start", "n_ops": 2, "fragments": 3, "skipped": 0})
            [[cand]] = proposer.propose([record], samples, seed)  # the policy is the proposer
            log({"event": "result", "kind": "hybrid", "cover": [[0, 1, "kernel"]], "stats": {"samples": 1, "kernels": 1},
                 "plans": ["hybrid"]})
            out.append({"kind": "hybrid", "solution": cand["text"], "cover": [[0, 1, "kernel"]], "stats": {},
                        "verdict": Verdict(compiled=True, correct=True, speedup=7.0).to_dict()})
        return out

    monkeypatch.setattr(search, "search_tasks", search_tasks)
    base = ["--tasks", TASKS, "--limit", "3", "--workers", "1"]
    agg = run_main(base + ["--policy", "teacher", "--out", str(tmp_path / "t")], capsys)
    assert (agg["overall"]["n_correct"], agg["overall"]["n_tasks"]) == (2, 3)
    rows = {r["task_id"]: r for r in map(json.loads, open(tmp_path / "t" / "results.jsonl"))}
    assert rows["1_softmax"]["error_type"] == "teacher_error" and "not supported" in rows["1_softmax"]["error_msg"]
    agg = run_main(base + ["--limit", "1", "--policy", "teacher", "--search", "--search-budget", "7",
                           "--search-beam", "2", "--out", str(tmp_path / "s")], capsys)
    assert calls == [("1_relu_add", 7, None, 2)] and agg["overall"]["acc"] == 1.0
    sample = json.loads(open(tmp_path / "s" / "samples.jsonl").readline())
    assert sample["search"]["kind"] == "hybrid" and sample["search"]["stats"]["samples"] == 1
    row = json.loads(open(tmp_path / "s" / "results.jsonl").readline())
    assert row["speedup"] == 7.0 and row["plan"] == "hybrid"  # the search's verdict, not judged again
    for bad, message in ((["--search", "--search-beam", "0"], "--search-beam must be >= 1"),
                         (["--search-beam", "2"], "need --search")):
        with pytest.raises(SystemExit) as e:
            ev.main(base + ["--policy", "teacher", "--out", str(tmp_path / "bad")] + bad)
        assert e.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_one_task_failure_never_stops_the_run(tmp_path, capsys, monkeypatch):
    """An exception while importing a task, in the teacher or in the search is that task's failed row
    (import_error, teacher_bug, search_error / search_bug) with its message and a traceback in samples.jsonl;
    the other tasks are judged and the aggregates count the failures as wrong."""
    import shutil

    import search
    import teacher

    tasks = tmp_path / "level1"
    shutil.copytree(TASKS, tasks)
    (tasks / "untraceable.py").write_text(open(os.path.join(TASKS, "1_relu_add.py")).read().replace(
        "def forward(self", "def forward(self, *unused) -> None:\n        raise ValueError('no trace')\n\n"
                            "    def _old_forward(self"))
    (tasks / "unreadable.py").write_bytes(b"\xff\xfe\x00 not utf-8")

    def compile_program(record, **kw):
        if record["id"] == "1_scale_shift":
            raise KeyError("a teacher bug")
        return open(os.path.join(SOLUTIONS, f"{record['id']}.py")).read()

    monkeypatch.setattr(teacher, "compile_program", compile_program)
    agg = run_main(["--tasks", str(tasks), "--policy", "teacher", "--workers", "1", "--out", str(tmp_path / "t")],
                   capsys)
    rows = {r["task_id"]: r for r in map(json.loads, open(tmp_path / "t" / "results.jsonl"))}
    assert len(rows) == 9 and agg["overall"]["n_tasks"] == 9 and set(agg["levels"]) == {"1"}
    assert rows["1_scale_shift"]["error_type"] == "teacher_bug"
    assert rows["1_scale_shift"]["error_msg"] == "KeyError: 'a teacher bug'"
    assert rows["untraceable"]["error_type"] == "import_error" and "no trace" in rows["untraceable"]["error_msg"]
    assert rows["unreadable"]["error_type"] == "import_error" and "UnicodeDecodeError" in rows["unreadable"]["error_msg"]
    assert rows["1_relu_add"]["correct"] and rows["abs_neg"]["correct"]
    assert agg["overall"]["n_correct"] == 2 and agg["overall"]["acc"] == pytest.approx(2 / 9)
    samples = {s["task_id"]: s for s in map(json.loads, open(tmp_path / "t" / "samples.jsonl"))}
    assert "KeyError" in samples["1_scale_shift"]["traceback"] and "compile_program" in samples["1_scale_shift"]["traceback"]
    report = (tmp_path / "t" / "report.md").read_text()
    assert "| 1_scale_shift | 1 | teacher_bug | KeyError: 'a teacher bug' |" in report

    real = search.search_tasks

    def search_tasks(records, proposer, judge, **kw):
        # the real batched search; two tasks' searches raise inside it, and only those tasks fail
        def broken(rec, *a, **k):
            if rec["id"] == "1_relu_add":
                raise search.SearchError("op foo: unsupported")
            if rec["id"] == "abs_neg":
                raise IndexError("list index out of range")
            return (yield from steps(rec, *a, **k))
        monkeypatch.setattr(search, "search_steps", broken)
        try:
            return real(records, proposer, judge, **kw)
        finally:
            monkeypatch.setattr(search, "search_steps", steps)

    steps = search.search_steps
    monkeypatch.setattr(search, "search_tasks", search_tasks)
    agg = run_main(["--tasks", str(tasks), "--policy", "teacher", "--search", "--workers", "1",
                    "--out", str(tmp_path / "s")], capsys)
    rows = {r["task_id"]: r for r in map(json.loads, open(tmp_path / "s" / "results.jsonl"))}
    assert len(rows) == 9 and agg["overall"]["n_correct"] == 0
    assert rows["1_relu_add"]["error_type"] == "search_error" and "unsupported" in rows["1_relu_add"]["error_msg"]
    assert rows["abs_neg"]["error_type"] == "search_bug" and rows["abs_neg"]["error_msg"].startswith("IndexError")
    # inside the search a proposer's failure is a fragment without an answer, so the search found nothing
    assert rows["1_scale_shift"]["error_type"] == "search_failed"
    assert rows["untraceable"]["error_type"] == "import_error"


def test_restarting_judge_and_judge_errors():
    """A judge that closed itself (workers failed to start three times) is started afresh once per call; when the
    fresh one fails too, the chunk's tasks become judge_error rows instead of ending the run."""
    made = []

    class FlakyJudge:
        def __init__(self, fail_calls):
            self.closed, self.fail_calls, self.device = False, fail_calls, "cpu"
            made.append(self)

        def verify_many(self, pairs, completions=False, progress=True):
            if self.fail_calls:
                self.fail_calls -= 1
                self.closed = True
                raise RuntimeError("judge workers fail to start: worker not ready after 60 s")
            return [Verdict(compiled=True, correct=True) for _ in pairs]

        def close(self):
            self.closed = True

    plan = iter([1, 0])  # the first judge fails once and closes; the fresh one works
    judge = ev.RestartingJudge(lambda: FlakyJudge(next(plan)))
    assert judge.device == "cpu" and judge.verify("task", "solution").correct
    assert judge.restarts == 1 and len(made) == 2
    made[1].closed = True  # found closed before a call: restarted before it
    plan = iter([0])
    assert judge.verify("task", "solution").correct and judge.restarts == 2

    plan = iter([1, 1])  # both fail: the rows say judge_error
    judge = ev.RestartingJudge(lambda: FlakyJudge(next(plan)))
    recs = [{"id": "a", "source": "task"}, {"id": "b", "source": "task"}]
    cands = [[P.answer("solution")], [P.no_answer("missing_solution", "no file")]]
    verdicts = judge_candidates(judge, recs, cands)
    assert verdicts[0][0].error_type == "judge_error" and "fail to start" in verdicts[0][0].error_msg
    assert verdicts[1][0].error_type == "missing_solution"


@pytest.mark.slow
def test_chunk_size_sets_the_judging_chunks(tmp_path, capsys, monkeypatch):
    """--chunk-size 3 over 7 tasks judges chunks of 3, 3 and 1 (default: 2 x --workers = 4, 3)."""
    import reward
    sizes, judge_candidates = [], reward.judge_candidates

    def spy(judge, records, candidates):   # called once per judging chunk (no --teacher-fallback here)
        sizes.append(len(records))
        return judge_candidates(judge, records, candidates)

    monkeypatch.setattr(reward, "judge_candidates", spy)
    argv = ["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--workers", "2", "--timeout-s", "60"]
    run_main(argv + ["--out", str(tmp_path / "a"), "--chunk-size", "3"], capsys)
    assert sizes == [3, 3, 1]
    sizes.clear()
    run_main(argv + ["--out", str(tmp_path / "b")], capsys)
    assert sizes == [4, 3]


def test_a_smaller_chunk_goes_where_a_whole_one_would_not_fit():
    """eval.fitting_chunk against a hand computation: a chunk of n tasks on w workers costs (n + w) task times."""
    from eval import fitting_chunk
    assert fitting_chunk(25, 6, left_s=100.0) == 6           # nothing measured yet: one task per worker
    assert fitting_chunk(4, 6, left_s=100.0) == 4
    assert fitting_chunk(25, 6, left_s=0.0) == 0
    # the last chunk: 25 tasks in 186 s on 6 workers, 6 s a task time; 170 s left hold 28 task times: 22 tasks
    assert fitting_chunk(25, 6, left_s=170.0, last_s=186.0, last_n=25) == 22
    assert fitting_chunk(25, 6, left_s=400.0, last_s=186.0, last_n=25) == 25   # never more than --chunk-size
    assert fitting_chunk(25, 6, left_s=40.0, last_s=186.0, last_n=25) == 0     # 6 task times: the tail alone
    assert fitting_chunk(8, 6, left_s=45.0, last_s=42.0, last_n=8) == 8   # 3 s a task: 15 - 6 = 9, capped at 8
    assert fitting_chunk(8, 6, left_s=30.0, last_s=42.0, last_n=8) == 4


def test_stop_after_s_leaves_the_rest_for_a_rerun(tmp_path, capsys):
    """--stop-after-s 0 starts no chunk: nothing judged, all unfinished and said so; the rerun judges them all."""
    out = str(tmp_path / "ev")
    argv = ["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", out, "--workers", "2", "--timeout-s", "60"]
    agg = run_main(argv + ["--stop-after-s", "0"], capsys)
    assert (agg["judged"], agg["unfinished"]) == (0, 7)
    assert "Unfinished: 7 tasks" in open(os.path.join(out, "report.md")).read()
    agg = run_main(argv, capsys)
    assert (agg["judged"], agg["skipped"], agg["unfinished"]) == (7, 0, 0)
    check_cpu_table(agg)


def test_teacher_plans_judge_every_plan_and_keep_the_fastest_correct(tmp_path, capsys):
    """--teacher-plans all gives each task one candidate per plan the teacher can build; all are judged
    and the row is the best one, naming its plan and every plan's outcome. Bad plan lists are usage errors."""
    kb = os.path.join(HERE, "kernelbench_small", "level2")
    out = str(tmp_path / "plans")
    agg = run_main(["--tasks", kb, "--policy", "teacher", "--teacher-plans", "all", "--limit", "1", "--workers", "2",
                    "--timeout-s", "120", "--out", out], capsys)
    row = json.loads(open(os.path.join(out, "results.jsonl")).readline())
    assert row["task_id"] == "12_Gemm_Multiply_LeakyReLU" and row["correct"] and agg["overall"]["acc"] == 1.0
    # triton-bf16x3 is left out too: the shrunk GEMM has 2 rows (fewer than 16: memory-bound, teacher.k_matmul_bf16x3)
    assert row["n_plans"] == 3 and set(row["plans"]) == {"triton", "triton-tf32x3", "hybrid"}
    assert row["n_samples"] == 1 and "pass@2" not in agg["overall"]  # plans are one answer, not samples
    assert row["plan"] == "triton"  # on CPU no speed: the first correct candidate represents the task
    assert json.load(open(os.path.join(out, "run.json")))["args"]["teacher_plans"] == \
        "triton,triton-tf32x3,triton-tf32,triton-bf16x3,hybrid,hybrid-cl,hybrid-fp16,hybrid-cells"
    # tf32, hybrid-cl(-fp16) and hybrid-cells left out: the task has a GEMM, no convolution and no recurrent layer
    for bad, message in ((["--teacher-plans", "cudnn"], "--teacher-plans takes"),
                         (["--teacher-plans", "hybrid", "--policy", "reference"], "needs --policy teacher")):
        with pytest.raises(SystemExit) as e:
            ev.main(["--tasks", kb, "--policy", "teacher", "--out", str(tmp_path / "bad")] + bad)
        assert e.value.code == 2 and message in capsys.readouterr().err


def test_teacher_fallback_is_built_where_no_plan_applies_and_judged_where_none_passes(tmp_path, capsys, monkeypatch):
    """--teacher-fallback: a task none of whose --teacher-plans applies (23_Softmax has no dot) gets the fallback
    plan at once; a task whose plans are all judged wrong (here a tf32x3 GEMM broken on purpose) gets it in a
    second round, so the row is correct and names both plans; it needs --teacher-plans."""
    import shutil
    import teacher
    kb = tmp_path / "tasks"
    kb.mkdir()
    for name in ("1_Square_matrix_multiplication_.py", "23_Softmax.py"):
        shutil.copy(os.path.join(HERE, "kernelbench_small", "level1", name), kb / name)
    real = teacher.plans

    def broken_tf32x3(*a, **kw):
        return [(p, sol.replace("acc += tl.dot(", "acc -= tl.dot(") if p == "triton-tf32x3" else sol)
                for p, sol in real(*a, **kw)]
    monkeypatch.setattr(teacher, "plans", broken_tf32x3)
    out = str(tmp_path / "fb")
    agg = run_main(["--tasks", str(kb), "--policy", "teacher", "--teacher-plans", "triton-tf32x3",
                    "--teacher-fallback", "triton", "--workers", "2", "--timeout-s", "120", "--out", out], capsys)
    rows = {r["task_id"]: r for r in map(json.loads, open(os.path.join(out, "results.jsonl")))}
    assert agg["overall"]["acc"] == 1.0
    mm, sm = rows["1_Square_matrix_multiplication_"], rows["23_Softmax"]
    assert mm["plan"] == "triton" and mm["n_plans"] == 2 and mm["plans"]["triton-tf32x3"] == "mismatch", mm
    assert sm["plan"] == "triton" and sm["n_plans"] == 1, sm
    with pytest.raises(SystemExit) as e:
        ev.main(["--tasks", str(kb), "--policy", "teacher", "--teacher-fallback", "triton", "--out", str(tmp_path / "b")])
    assert e.value.code == 2 and "--teacher-fallback needs --teacher-plans" in capsys.readouterr().err


@pytest.mark.slow
def test_reuse_verdicts_takes_an_identical_answers_verdict(tmp_path, capsys):
    """--reuse-verdicts DIR: an answer identical to one DIR recorded for the same task takes that verdict (flag
    verdict_reused) and is not judged again; a changed answer is judged. A folder of other tasks or settings, or
    no eval.py --out at all, is a usage error before anything runs."""
    good = open(os.path.join(SOLUTIONS, "1_relu_add.py")).read()
    same = f"Here.\n```python\n{good}```\n"
    recorded = tmp_path / "answers"
    recorded.mkdir()
    (recorded / "samples.jsonl").write_text(json.dumps({"task_id": "1_relu_add", "sample": 0, "completion": same}) + "\n")
    first = str(tmp_path / "first")
    run_main(["--tasks", TASKS, "--policy", f"samples:{recorded}", "--out", first, "--workers", "2"], capsys)
    # the earlier verdict, edited so a reuse is visible: a fresh judgment would say correct with no such flag
    rows = [json.loads(line) for line in open(os.path.join(first, "samples.jsonl"))]
    rows[0]["verdict"]["flags"] = ["marker"]
    open(os.path.join(first, "samples.jsonl"), "w").write("".join(json.dumps(r) + "\n" for r in rows))
    changed = same.replace("Here.", "Here it is.")
    (recorded / "samples.jsonl").write_text(
        json.dumps({"task_id": "1_relu_add", "sample": 0, "completion": same}) + "\n"
        + json.dumps({"task_id": "2_sub_abs", "sample": 0, "completion": changed}) + "\n")
    second = str(tmp_path / "second")
    assert ev.main(["--tasks", TASKS, "--policy", f"samples:{recorded}", "--out", second, "--workers", "2",
                    "--reuse-verdicts", first]) == 0
    assert "1 answers took their verdict from" in capsys.readouterr().out
    got = {json.loads(line)["task_id"]: json.loads(line) for line in open(os.path.join(second, "samples.jsonl"))}
    assert got["1_relu_add"]["verdict"]["flags"] == ["marker", "verdict_reused"]
    assert "verdict_reused" not in got["2_sub_abs"]["verdict"]["flags"]  # another task's answer: judged
    for bad, message in ((str(tmp_path / "nothing"), "not an eval.py --out folder"),
                         (first, "judged with other settings (seed: 0 vs 3)")):
        with pytest.raises(SystemExit) as e:
            ev.main(["--tasks", TASKS, "--policy", f"samples:{recorded}", "--out", str(tmp_path / "bad"),
                     "--reuse-verdicts", bad, "--seed", "3" if bad == first else "0"])
        assert e.value.code == 2 and message in capsys.readouterr().err
    run = json.load(open(os.path.join(first, "run.json")))  # verdicts of another judge (reward.py) do not carry
    run["judge_sha256"] = "0" * 16
    json.dump(run, open(os.path.join(first, "run.json"), "w"))
    with pytest.raises(SystemExit) as e:
        ev.main(["--tasks", TASKS, "--policy", f"samples:{recorded}", "--out", str(tmp_path / "bad2"),
                 "--reuse-verdicts", first])
    assert e.value.code == 2 and "judged by another version of reward.py" in capsys.readouterr().err


def test_bench_kb_table_reads_an_eval_out(tmp_path, capsys):
    """bench.py kb-table: the per-task table the lab record carries, and its summary, from an eval.py --out."""
    import subprocess
    out = str(tmp_path / "ev")
    run_main(["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", out, "--workers", "2"], capsys)
    res = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "kb-table", "--results", out],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("| task | correct | vs eager |") and len([ln for ln in lines if ln.startswith("| ")]) == 1 + 7
    summary = json.loads(lines[-1])
    rows = list(map(json.loads, open(os.path.join(out, "results.jsonl"))))
    assert summary["n_tasks"] == 7 and summary["acc"] == sum(r["correct"] for r in rows) / 7


def test_bench_kb_table_sets_runs_side_by_side():
    """bench.py kb-table with several --results (a model's checkpoints): a row per task of any run, a
    cell per run (speedup of a correct answer, error type of a wrong one, '-' where the run lacks the task), and
    each run's Acc and errors by type."""
    import bench
    sft = [{"task_id": "2_b", "correct": False, "error_type": "syntax_error"},
           {"task_id": "10_c", "correct": True, "speedup": 1.5}]
    rl = [{"task_id": "10_c", "correct": True, "speedup": 1.25}, {"task_id": "2_b", "correct": True, "speedup": None},
          {"task_id": "1_a", "correct": False, "error_type": None}]
    lines = bench.kb_compare_rows({"sft": sft, "rl": rl})
    assert lines[:5] == ["| task | sft | rl |", "|---|---|---|", "| 1_a | - | wrong |",
                         "| 2_b | syntax_error | ok |", "| 10_c | ok 1.50x | ok 1.25x |"]
    assert "| sft | 2 | 1 | syntax_error 1 |" in lines and "| rl | 3 | 2 | wrong 1 |" in lines
    # speed over the tasks both solve with a measured speedup (10_c alone: 2_b's rl answer has no speedup)
    assert lines[-1] == "| rl | 1 | 1.5000x | 1.2500x | 0 / 1 / 0 | 1 of 2 | 1 of 3 |"
    both = [{"task_id": t, "correct": True, "speedup": x} for t, x in (("a", 2.0), ("b", 0.5), ("c", 1.0))]
    other = [{"task_id": t, "correct": True, "speedup": x} for t, x in (("a", 4.0), ("b", 0.5), ("c", 2.0))]
    assert bench.kb_compare_rows({"x": both, "y": other})[-1] == \
        "| y | 3 | 1.0000x | 1.5874x | 2 / 0 / 1 | 1 of 3 | 2 of 3 |"  # geomeans: (2*0.5*1)^(1/3) = 1, 4^(1/3)



@pytest.mark.slow
def test_bench_kb_ab_replays_only_the_changed_answers(tmp_path, capsys):
    """bench.py kb-ab: two runs' answers to one task set, judged again in one call, but only the tasks
    where the second run's answer differs from the base's and one of them is correct; a change between two failures
    and an identical answer are not replayed. The subset folder holds exactly the replayed task files; on a CPU
    nothing is timed, so no ratio is claimed."""
    def judged(name, rows):  # an eval.py --out of these recorded answers
        folder = tmp_path / f"{name}_answers"
        folder.mkdir()
        (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        run_main(["--tasks", TASKS, "--policy", f"samples:{folder}", "--out", str(tmp_path / name), "--workers", "2"],
                 capsys)
        return str(tmp_path / name)
    rows = [{"task_id": f[:-3], "sample": 0, "completion": f"```python\n{open(os.path.join(SOLUTIONS, f)).read()}```"}
            for f in sorted(os.listdir(SOLUTIONS)) if f.endswith(".py")]
    base = judged("sft", rows)
    for r in rows:
        if r["task_id"] == "1_relu_add":  # still correct, a different text
            r["completion"] = r["completion"].replace("import torch", "import torch  # retuned", 1)
        elif r["task_id"] == "1_scale_shift":  # was correct, now no code at all
            r["completion"] = "I cannot."
        elif r["task_id"] == "1_softmax":  # wrong before and after
            r["completion"] = r["completion"] + "\n"
    rl = judged("rl", rows)
    ab = tmp_path / "ab"
    res = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "kb-ab", "--results", base, rl, "--tasks",
                          TASKS, "--device", "cpu", "--rounds", "1", "--workers", "2", "--out", str(ab)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["tasks"] == ["1_relu_add", "1_scale_shift"]
    assert sorted(os.listdir(ab / "tasks")) == ["1_relu_add.py", "1_scale_shift.py"]
    assert "| 1_relu_add | ok | ok |" in res.stdout and "| 1_scale_shift | ok | no_code_block |" in res.stdout, res.stdout
    # correct in both runs' own results: 1_relu_add (changed) and abs_neg (identical); untimed: no ratio
    assert summary["runs"]["rl"] == {"replayed_correct": 1, "base_replayed_correct": 2,
                                     "replayed_both": 0, "geomean_ratio_replayed": None, "faster": 0, "slower": 0,
                                     "correct_in_both_own": 2, "changed_in_both_own": 1, "level_geomean_ratio": None,
                                     "lost_in_replay": [], "identical_replayed": 0, "noise_ratio": None}
    bad = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "kb-ab", "--results", base, "--out",
                          str(ab)], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "at least two --results" in bad.stderr


@pytest.mark.slow
def test_bench_kb_ab_judges_the_changed_answers_of_runs_that_only_proposed(tmp_path, capsys):
    """eval.py --propose-only writes answers and judges none (no results.jsonl); kb-ab over such runs replays every
    task whose answer differs from the base's (it knows no verdicts, so a change between two failures is replayed
    too) and reports each run's Acc over those tasks, with no level ratio (nothing is known of the shared ones)."""
    rows = [{"task_id": f[:-3], "sample": 0, "completion": f"```python\n{open(os.path.join(SOLUTIONS, f)).read()}```"}
            for f in sorted(os.listdir(SOLUTIONS)) if f.endswith(".py")]

    def proposed(name):
        folder = tmp_path / f"{name}_answers"
        folder.mkdir()
        (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        out = run_main(["--tasks", TASKS, "--policy", f"samples:{folder}", "--out", str(tmp_path / name),
                        "--propose-only"], capsys)
        assert out["proposed"] == out["tasks"] == 7 and out["propose_only"]   # one task has no answer: proposed all the same
        assert not os.path.exists(tmp_path / name / "results.jsonl")
        return str(tmp_path / name)
    base = proposed("sft")
    for r in rows:
        if r["task_id"] == "1_relu_add":
            r["completion"] = r["completion"].replace("import torch", "import torch  # retuned", 1)
        elif r["task_id"] == "1_scale_shift":
            r["completion"] = "I cannot."
        elif r["task_id"] == "1_softmax":  # wrong before and after
            r["completion"] = r["completion"] + "\n"
    rl = proposed("rl")
    res = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "kb-ab", "--results", base, rl, "--tasks",
                          TASKS, "--device", "cpu", "--rounds", "1", "--workers", "2", "--out", str(tmp_path / "ab")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["tasks"] == ["1_relu_add", "1_scale_shift", "1_softmax"]
    got = summary["runs"]["rl"]
    assert (got["replayed_correct"], got["base_replayed_correct"]) == (1, 2)
    assert got["level_geomean_ratio"] is None and got["correct_in_both_own"] == 0
    assert "- (not judged)" in res.stdout and "(of 3): sft 2, rl 1" in res.stdout, res.stdout
    with pytest.raises(SystemExit):  # the search needs the judge
        ev.main(["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", str(tmp_path / "x"),
                 "--propose-only", "--search"])
    with pytest.raises(SystemExit):  # judged rows are not appended to a folder of answers alone
        ev.main(["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", base])


def test_bench_kb_ab_ratios_count_identical_answers_as_one():
    """kb-ab's arithmetic: the replayed ratio over the changed tasks timed correct in both; the level's geomean ratio
    over the tasks correct in both runs' own results, identical answers 1.0; a changed answer that failed in the
    replay is left out and named."""
    import bench
    results = {"sft": {t: {"correct": True} for t in ("a", "b", "c", "d", "e")},
               "rl": {t: {"correct": True} for t in ("a", "b", "c", "d", "e")}}
    answers = {"sft": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"},
               "rl": {"a": "1'", "b": "2'", "c": "3", "d": "4'", "e": "5"}}
    # e: the same answer in both, replayed because a third run changed it; its two timings differ by noise alone
    cells = {"sft": {"a": ("ok", 0.1), "b": ("ok", 0.4), "d": ("ok", 0.5), "e": ("ok", 0.5)},
             "rl": {"a": ("ok", 0.8), "b": ("ok", 0.2), "d": ("mismatch", None), "e": ("ok", 0.55)}}
    lines, summary = bench.kb_ab_compare(["sft", "rl"], results, answers, cells, ["a", "b", "d", "e"])
    got = summary["rl"]
    assert got["replayed_both"] == 2 and got["faster"] == 1 and got["slower"] == 1
    assert math.isclose(got["geomean_ratio_replayed"], 2.0)  # (8 * 0.5) ** (1/2)
    assert got["lost_in_replay"] == ["d"] and got["changed_in_both_own"] == 3 and got["correct_in_both_own"] == 5
    assert math.isclose(got["level_geomean_ratio"], 4 ** (1 / 4))  # a 8, b 0.5, c and e 1.0 (identical); d left out
    assert got["identical_replayed"] == 1 and math.isclose(got["noise_ratio"], 1.1)
    assert lines[2] == "| a | ok 0.100x | ok 0.800x |" and lines[4] == "| d | ok 0.500x | mismatch |"
    same = {"sft": {"a": "1"}, "rl": {"a": "1"}}
    _, summary = bench.kb_ab_compare(["sft", "rl"], {k: {"a": {"correct": True}} for k in same}, same,
                                     {"sft": {}, "rl": {}}, [])
    assert summary["rl"]["level_geomean_ratio"] == 1.0  # nothing changed: the same code, without a replay

BIG_TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return -torch.abs(x)


batch_size = 4096
dim = 1 << 16


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
"""


def test_shrink_to_judges_a_task_too_large_for_the_machine_at_small_sizes(tmp_path, capsys):
    """--shrink-to N: a KernelBench-style task of 4096 x 65536 (1 GB an input: hours in the Triton interpreter) is
    judged at <= N elements a tensor, correct; the report says the sizes were not the task's; a rerun into the
    same --out with another N is refused (an identity flag)."""
    tasks = tmp_path / "tasks"
    sols = tmp_path / "sols"
    tasks.mkdir()
    sols.mkdir()
    (tasks / "abs_neg.py").write_text(BIG_TASK)
    (sols / "abs_neg.py").write_text(open(os.path.join(SOLUTIONS, "abs_neg.py")).read())
    out = str(tmp_path / "ev")
    argv = ["--tasks", str(tasks), "--policy", f"solutions:{sols}", "--out", out, "--workers", "1",
            "--timeout-s", "60"]
    agg = run_main(argv + ["--shrink-to", "4096"], capsys)
    rows = [json.loads(line) for line in open(os.path.join(out, "results.jsonl"))]
    assert [r["correct"] for r in rows] == [True] and agg["overall"]["acc"] == 1.0
    assert json.load(open(os.path.join(out, "run.json")))["args"]["shrink_to"] == 4096
    assert "**Judged at small sizes** (--shrink-to 4096" in open(os.path.join(out, "report.md")).read()
    with pytest.raises(SystemExit) as e:
        ev.main(argv + ["--shrink-to", "8192"])
    assert e.value.code == 2 and "different run" in capsys.readouterr().err


def test_shrink_to_with_the_teacher_compiles_the_task_at_the_judges_sizes(tmp_path, capsys):
    """--policy teacher with --shrink-to: the teacher compiles the shrunk task (its kernels bake in the sizes they
    were built for; a row sum built for 4096 x 65536 reads far out of bounds of the judged inputs: SIGSEGV)."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "row_sum.py").write_text(BIG_TASK.replace("return -torch.abs(x)", "return torch.sum(x, dim=1)"))
    out = str(tmp_path / "ev")
    agg = run_main(["--tasks", str(tasks), "--policy", "teacher", "--out", out, "--workers", "1", "--timeout-s", "60",
                    "--shrink-to", "4096"], capsys)
    rows = [json.loads(line) for line in open(os.path.join(out, "results.jsonl"))]
    assert [r["correct"] for r in rows] == [True] and agg["overall"]["acc"] == 1.0, \
        [(r["error_type"], r["error_msg"]) for r in rows]


def test_shrink_to_with_search_searches_the_task_at_the_judges_sizes(tmp_path, capsys):
    """--search with --shrink-to (a CPU proxy of a KernelBench level-2 search): the search runs the
    shrunk task's program and builds its fragments at those sizes, so a 4096 x 65536 task (seconds a fragment at its
    own sizes would be hours in the interpreter) is searched and found correct; the report says the policy saw the
    shrunk task."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "abs_neg.py").write_text(BIG_TASK)
    out = str(tmp_path / "ev")
    agg = run_main(["--tasks", str(tasks), "--policy", "teacher", "--out", out, "--workers", "1", "--timeout-s", "60",
                    "--search", "--search-budget", "3", "--shrink-to", "4096"], capsys)
    assert agg["overall"]["acc"] == 1.0, open(os.path.join(out, "samples.jsonl")).read()[:2000]
    sample = json.loads(open(os.path.join(out, "samples.jsonl")).readline())
    assert sample["search"]["kind"] == "hybrid" and sample["search"]["stats"]["samples"] >= 1
    assert "with --search the policy saw the shrunk tasks" in open(os.path.join(out, "report.md")).read()


def test_bench_kb_judge_says_where_the_judging_time_went():
    """bench.py kb-judge: a job's work is its reference, import, check and timing phases less its wait for
    the timing lock; jobs that ran alone (an exclusive retry, or a task known to need one) are summed apart, since
    they run one at a time; the jobs with the most work come first."""
    import bench

    def row(tid, flags, **tm):
        return {"task_id": tid, "correct": "time_s" in tm, "error_type": None if "time_s" in tm else "mismatch",
                "verdict": {"flags": flags, "timings": tm}}
    rows = [row("36_RMSNorm_", ["oom_retried_exclusive"], ref_s=25.0, import_s=0.5, worker_s=85.0, ref_gpu_trials=3),
            row("19_ReLU", ["exclusive_task"], ref_s=0.5, import_s=0.1, check_s=1.0, time_s=3.0, lock_wait_s=1.0,
                worker_s=5.0),
            row("1_Square", [], ref_s=0.2, import_s=0.1, check_s=0.5, time_s=12.0, lock_wait_s=10.0, worker_s=13.0),
            row("2_Reused", ["oom_retried_exclusive", "verdict_reused"], ref_s=30.0, worker_s=40.0)]  # judged before
    assert bench.judge_work_s(rows[2]["verdict"]["timings"]) == pytest.approx(2.8)
    m = bench.kb_judge_summary(rows)
    assert m == {"n_tasks": 4, "n_judged": 3, "n_exclusive": 2, "exclusive_work_s": 29.1, "exclusive_ref_s": 25.5,
                 "worker_s": 103.0, "ref_s": 25.7}
    lines = bench.kb_judge_rows(rows, top=2)
    assert lines[2] == "| 36_RMSNorm_ | mismatch | yes | 25.5 | 25.0 | 0.5 | - | - | 85.0 | 3 |"
    assert lines[3].startswith("| 19_ReLU | ok | yes | 3.6 |") and lines[3].endswith("| 5.0 | - |")
    assert len(lines) == 4


def test_bench_conv_layout_times_each_tasks_first_convolution(tmp_path):
    """bench.py conv-layout: a row per task with a convolution (its NCHW and channels-last times, which
    agree in value), none for a task without one, and a summary line; on the CPU here, the H200 in the lab record."""
    import subprocess
    kb2 = os.path.join(ROOT, "tests", "kernelbench_small", "level2")
    rows_path = str(tmp_path / "rows.jsonl")
    res = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "conv-layout", "--tasks", kb2, "--device",
                          "cpu", "--out", rows_path], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in open(rows_path)]
    names = sorted(f[:-3] for f in os.listdir(kb2) if f.endswith(".py"))
    with_conv = [n for n in names if "Conv" in n]
    assert sorted(r["task_id"] for r in rows) == with_conv and with_conv != names
    assert all(r["max_abs_diff"] < 1e-3 and r["nchw_ms"] > 0 and r["cl_ms"] > 0 for r in rows)
    assert json.loads(res.stdout.splitlines()[-1])["tasks"] == len(with_conv)


def test_plan_of_names_only_tagged_plans():
    """A row names a plan only where candidates carry one: a model's or plain teacher's search row gets none (its
    cover's plans are [None]); a search with plans gets the cover's and the whole program's plan outcomes."""
    from reward import Verdict
    ok = Verdict(compiled=True, correct=True, runtime_ms=2.0)
    row = {"best_sample": 0, "n_samples": 1, "n_correct": 1, "correct": True}
    untagged = {"text": "x", "search": {"plans": [None], "stats": {}}}
    assert ev.plan_of([untagged], [ok], row) == {}
    tagged = {"text": "x", "search": {"plans": ["hybrid"], "stats": {"whole_plans": {"triton": 9.0, "hybrid": 2.0}}}}
    assert ev.plan_of([tagged], [ok], row) == {"plan": "hybrid", "plans": {"triton": 9.0, "hybrid": 2.0}}


def test_dot_precision_is_part_of_a_runs_identity(tmp_path, capsys):
    """A resume with another --teacher-dot-precision is refused (rows of two precisions would mix); a run.json
    written before the flag existed reads as the default, ieee."""
    out = str(tmp_path / "o")
    argv = ["--tasks", TASKS, "--policy", f"solutions:{SOLUTIONS}", "--out", out, "--limit", "1", "--workers", "1"]
    run_main(argv, capsys)
    with pytest.raises(SystemExit) as e:
        ev.main(argv + ["--teacher-dot-precision", "tf32x3"])
    assert e.value.code == 2 and "teacher_dot_precision" in capsys.readouterr().err
    run = json.load(open(os.path.join(out, "run.json")))
    del run["args"]["teacher_dot_precision"]
    json.dump(run, open(os.path.join(out, "run.json"), "w"))
    run_main(argv, capsys)  # the old run.json still resumes


def test_samples_policy_replays_recorded_completions(tmp_path, capsys):
    """--policy samples:FILE judges an earlier run's recorded completions again: each task its own rows in
    sample order (up to --samples), a task without rows missing_solution, and a row that is not samples.jsonl
    JSON a usage error before anything is judged."""
    good = open(os.path.join(SOLUTIONS, "1_relu_add.py")).read()
    rows = [{"task_id": "1_relu_add", "sample": 1, "completion": "no code here"},
            {"task_id": "1_relu_add", "sample": 0, "completion": f"Here.\n```python\n{good}```\n"},
            {"task_id": "abs_neg", "sample": 0, "completion": "```python\nimport torch\n"},
            {"task_id": "1_softmax", "sample": 0, "completion": None}]  # a non-completion answer: not replayed
    recorded = tmp_path / "old"
    recorded.mkdir()
    (recorded / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = str(tmp_path / "re")
    run_main(["--tasks", TASKS, "--policy", f"samples:{recorded}", "--samples", "2", "--out", out,
              "--workers", "2", "--timeout-s", "60"], capsys)
    got = {r["task_id"]: r for r in map(json.loads, open(os.path.join(out, "results.jsonl")))}
    assert got["1_relu_add"]["correct"] and got["1_relu_add"]["n_samples"] == 2
    assert got["1_relu_add"]["n_correct"] == 1
    assert got["abs_neg"]["error_type"] == "unterminated_code_block"
    assert {got[t]["error_type"] for t in ("1_softmax", "2_sub_abs", "2_add_tanh")} == {"missing_solution"}

    (recorded / "samples.jsonl").write_text('{"task_id": "1_relu_add"}\n')
    with pytest.raises(SystemExit) as e:
        ev.main(["--tasks", TASKS, "--policy", f"samples:{recorded}", "--out", str(tmp_path / "bad")])
    assert e.value.code == 2 and "line 1 is not a samples.jsonl row" in capsys.readouterr().err
