"""bench.py rl-seeds: finished runs are skipped (resumable across machine calls) and every measure is summarised as
the mean and 95% interval over the seeds, checked against a hand computation on written run folders."""
import argparse
import json
import math
import os

import pytest

import bench


def write_run(d, first, last, informative):
    os.makedirs(d)
    rows = [{"step": 0, "heldout_pass1_by_level": {"1": first[0], "2": first[1]}},
            {"step": 1, "informative_frac": informative[0], "correct_frac": 0.5, "all_wrong_frac": 0.25},
            {"step": 2, "informative_frac": informative[1], "correct_frac": 0.5, "all_wrong_frac": 0.25,
             "heldout_pass1_by_level": {"1": last[0], "2": last[1]}}]
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    with open(os.path.join(d, "heldout_tasks.jsonl"), "w") as f:  # 3 level-1 and 1 level-2 held-out tasks
        f.writelines(json.dumps({"id": i, "level": lv}) + "\n" for i, lv in enumerate([1, 1, 1, 2]))
    with open(os.path.join(d, "seeds_done.json"), "w") as f:
        json.dump({}, f)


def test_rl_seeds_skips_finished_runs_and_summarises(tmp_path, monkeypatch):
    write_run(str(tmp_path / "drpo_seed0"), (2 / 3, 0.0), (1.0, 0.0), (0.5, 0.25))
    write_run(str(tmp_path / "drpo_seed1"), (2 / 3, 0.0), (2 / 3, 1.0), (0.25, 0.25))
    monkeypatch.setattr(bench.subprocess, "run", lambda *a, **k: pytest.fail("a finished run was started again"))
    args = argparse.Namespace(init="x", tasks="y", arms="drpo", seeds=2, seed=0, device="cpu", train_flags="",
                              stop_after_s=0, out=str(tmp_path), eval_tasks=None, kb_tasks=None, eval_flags="")
    bench.cmd_rl_seeds(args)
    s = json.load(open(tmp_path / "summary.json"))["summary"]["drpo"]
    assert s["seeds_done"] == 2
    # last held-out over the 4 tasks: seed 0 (3 * 1 + 0) / 4 = 0.75, seed 1 (3 * 2/3 + 1) / 4 = 0.75
    assert s["heldout_last"]["mean"] == pytest.approx(0.75) and s["heldout_last"]["ci95"] == pytest.approx(0.0)
    assert s["heldout_first"]["mean"] == pytest.approx(0.5)
    # mean informative share per run: 0.375 and 0.25; 95% interval t(1) * sd / sqrt(2), sd = 0.125 / sqrt(2)
    assert s["mean_informative_frac"]["mean"] == pytest.approx(0.3125)
    assert s["mean_informative_frac"]["ci95"] == pytest.approx(12.706 * (0.125 / math.sqrt(2)) / math.sqrt(2))
    assert s["heldout_last_L2"]["mean"] == pytest.approx(0.5) and s["steps"]["mean"] == 2


def test_rl_seeds_evaluates_each_checkpoint_and_the_sft_row_once(tmp_path, monkeypatch):
    """With --eval-tasks, eval.py judges the SFT checkpoint and each finished run's; its per-level Acc and fast_1 join
    the summary (SFT as a row of its own); an evaluation already done is not run again."""
    write_run(str(tmp_path / "drpo_seed0"), (2 / 3, 0.0), (1.0, 0.0), (0.5, 0.25))
    write_run(str(tmp_path / "drpo_seed1"), (2 / 3, 0.0), (2 / 3, 1.0), (0.25, 0.25))
    # per checkpoint: level-1 rows (correct, speedup) of the stubbed eval.py
    rows = {"x": [(True, 1.2), (False, None)], str(tmp_path / "drpo_seed0"): [(True, 0.9), (True, 2.0)],
            str(tmp_path / "drpo_seed1"): [(True, 1.5), (False, None)]}
    calls = []

    def fake_run(argv, cwd=None):
        assert argv[1].endswith("eval.py"), argv   # no training run starts: both are finished
        policy, out = argv[argv.index("--policy") + 1], argv[argv.index("--out") + 1]
        calls.append(policy)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.jsonl"), "w") as f:
            for i, (ok, sp) in enumerate(rows[policy]):
                f.write(json.dumps({"task_id": str(i), "level": 1, "correct": ok, "speedup": sp}) + "\n")
        return argparse.Namespace(returncode=0)
    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    args = argparse.Namespace(init="x", tasks="y", arms="drpo", seeds=2, seed=0, device="cpu", train_flags="",
                              stop_after_s=0, out=str(tmp_path), eval_tasks="held.jsonl", kb_tasks=None,
                              eval_flags="--device cuda")
    bench.cmd_rl_seeds(args)
    assert sorted(calls) == sorted(rows)
    s = json.load(open(tmp_path / "summary.json"))["summary"]
    assert s["sft"]["synthetic_acc_L1"]["mean"] == pytest.approx(0.5) and s["sft"]["synthetic_acc_L1"]["ci95"] is None
    assert s["drpo"]["synthetic_acc_L1"]["mean"] == pytest.approx(0.75)   # (2/2 + 1/2) / 2
    assert s["drpo"]["synthetic_fast_1_L1"]["mean"] == pytest.approx(0.5)   # (1/2 + 1/2) / 2
    calls.clear()
    bench.cmd_rl_seeds(args)   # everything done: nothing runs again
    assert calls == []
