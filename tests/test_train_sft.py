"""train.py --stage sft on CPU with a very small stand-in model; pinned to the CPU (fp32) so
the exact comparisons hold on a CUDA machine too."""
import importlib.util
import json
import math
import os
import subprocess
import sys

import pytest
import torch

import policy as P
import train

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAIRS = os.path.join(HERE, "data_sft", "pairs.jsonl")
TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "2048"]
SIZES = dict(vocab_size=400, hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64,
             max_positions=2048)


def sft_argv(out, *extra):
    return ["--stage", "sft", "--pairs", PAIRS, "--out", str(out), "--device", "cpu", *TINY_FLAGS, "--micro-batch", "2",
            "--grad-accum", "2", "--lr", "1e-2", "--warmup-steps", "2", "--eval-every", "2", "--save-every", "2",
            *extra]


def read_metrics(run_dir):
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def tiny():
    pairs = train.load_pairs(PAIRS)
    return P.load_policy(None, corpus_texts=train.corpus_texts(pairs, []), tiny_sizes=SIZES, lora_r=0, seed=0,
                         device="cpu")


def test_prompt_masking_loss_covers_completion_tokens_only(tiny):
    tok = tiny.tokenizer
    pair = {"task_id": "t", "prompt": "add two tensors", "completion": "Here:\n```python\nx + y\n```"}
    ex = P.encode_pair(tok, pair, tok.eos_token_id)
    prompt_ids = P.encode(tok, P.render_user(tok, pair["prompt"]))
    completion_ids = P.encode(tok, pair["completion"]) + [tok.eos_token_id]
    assert ex["input_ids"] == prompt_ids + completion_ids and ex["n_prompt"] == len(prompt_ids)
    ids, attention, loss_mask = P.collate([ex, {**ex, "input_ids": ex["input_ids"][:-3]}], tok.pad_token_id)
    assert loss_mask[0].tolist() == [0] * len(prompt_ids) + [1] * len(completion_ids)
    assert loss_mask[1].sum() == len(completion_ids) - 3 and attention[1].sum() == len(ex["input_ids"]) - 3
    # The loss equals a hand computation: cross-entropy of the completion tokens under full logits.
    tiny.model.eval()
    nll_sum, n = P.completion_nll_sum(tiny, (ids, attention, loss_mask), chunk_tokens=7)
    with torch.no_grad():
        logits = tiny.model(input_ids=ids, attention_mask=attention).logits.float()
    want, count = 0.0, 0
    for row in range(2):
        for t in range(1, ids.shape[1]):
            if loss_mask[row, t]:
                want -= torch.log_softmax(logits[row, t - 1], -1)[ids[row, t]].item()
                count += 1
    assert n == count == 2 * len(completion_ids) - 3
    assert math.isclose(nll_sum.item(), want, rel_tol=1e-5)


def test_step_loss_does_not_depend_on_micro_batching_or_padding(tiny):
    """Mean over all completion tokens of the step: 1 x 4 sequences == 2 x 2 (gradient accumulation) == 1 x 4 padded
    to a multiple of 64 tokens (--pad-multiple: the extra padding is masked out)."""
    import copy

    pairs = train.load_pairs(PAIRS)
    examples, _ = P.encode_pairs(tiny.tokenizer, pairs[:4], 4096)
    assert max(len(e["input_ids"]) for e in examples) % 64  # the padded case really pads
    argv = ["--stage", "sft", "--pairs", PAIRS, "--grad-clip", "0", "--device", "cpu"]
    results = []
    for micro_batches, pad in [([[0, 1, 2, 3]], 1), ([[0, 1], [2, 3]], 1), ([[0, 1, 2, 3]], 64)]:
        args = train.parse_args(argv + ["--pad-multiple", str(pad)])
        pol = copy.deepcopy(tiny)
        opt = train.make_optimizer(pol, args)
        sched = train.make_scheduler(opt, args, 10)
        out = train.sft_step(pol, examples, micro_batches, opt, sched, args)
        results.append((out, [p.detach().clone() for p in pol.model.parameters()]))
    (a, pa), *others = results
    for b, pb in others:
        assert math.isclose(a["loss"], b["loss"], rel_tol=1e-6)
        assert math.isclose(a["grad_norm"], b["grad_norm"], rel_tol=1e-4)
        assert a["completion_tokens"] == b["completion_tokens"] and a["tokens"] == b["tokens"]
        for x, y in zip(pa, pb):
            torch.testing.assert_close(x, y, atol=1e-6, rtol=1e-5)
    ids, attention, loss_mask = P.collate([examples[0], examples[1]], tiny.tokenizer.pad_token_id, 64)
    longest = max(len(examples[0]["input_ids"]), len(examples[1]["input_ids"]))
    assert ids.shape[1] == -(-longest // 64) * 64 and ids.shape[1] > longest
    assert attention.sum() == len(examples[0]["input_ids"]) + len(examples[1]["input_ids"])
    assert not loss_mask[:, longest:].any() and (ids[:, longest:] == tiny.tokenizer.pad_token_id).all()


def test_lr_schedule_hand_computed():
    f = lambda s: train.lr_lambda(s, warmup_steps=4, total_steps=14, schedule="cosine", min_lr_frac=0.1)
    assert [f(s) for s in range(4)] == [0.25, 0.5, 0.75, 1.0]
    assert math.isclose(f(4), 1.0)
    assert math.isclose(f(9), 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))  # halfway: 0.55
    assert math.isclose(f(14), 0.1) and math.isclose(f(20), 0.1)
    assert train.lr_lambda(7, 4, 14, "constant", 0.1) == 1.0


def test_epoch_batches_cover_each_example_once_and_bucket_by_length():
    lengths = [(i * 37) % 101 for i in range(50)]
    batches = train.epoch_batches(lengths, micro_batch=4, bucket_size=20, seed=3, epoch=0)
    assert sorted(i for b in batches for i in b) == list(range(50))
    assert batches == train.epoch_batches(lengths, 4, 20, seed=3, epoch=0)  # a function of (seed, epoch)
    assert batches != train.epoch_batches(lengths, 4, 20, seed=3, epoch=1)
    spread = lambda bs: sum(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in bs)
    no_bucketing = train.epoch_batches(lengths, 4, 1, seed=3, epoch=0)
    assert sum(len(b) < 4 for b in batches) == 1 and sum(len(b) < 4 for b in no_bucketing) == 1  # 50 = 12 x 4 + 2
    assert spread(batches) < spread(no_bucketing) / 2
    stream = train.BatchStream(lengths, 4, 20, seed=3)
    drawn = [stream.next() for _ in range(len(batches) + 2)]
    assert drawn[:len(batches)] == batches and stream.state() == {"epoch": 1, "index": 2}


def test_split_heldout_by_task_id():
    pairs = [{"task_id": f"t{i % 7}", "prompt": "p", "completion": str(i)} for i in range(21)]
    train_pairs, heldout = train.split_heldout(pairs, 0.3, seed=0)
    assert len(train_pairs) + len(heldout) == 21
    assert not {p["task_id"] for p in train_pairs} & {p["task_id"] for p in heldout}
    assert len({p["task_id"] for p in heldout}) == 3  # ceil(0.3 * 7)
    assert train.split_heldout(list(reversed(pairs)), 0.3, seed=0)[1][0]["task_id"] in {p["task_id"] for p in heldout}


def final_params(run_dir):
    ckpt = P.checkpoint_dirs(str(run_dir))[-1]
    pol = P.load_policy(os.path.join(ckpt, "policy"), device="cpu")
    return {n: p.detach().clone() for n, p in pol.model.named_parameters() if p.requires_grad}


@pytest.mark.parametrize("lora", [False, True])
def test_resume_equals_uninterrupted_run(tmp_path, lora, capsys):
    # LoRA with dropout also checks that the RNG state is restored.
    extra = ["--max-steps", "5", "--seed", "3"] + (["--lora-r", "4", "--lora-alpha", "8", "--lora-dropout", "0.1"]
                                                   if lora else [])
    full, part = tmp_path / "full", tmp_path / "part"
    assert train.main(sft_argv(full, *extra)) == 0
    # "Killed" after step 3: the last checkpoint is step 2, and step 3 was lost with the process.
    assert train.main(sft_argv(part, *extra, "--stop-after", "3")) == 0
    assert [os.path.basename(d) for d in P.checkpoint_dirs(str(part))] == ["step_000002"]
    os.makedirs(part / "checkpoints" / ".tmp-step_000004-999" / "policy")  # a writer killed mid-checkpoint
    assert train.main(["--stage", "sft", "--out", str(part), "--resume", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "step_000002" in out
    a, b = read_metrics(full), read_metrics(part)
    assert [r["step"] for r in b] == [1, 2, 3, 4, 5]
    assert [r["loss"] for r in a] == [r["loss"] for r in b]
    assert [r.get("heldout_loss") for r in a] == [r.get("heldout_loss") for r in b]
    assert [r["lr"] for r in a] == [r["lr"] for r in b]
    pa, pb = final_params(full), final_params(part)
    assert pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)
    assert not os.path.exists(part / "checkpoints" / ".tmp-step_000004-999")
    assert a[-1]["loss"] < a[0]["loss"]  # it learns
    run = json.loads((part / "run.json").read_text())
    assert run["args"]["lora_r"] == (4 if lora else 0) and len(run["resumes"]) == 1


def test_exported_run_resumes_finished_with_bf16_weights(tmp_path, capsys):
    """export_run writes the last checkpoint as a small run directory (bf16 weights, the step, no optimizer): a
    resume of it trains nothing and returns the exported weights (the original rounded to bf16), and asking it for
    more steps is a clear error, not a crash deep in the optimizer's state."""
    run_dir, out = tmp_path / "run", tmp_path / "exported"
    assert train.main(sft_argv(run_dir, "--max-steps", "2")) == 0
    dest = train.export_run(str(run_dir), str(out))
    assert os.path.basename(dest) == "step_000002"
    state = P.load_trainer_state(dest)
    assert state["step"] == 2 and "optimizer" not in state
    from safetensors.torch import load_file
    stored = load_file(os.path.join(dest, "policy", "model", "model.safetensors"))
    assert {t.dtype for t in stored.values()} == {torch.bfloat16}
    capsys.readouterr()
    assert train.main(["--stage", "sft", "--out", str(out), "--resume", "--device", "cpu"]) == 0
    printed = capsys.readouterr().out
    assert "SFT finished at step 2 of 2" in printed and "\nstep " not in printed
    assert [r["step"] for r in read_metrics(out)] == [1, 2]   # the run's metrics came along, none added
    orig, got = final_params(run_dir), final_params(out)
    assert orig.keys() == got.keys()
    assert all(torch.equal(orig[k].to(torch.bfloat16), got[k].to(torch.bfloat16)) for k in orig)
    assert not all(torch.equal(orig[k], got[k].float()) for k in orig)   # rounded: not the fp32 original
    # a run stopped at step 3 of 4 exports its step-2 checkpoint, which cannot go on to step 4
    part, part_out = tmp_path / "part", tmp_path / "part_exported"
    assert train.main(sft_argv(part, "--max-steps", "4", "--stop-after", "3")) == 0
    train.export_run(str(part), str(part_out))
    capsys.readouterr()
    assert train.main(["--stage", "sft", "--out", str(part_out), "--resume", "--device", "cpu"]) == 2
    assert "exported checkpoint (weights only, step 2)" in capsys.readouterr().err
    with pytest.raises(train.UsageError, match="holds no checkpoint"):
        train.export_run(str(tmp_path / "empty"), str(tmp_path / "x"))
    lora = tmp_path / "lora"   # an adapter's base stays behind: refused, not exported onto a random base
    assert train.main(sft_argv(lora, "--max-steps", "2", "--lora-r", "4", "--lora-alpha", "8")) == 0
    with pytest.raises(train.UsageError, match="LoRA adapter"):
        train.export_run(str(lora), str(tmp_path / "lora_exported"))


def test_run_outputs_and_log_lines(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert train.main(sft_argv(run_dir, "--max-steps", "2", "--keep-last", "1")) == 0
    out = capsys.readouterr().out
    step_lines = [line for line in out.splitlines() if line.startswith("step ")]
    assert len(step_lines) == 2
    assert step_lines[0].startswith("step 0001/0002 | loss ") and " | lr " in step_lines[0]
    assert " | tok_per_s " in step_lines[0]
    assert any(line.startswith("eval 0002/0002 | heldout_loss ") for line in out.splitlines())
    run = json.loads((run_dir / "run.json").read_text())
    for key in ["args", "argv", "git_commit", "versions", "gpus", "derived"]:
        assert key in run
    assert run["argv"][:2] == ["--stage", "sft"] and run["versions"]["torch"]
    rows = read_metrics(run_dir)
    assert [r["step"] for r in rows] == [1, 2]
    assert all(k in rows[0] for k in ["loss", "lr", "grad_norm", "tok_per_s", "tokens", "completion_tokens"])
    assert math.isfinite(rows[1]["heldout_loss"])
    assert [os.path.basename(d) for d in P.checkpoint_dirs(str(run_dir))] == ["step_000002"]
    ckpt = P.checkpoint_dirs(str(run_dir))[0]
    for name in ["run.json", "args.json", "trainer_state.pt", "policy/policy.json", "policy/tokenizer"]:
        assert os.path.exists(os.path.join(ckpt, name))
    # The same out dir again without --resume would mix two runs: refused.
    assert train.main(sft_argv(run_dir, "--max-steps", "2")) == 2
    assert "--resume" in capsys.readouterr().err


def test_prompt_source_code_trains_on_docless_prompts_and_is_saved(tmp_path, monkeypatch):
    """--prompt-source code (gpu-small's): SFT encodes each pair's prompt with its source's docstrings and comments
    removed (the pairs file keeps them), and the checkpoint records the form, so RL and eval.py prompt the same."""
    pairs = train.load_pairs(PAIRS)
    doc = '''    """A docstring the model should not see."""\n'''
    for p in pairs:  # a class docstring and a comment in every prompt
        p["prompt"] = p["prompt"].replace("class Model(nn.Module):\n", "class Model(nn.Module):\n" + doc)
        p["prompt"] = p["prompt"].replace("def get_inputs():\n", "def get_inputs():  # the inputs\n")
    assert all("should not see" in p["prompt"] and "# the inputs" in p["prompt"] for p in pairs)
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs))
    seen = []
    real = P.encode_pairs
    monkeypatch.setattr(P, "encode_pairs", lambda tok, ps, n: (seen.extend(ps), real(tok, ps, n))[1])
    argv = sft_argv(tmp_path / "run", "--max-steps", "1", "--prompt-source", "code")
    argv[argv.index(PAIRS)] = str(path)
    assert train.main(argv) == 0
    assert len(seen) == len(pairs)
    assert all(p["prompt"] == P.prompt_in_form(q["prompt"], "code") for p, q in
               zip(sorted(seen, key=lambda p: p["task_id"]), sorted(pairs, key=lambda p: p["task_id"])))
    assert not any("should not see" in p["prompt"] or "# the inputs" in p["prompt"] for p in seen)
    ckpt = P.checkpoint_dirs(str(tmp_path / "run"))[-1]
    assert json.loads(open(os.path.join(ckpt, "policy", "policy.json")).read())["source_form"] == "code"


@pytest.mark.parametrize("argv, message", [
    (["--stage", "sft", "--pairs", "/nonexistent/pairs.jsonl"], "pairs file not found"),
    (["--stage", "rl"], "--stage rl needs --tasks"),
    (["--stage", "sft", "--out", "/nonexistent/run", "--resume"], "run directory not found"),
])
def test_missing_files_and_unbuilt_stages_exit_2(tmp_path, argv, message, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert train.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not os.listdir(tmp_path)  # nothing written (no runs/<stage>-<time>/)


def test_bad_pairs_file_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "a", "prompt": "p", "completion": "c"}\n{not json}\n')
    assert train.main(["--stage", "sft", "--pairs", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "bad.jsonl:2: not valid JSON" in capsys.readouterr().err
    bad.write_text('{"task_id": "a", "prompt": "p"}\n')
    assert train.main(["--stage", "sft", "--pairs", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "'completion'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["--stage", "sft"],                                   # no --pairs
    ["--stage", "sft", "--pairs", PAIRS, "--micro-batch", "0"],
    ["--stage", "sft", "--pairs", PAIRS, "--heldout-frac", "1.5"],
    ["--stage", "sft", "--pairs", PAIRS, "--lr", "fast"],
    ["--stage", "sft", "--pairs", PAIRS, "--preset", "huge"],
    ["--stage", "sft", "--pairs", PAIRS, "--adam-betas", "0.9"],
    ["--stage", "sft", "--pairs", PAIRS, "--load-in-4bit", "--lora-r", "0"],
    ["--stage", "sft", "--pairs", PAIRS, "--load-in-4bit", "--lora-r", "8", "--device", "cpu"],  # 4-bit needs CUDA
    ["--resume"],
])
def test_bad_flags_exit_2(argv):
    with pytest.raises(SystemExit) as e:
        train.main(argv)
    assert e.value.code == 2


def test_cli_bad_flag_is_a_message_not_a_traceback():
    r = subprocess.run([sys.executable, "train.py", "--stage", "sft", "--pairs", "missing.jsonl", "--out", "/tmp/x"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and "error: pairs file not found: missing.jsonl" in r.stderr
    assert "Traceback" not in r.stderr


def test_presets_set_defaults_and_flags_win():
    args = train.parse_args(["--stage", "sft", "--pairs", PAIRS, "--preset", "paper-7b", "--lr", "5e-5"])
    assert args.model == "Qwen/Qwen2.5-Coder-7B-Instruct" and args.lora_r == 64 and args.lr == 5e-5
    assert train.parse_args(["--stage", "sft", "--pairs", PAIRS]).lora_r == 0  # tiny: full fine-tuning
    assert train.parse_args(["--stage", "sft", "--pairs", PAIRS, "--model", "x"]).lora_r == 16


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("reward") is None,
                    reason="reward.py (the judge) is not in the tree yet")
def test_periodic_judged_generation(tmp_path, monkeypatch):
    """Held-out tasks are sampled and judged every --gen-every steps. The tiny model writes no solution in
    two steps, so the first sample's text is swapped for that task's known-good completion: the judge
    must accept it (the task source travels through the prompt) and reject the other one."""
    pairs = {p["task_id"]: p for p in train.load_pairs(PAIRS)}
    real_generate = P.generate

    def generate_then_swap_first(pol, prompts, *args, **kwargs):
        samples = real_generate(pol, prompts, *args, **kwargs)
        first_task = next(t for t, p in pairs.items() if P.render_user(pol.tokenizer, p["prompt"]) == prompts[0])
        samples[0].text = pairs[first_task]["completion"]
        return samples

    monkeypatch.setattr(train.policy_lib, "generate", generate_then_swap_first)
    run_dir = tmp_path / "run"
    argv = sft_argv(run_dir, "--max-steps", "2", "--gen-every", "2", "--gen-tasks", "2", "--gen-max-new-tokens", "16",
                    "--heldout-frac", "0.2", "--judge-workers", "1", "--judge-timeout-s", "120")
    assert train.main(argv) == 0
    rows = read_metrics(run_dir)
    assert "gen_correct_frac" not in rows[0]
    assert rows[1]["gen_correct_frac"] == 0.5 and rows[1]["gen_compiled_frac"] >= 0.5
    with open(run_dir / "samples" / "sft_step_000002.jsonl") as f:
        samples = [json.loads(line) for line in f]
    assert [s["verdict"]["correct"] for s in samples] == [True, False]
    assert samples[1]["tokens"] <= 16 and samples[1]["verdict"]["error_type"]
