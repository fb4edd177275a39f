"""train.py SFT hands on its best held-out checkpoint: <run>/best holds the policy of the lowest held-out loss and
best.json its step; --sft-patience stops after N evaluations without a new lowest loss. The held-out loss is stubbed
with a fixed sequence, so the best step is known by hand. CPU, a very small stand-in model."""
import json
import os

import torch

import policy as P
import train

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = os.path.join(HERE, "data_sft", "pairs.jsonl")
TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "2048"]


def test_best_checkpoint_and_patience(tmp_path, monkeypatch, capsys):
    losses = iter([0.5, 0.3, 0.4, 0.2, 0.6, 0.7, 0.1, 0.1])  # steps 1..8; lowest before the stop: step 4
    monkeypatch.setattr(train, "heldout_loss", lambda *a, **k: next(losses))
    out = tmp_path / "sft"
    argv = ["--stage", "sft", "--pairs", PAIRS, "--out", str(out), "--device", "cpu", *TINY_FLAGS, "--micro-batch",
            "2", "--lr", "1e-2", "--warmup-steps", "1", "--eval-every", "1", "--save-every", "4", "--keep-last", "3",
            "--max-steps", "8", "--sft-patience", "2"]
    assert train.main(argv) == 0
    assert "no better heldout_loss in 2 evaluations; stopping at step 6" in capsys.readouterr().out
    rows = [json.loads(line) for line in open(out / "metrics.jsonl")]
    assert [r["step"] for r in rows] == [1, 2, 3, 4, 5, 6]  # stopped by patience after 0.6 and 0.7
    assert [r["step"] for r in rows if r.get("best")] == [1, 2, 4]
    best = train.read_best(str(out))
    assert best["step"] == 4 and best["heldout_loss"] == 0.2
    assert [os.path.basename(d) for d in P.checkpoint_dirs(str(out))] == ["step_000004", "step_000006"]
    # the kept best policy is the step-4 checkpoint's, and RL's --init reads it through resolve_checkpoint
    a = P.load_policy(P.resolve_checkpoint(best["dir"]), device="cpu")
    b = P.load_policy(os.path.join(P.checkpoint_dirs(str(out))[0], "policy"), device="cpu")
    for (na, pa), (nb, pb) in zip(a.model.named_parameters(), b.model.named_parameters()):
        assert na == nb and torch.equal(pa, pb), na
    c = P.load_policy(os.path.join(P.checkpoint_dirs(str(out))[-1], "policy"), device="cpu")
    assert any(not torch.equal(pa, pc) for pa, pc in zip(a.model.parameters(), c.model.parameters()))


def test_best_by_judged_pass1_prefers_the_higher_score_and_the_later_tie(tmp_path, monkeypatch):
    """--sft-best-by pass1: the kept policy is the one with the highest judged pass@1 on held-out SFT tasks, not the
    lowest loss, and of two equal scores the later step (more training) wins."""
    scores = iter([0.25, 0.5, 0.5, 0.25])  # judged at steps 2, 4, 6, 8: best is step 6 (ties with 4, later)
    losses = iter([0.9, 0.1, 0.5, 0.6, 0.7, 0.8, 0.85, 0.95])  # the lowest loss is step 2's, which must not win

    def judged(pol, tasks, judge, step, run_dir, args):
        return {"gen_correct_frac": next(scores)}

    monkeypatch.setattr(train, "judged_generation", judged)
    monkeypatch.setattr(train, "heldout_loss", lambda *a, **k: next(losses))
    out = tmp_path / "sft"
    argv = ["--stage", "sft", "--pairs", PAIRS, "--out", str(out), "--device", "cpu", *TINY_FLAGS, "--micro-batch",
            "2", "--lr", "1e-2", "--warmup-steps", "1", "--eval-every", "1", "--gen-every", "2", "--save-every", "8",
            "--max-steps", "8", "--sft-best-by", "pass1"]
    assert train.main(argv) == 0
    best = train.read_best(str(out))
    assert best["step"] == 6 and best["gen_correct_frac"] == 0.5 and "heldout_loss" not in best
    rows = [json.loads(line) for line in open(out / "metrics.jsonl")]
    assert [r["step"] for r in rows if r.get("best")] == [2, 4, 6]
