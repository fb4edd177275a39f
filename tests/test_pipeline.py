"""`python train.py --stage all` end to end at the smallest scale: synth -> teacher pairs ->
SFT -> RL (DRPO, then the GRPO ablation from the same SFT checkpoint) -> eval on held-out level-1 and level-2
programs -> report.md. A very small stand-in model, CPU; the point is the plumbing (what each stage hands the
next, the held-out split, the per-level report), not what the model learns."""
import pytest
import json
import os

import pipeline

TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "8192"]


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.parametrize("mode", ["apart", "sft"])
def test_level1_rl_tasks_are_drawn_apart_from_sft_by_default(tmp_path, mode):
    """--pipeline-rl-level1: apart (default) draws level-1 RL programs that share no source with an SFT or eval
    program, so RL learns where SFT has not seen the answer (the held-out eval's situation); sft hands RL the SFT
    tasks themselves."""
    args = pipeline.parse_args(["--out", str(tmp_path), "--device", "cpu", "--pipeline-ops", "unary",
                                "--pipeline-tasks", "12", "--pipeline-eval-tasks", "3", "--levels", "1,2",
                                "--pipeline-rl-tasks", "5", "--judge-workers", "1"]
                               + (["--pipeline-rl-level1", mode] if mode != "apart" else []))
    sft, rl, ev = (read_jsonl(p) for p in pipeline.synth_pipeline_tasks(args, str(tmp_path)))
    rl1 = [r for r in rl if r["level"] == 1]
    assert len([r for r in rl if r["level"] == 2]) == 5
    if mode == "sft":
        assert [r["id"] for r in rl1] == [r["id"] for r in sft]
        return
    assert 0 < len(rl1) <= 5 and all(r["id"].startswith("rl_") for r in rl1)
    assert not {r["source"] for r in rl1} & {r["source"] for r in sft + ev}
    assert not {r["id"] for r in rl1} & {r["id"] for r in sft + ev}


@pytest.mark.slow
def test_pipeline_with_grpo_ablation_and_level2_eval(tmp_path):
    out = tmp_path / "run"
    flags = ["--out", str(out), "--device", "cpu", "--pipeline-ops", "unary", "--pipeline-tasks", "10",
             "--pipeline-eval-tasks", "3", "--levels", "1,2", "--pipeline-rl-tasks", "3",
             "--pipeline-sft-levels", "1,2", "--pipeline-eval-higher", "2", "--pipeline-sft-steps", "2",
             "--micro-batch", "4", "--eval-every", "1", "--rl-steps", "1", "--prompts-per-step", "2",
             "--group-size", "2", "--rollout-max-new-tokens", "16", "--rl-heldout-per-level", "1",
             "--pipeline-ablation-loss", "grpo", "--judge-workers", "2", "--pipeline-max-seq-len", "8192",
             "--pipeline-rl-seeds", "1",
             *TINY_FLAGS]
    # the data on its own first (as on a CPU box), then the rest reusing it (as on the GPU)
    assert pipeline.main(flags + ["--pipeline-data-only"]) == 0
    assert os.path.isfile(out / "data" / "pairs.jsonl") and not os.path.exists(out / "sft")
    pairs_before = (out / "data" / "pairs.jsonl").read_text()
    # SFT and its eval only (comparing SFT recipes); the full run below continues from its checkpoint
    assert pipeline.main(flags + ["--resume", "--pipeline-sft-only"]) == 0
    assert os.path.isfile(out / "eval_sft" / "results.jsonl") and not os.path.exists(out / "rl")
    rc = pipeline.main(flags + ["--resume"])
    assert rc == 0
    assert (out / "data" / "pairs.jsonl").read_text() == pairs_before  # reused, not remade
    data = out / "data"
    sft, rl, ev = (read_jsonl(data / n) for n in ("tasks_sft.jsonl", "tasks_rl.jsonl", "tasks_eval.jsonl"))
    # 10 level-1 programs: 3 held out, 7 for SFT; 3 level-2 programs for RL, also in SFT (--pipeline-sft-levels);
    # RL's level-1 programs drawn apart (--pipeline-rl-level1 apart, the default)
    assert sorted(r["level"] for r in sft) == [1] * 7 + [2] * 3
    assert [r["id"] for r in rl if r["level"] == 2] == [r["id"] for r in sft if r["level"] == 2]
    assert all(r["id"].startswith("rl_") for r in rl if r["level"] == 1) and any(r["level"] == 1 for r in rl)
    # held out: 3 level-1 + 2 level-2 programs, none of whose sources is trained on
    assert sorted(r["level"] for r in ev) == [1, 1, 1, 2, 2]
    assert not {r["source"] for r in ev} & {r["source"] for r in rl}
    pairs = read_jsonl(data / "pairs.jsonl")
    assert pairs and {p["task_id"] for p in pairs} <= {r["id"] for r in sft}

    for name in ("rl", "rl_grpo"):  # both RL runs start from the SFT checkpoint and log their own metrics
        rows = read_jsonl(out / name / "metrics.jsonl")
        assert [r["step"] for r in rows] == [0, 1]  # step 0: every level's held-out pass@1 of the SFT policy
        assert set(rows[0]["heldout_pass1_by_level"]) == {"1", "2"} and "heldout_pass1_by_level" in rows[1]
        run = json.load(open(out / name / "run.json"))
        assert run["args"]["loss"] == ("drpo" if name == "rl" else "grpo")
        assert run["args"]["init"] == str(out / "sft" / "best")
    summary = json.load(open(out / "run.json"))["summary"]
    assert set(summary["eval"]) == {"sft", "rl", "rl_grpo"}
    for agg in summary["eval"].values():
        assert agg["overall"]["n_tasks"] == 5
        assert {k: v["n_tasks"] for k, v in agg["levels"].items()} == {"1": 3, "2": 2}
    report = (out / "report.md").read_text()
    assert "| rl_grpo | 2 | 2 |" in report and "| sft | all | 5 |" in report
    assert os.path.isfile(out / "rl_grpo_curves.png")
    assert "## What RL adds" in report and "| rl |" in report and "## Checkpoints and next commands" in report
    assert "python eval.py --tasks ../shared/KernelBench/level1 --policy" in report
    best = json.load(open(out / "sft" / "best" / "best.json"))  # the lowest held-out loss's policy went to RL
    assert f"SFT handed RL its step-{best['step']} policy" in report
    assert json.load(open(out / "rl" / "run.json"))["args"]["init"] == str(out / "sft" / "best")
