"""--precision fp32: no fp16 plan, and answers within KernelBench's 1e-4 win over faster ones outside it."""
import os

import pytest

import eval as ev
import search
from reward import Verdict


def _v(ms, kb_ok=True, correct=True):
    return Verdict(compiled=True, correct=correct, runtime_ms=ms, speedup=1.0 / ms,
                   flags=[] if kb_ok else ["fails_kb_tol"])


def test_pick_best_prefers_answers_within_1e4_under_fp32_only():
    vs = [_v(1.0, kb_ok=False), _v(2.0), _v(0.5, correct=False)]
    assert ev.pick_best(vs) == 0 and ev.pick_best(vs, "any") == 0
    assert ev.pick_best(vs, "fp32") == 1
    outside = [_v(1.0, kb_ok=False), _v(3.0, kb_ok=False)]  # none within 1e-4: the fastest correct stays
    assert ev.pick_best(outside, "fp32") == 0
    row = ev.task_row({"id": "t"}, vs, "fp32")
    assert row["best_sample"] == 1 and row["correct"]


def test_search_prefers_kernels_within_1e4_under_fp32():
    vs = [_v(1.0, kb_ok=False), _v(2.0), _v(4.0)]
    assert search.preferred(vs, [0, 1, 2], "any") == [0, 1, 2]
    assert search.preferred(vs, [0, 1, 2], "fp32") == [1, 2]
    assert search.preferred(vs, [0], "fp32") == [0]
    assert search.PRECISIONS == ("any", "fp32")


def _args(tmp_path, *extra):
    os.makedirs(tmp_path / "tasks", exist_ok=True)
    base = ["--tasks", str(tmp_path / "tasks"), "--policy", "teacher", "--out", str(tmp_path / "o"),
            "--baseline-cache", "none"]
    return ev.check_args(ev.build_parser().parse_args(base + list(extra)))


def test_fp32_keeps_fp16_plans_out(tmp_path):
    import teacher
    args = _args(tmp_path, "--precision", "fp32", "--teacher-plans", "all")
    plans = args.teacher_plans.split(",")
    assert "hybrid" in plans and not set(plans) & set(teacher.FP16_PLANS)
    assert "hybrid-fp16" in _args(tmp_path, "--teacher-plans", "all").teacher_plans.split(",")
    with pytest.raises(ev.UsageError, match="hybrid-fp16"):
        _args(tmp_path, "--precision", "fp32", "--teacher-plans", "hybrid,hybrid-fp16")
    with pytest.raises(ev.UsageError, match="hybrid-fp16"):
        _args(tmp_path, "--precision", "fp32", "--teacher-plans", "hybrid", "--teacher-fallback", "hybrid-fp16")
    with pytest.raises(ev.UsageError, match="hybrid-fp16"):
        _args(tmp_path, "--precision", "fp32", "--teacher-plans", "all", "--teacher-fallback", "hybrid-fp16")


def test_precision_is_part_of_a_runs_identity():
    assert "precision" in ev.IDENTITY_FLAGS


def test_max_autotune_baseline_is_aggregated_and_reported(tmp_path):
    """--baseline eager,compile,max-autotune: the rows' speedup_vs_max_autotune gives fast_p and a geomean beside
    compile's, the level table and the task table get their columns, and the judge is asked to time it."""
    rows = [{"task_id": str(i), "level": "1", "compiled": True, "correct": True, "speedup": s, "n_samples": 1,
             "n_correct": 1, "speedup_vs_compile": s / 2, "speedup_vs_max_autotune": s / 4, "error_type": None,
             "flags": []} for i, s in enumerate([2.0, 8.0])]
    a = ev.aggregate(rows, True, True)
    assert a["geomean_speedup_vs_max_autotune"] == pytest.approx(1.0) and a["fast_1_vs_max_autotune"] == 0.5
    assert a["geomean_speedup_vs_compile"] == pytest.approx(2.0)
    assert "geomean_speedup_vs_max_autotune" not in ev.aggregate([dict(r, speedup_vs_max_autotune=None)
                                                                  for r in rows], True, True)
    table = ev.level_table(ev.aggregate_by_level(rows, True, True), True, True)
    assert "geomean vs max-autotune" in table and "1.000x" in table
    failed = [dict(r, speedup_vs_max_autotune=None) for r in rows]  # asked for, failed everywhere: still a column
    assert "geomean vs max-autotune" in ev.level_table(ev.aggregate_by_level(failed, True, True), True, True, True)
    assert "max-autotune" not in ev.level_table(ev.aggregate_by_level(failed, True, True), True, True)
    args = _args(tmp_path, "--baseline", "max-autotune,compile")
    assert args.baseline == "eager,compile,max-autotune" and not args.autotune_measured  # CPU: nothing timed
    args.autotune_measured = args.speed_measured = True
    assert ev.judge_kwargs(args)["autotune_baseline"] is True
    with pytest.raises(ev.UsageError, match="max-autotune"):
        _args(tmp_path, "--baseline", "eager,reduce-overhead")
