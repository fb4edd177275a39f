"""train.py: SFT warm-up (and, with issue 6, RL) of a policy that turns PyTorch programs into Triton kernels.

    python train.py --stage sft --pairs data/pairs.jsonl --out runs/sft-tiny           # tiny model, CPU
    python train.py --stage sft --pairs data/pairs.jsonl --out runs/sft-7b --preset paper-7b
    python train.py --stage sft --out runs/sft-tiny --resume                          # continue exactly

SFT (issue 5): LoRA on all linear layers (peft; `--lora-r 0` fine-tunes every weight, which a tiny model
trained from scratch needs), loss on completion tokens only, mean over all completion tokens of an
optimizer step (so micro-batching and gradient accumulation do not change it), chunked fp32
cross-entropy through `policy.token_logprobs`, length-bucketed micro-batches, AdamW with linear warm-up
and a cosine decay, held-out loss, and every `--gen-every` steps a few held-out tasks sampled and judged by
reward.py. Checkpoints hold the adapter (or weights), optimizer, scheduler, RNG states and the data
position; each is written to a temporary directory and renamed, so a kill never loses the last good
one, and `--resume` replays the run bit for bit on the same machine (CPU; CUDA kernels may differ in
the last bits).

Every run writes into `--out`: run.json (args, argv, git commit, versions, GPU), metrics.jsonl (one dict
per optimizer step, the same keys as the one-line log), samples/ (judged generations), checkpoints/.

What is not here yet, by design: `--stage rl` (issue 6) and the default no-argument pipeline
(synth -> teacher -> tokenizer + tiny model -> SFT -> RL -> eval), which the lead wires up; both have
marked places below. The building blocks (run dir, run.json, metrics log, checkpoints, RNG capture) are
small functions that the RL stage reuses.
"""
import argparse
import contextlib
import json
import math
import os
import platform
import random
import shutil
import subprocess
import sys
import time

import torch

import policy as policy_lib

HERE = os.path.dirname(os.path.abspath(__file__))


class UsageError(Exception):
    """A bad flag combination or a missing/unreadable input: reported in one line, exit code 2."""


# ----------------------------------------------------------------------------------------------------
# Flags. Presets only change defaults; any flag given on the command line wins.

PRESETS = {
    # Laptop: the tiny model from scratch (full fine-tuning), CPU, minutes.
    "tiny": dict(),
    # One GPU, minutes: a larger from-scratch model (issue 5 target: >= 60% verified on level 1).
    "gpu-small": dict(tiny_hidden=512, tiny_layers=8, tiny_heads=8, tiny_kv_heads=4, tiny_intermediate=1376,
                      tiny_vocab=8192, micro_batch=32, lr=1e-3, epochs=20, warmup_steps=50,
                      eval_every=100, save_every=200, gen_every=200, gen_tasks=16),
    # The paper's model: Qwen2.5-Coder-7B-Instruct, LoRA r=64 in bf16 on one 80 GB GPU. Measured on an H200
    # (7B shape, random weights, 16 x 2048 tokens per step): micro-batch 2 without gradient checkpointing
    # 8.5k tok/s at 53 GB peak; micro-batch 4 with it 6.3k tok/s at 22 GB (use that for longer sequences).
    "paper-7b": dict(model="Qwen/Qwen2.5-Coder-7B-Instruct", lora_r=64, lora_alpha=128, lr=1e-4,
                     micro_batch=2, grad_accum=8, max_seq_len=2048, epochs=2,
                     warmup_steps=20, eval_every=50, save_every=100, gen_every=100, gen_tasks=16,
                     gen_max_new_tokens=2048, logprob_chunk_tokens=1024),
}

# Flags that describe this invocation rather than the run: on --resume they come from the command line,
# every other value comes from the checkpoint so the run continues exactly.
RUNTIME_FLAGS = {"resume", "out", "stop_after", "device"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--stage", choices=["all", "sft", "rl"], default="all",
                   help="all = the whole offline pipeline (not wired yet); sft; rl (issue 6)")
    p.add_argument("--preset", choices=sorted(PRESETS), default="tiny", help="a named recipe of defaults")
    p.add_argument("--out", default=None, help="run directory (default: runs/<stage>-<time>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    p.add_argument("--seed", type=int, default=0, help="seeds data order, init, dropout and sampling")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    g = p.add_argument_group("data")
    g.add_argument("--pairs", default=None, help="SFT pairs JSONL: {task_id, prompt, completion, verdict}")
    g.add_argument("--tasks", default=None,
                   help="task JSONL {id, source, ...}: sources for judged generation and tokenizer corpus "
                        "(default: the source inside each pair's prompt)")
    g.add_argument("--heldout-frac", type=float, default=0.1, help="fraction of task ids held out")
    g.add_argument("--max-seq-len", type=int, default=2048, help="tokens; longer pairs are dropped")
    g.add_argument("--bucket-size", type=int, default=256,
                   help="sequences per length-sorting window, rounded up to whole micro-batches "
                        "(length bucketing; 1 = no bucketing)")
    g = p.add_argument_group("model")
    g.add_argument("--model", default=None, help="hub id or local path of a causal LM (default: the tiny model)")
    g.add_argument("--tiny-vocab", type=int, default=4096, help="tiny tokenizer: BPE vocab size (tokens)")
    g.add_argument("--tiny-hidden", type=int, default=256, help="tiny model: hidden size")
    g.add_argument("--tiny-layers", type=int, default=4, help="tiny model: decoder layers")
    g.add_argument("--tiny-heads", type=int, default=4, help="tiny model: attention heads")
    g.add_argument("--tiny-kv-heads", type=int, default=2, help="tiny model: key/value heads")
    g.add_argument("--tiny-intermediate", type=int, default=688, help="tiny model: MLP width")
    g.add_argument("--tiny-max-positions", type=int, default=4096, help="tiny model: context length (tokens)")
    g.add_argument("--lora-r", type=int, default=None,
                   help="LoRA rank on all linear layers; 0 = full fine-tuning "
                        "(default: 0 for the tiny model, 16 for --model)")
    g.add_argument("--lora-alpha", type=float, default=32.0, help="LoRA alpha (scale = alpha / r)")
    g.add_argument("--lora-dropout", type=float, default=0.0, help="LoRA dropout probability")
    g.add_argument("--load-in-4bit", action="store_true", help="4-bit NF4 base (QLoRA; needs CUDA + bitsandbytes)")
    g.add_argument("--gradient-checkpointing", action="store_true", help="recompute activations in backward")
    g.add_argument("--dtype", choices=["auto", "bf16", "fp32"], default="auto",
                   help="base weights; auto = bf16 on CUDA (fp32 for full fine-tuning), fp32 on CPU")
    g = p.add_argument_group("optimisation")
    g.add_argument("--lr", type=float, default=3e-4, help="peak learning rate (AdamW, per optimizer step)")
    g.add_argument("--min-lr-frac", type=float, default=0.1, help="cosine floor as a fraction of --lr")
    g.add_argument("--warmup-steps", type=int, default=10, help="optimizer steps of linear warm-up")
    g.add_argument("--schedule", choices=["cosine", "constant"], default="cosine", help="lr after warm-up")
    g.add_argument("--weight-decay", type=float, default=0.0, help="AdamW decoupled weight decay")
    g.add_argument("--adam-betas", default="0.9,0.95", help="AdamW beta1,beta2")
    g.add_argument("--grad-clip", type=float, default=1.0, help="max global grad norm (0 = off)")
    g.add_argument("--micro-batch", type=int, default=8, help="sequences per forward/backward")
    g.add_argument("--grad-accum", type=int, default=1, help="micro-batches per optimizer step")
    g.add_argument("--epochs", type=float, default=3.0, help="passes over the training pairs")
    g.add_argument("--max-steps", type=int, default=0, help="optimizer steps (0 = from --epochs)")
    g.add_argument("--logprob-chunk-tokens", type=int, default=512,
                   help="tokens per chunk of the output layer + fp32 cross-entropy")
    g = p.add_argument_group("evaluation, logging, checkpoints")
    g.add_argument("--eval-every", type=int, default=20, help="optimizer steps between held-out losses (0 = off)")
    g.add_argument("--eval-max-pairs", type=int, default=64, help="held-out pairs used for the held-out loss")
    g.add_argument("--gen-every", type=int, default=0,
                   help="optimizer steps between judged generations on held-out tasks (0 = off)")
    g.add_argument("--gen-tasks", type=int, default=4, help="held-out tasks sampled per judged generation")
    g.add_argument("--gen-max-new-tokens", type=int, default=512, help="tokens per judged generation")
    g.add_argument("--gen-temperature", type=float, default=0.0, help="0 = greedy")
    g.add_argument("--gen-top-p", type=float, default=1.0, help="nucleus mass for judged generation")
    g.add_argument("--gen-batch-size", type=int, default=16, help="sequences per generate call")
    g.add_argument("--judge-workers", type=int, default=2, help="reward.Judge worker processes")
    g.add_argument("--judge-timeout-s", type=float, default=60.0, help="seconds per candidate")
    g.add_argument("--judge-policy", choices=["hybrid", "strict"], default="hybrid", help="torch ops allowed?")
    g.add_argument("--save-every", type=int, default=50, help="optimizer steps between checkpoints")
    g.add_argument("--keep-last", type=int, default=2, help="checkpoints kept (older ones are deleted)")
    g.add_argument("--stop-after", type=int, default=0,
                   help="testing: exit after this step without a final checkpoint, as a kill would")
    return p


def parse_args(argv):
    """Parse twice: first to find --preset, then with the preset's values as defaults."""
    parser = build_parser()
    known, _ = parser.parse_known_args(argv)
    parser.set_defaults(**PRESETS[known.preset])
    args = parser.parse_args(argv)
    args.argv = list(argv)
    check_args(parser, args)
    return args


def check_args(parser, args):
    """Flag values that cannot work; parser.error prints usage and exits with code 2."""
    positive = ["micro_batch", "grad_accum", "max_seq_len", "logprob_chunk_tokens", "save_every", "keep_last",
                "bucket_size", "gen_tasks", "gen_max_new_tokens", "gen_batch_size", "judge_workers"]
    for name in positive:
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be > 0 (got {getattr(args, name)})")
    for name in ["warmup_steps", "max_steps", "eval_every", "gen_every", "stop_after", "weight_decay", "grad_clip",
                 "gen_temperature"]:
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0 (got {getattr(args, name)})")
    if not 0 <= args.heldout_frac < 1:
        parser.error(f"--heldout-frac must be in [0, 1) (got {args.heldout_frac})")
    if not 0 < args.gen_top_p <= 1:
        parser.error(f"--gen-top-p must be in (0, 1] (got {args.gen_top_p})")
    if args.lr <= 0 or args.epochs <= 0:
        parser.error("--lr and --epochs must be > 0")
    if not 0 <= args.min_lr_frac <= 1:
        parser.error("--min-lr-frac must be in [0, 1]")
    try:
        betas = [float(b) for b in args.adam_betas.split(",")]
    except ValueError:
        betas = []
    if len(betas) != 2 or not all(0 <= b < 1 for b in betas):
        parser.error(f"--adam-betas must be two numbers in [0, 1), e.g. 0.9,0.95 (got {args.adam_betas!r})")
    if args.lora_r is None:
        args.lora_r = 16 if args.model else 0
    if args.lora_r < 0:
        parser.error("--lora-r must be >= 0")
    if args.load_in_4bit and args.lora_r == 0:
        parser.error("--load-in-4bit needs LoRA (--lora-r > 0): a 4-bit base cannot be trained directly")
    if args.stage == "sft" and not args.resume and not args.pairs:
        parser.error("--stage sft needs --pairs PAIRS.jsonl")
    if args.resume and not args.out:
        parser.error("--resume needs --out RUN_DIR")


# ----------------------------------------------------------------------------------------------------
# Run directory, run.json, metrics (shared with the RL stage)


def git_commit():
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=HERE,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (commit + ("-dirty" if dirty else "")) or None


def run_info() -> dict:
    """What produced a run: code version, package versions, hardware."""
    import importlib.metadata as md

    versions = {}
    for name in ["torch", "triton", "transformers", "peft", "tokenizers", "bitsandbytes", "numpy"]:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    gpus = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            gpus.append({"name": props.name, "memory_gb": round(props.total_memory / 2**30, 1)})
    return {"git_commit": git_commit(), "python": platform.python_version(), "platform": platform.platform(),
            "versions": versions, "gpus": gpus, "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "hostname": platform.node(), "time": time.strftime("%Y-%m-%d %H:%M:%S")}


def write_json_atomic(path, obj):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, default=str)
    os.replace(tmp, path)


def write_run_json(run_dir, args, extra=None):
    """run.json: args, argv, git commit, versions, GPU; a resume appends to its `resumes` list."""
    path = os.path.join(run_dir, "run.json")
    record = {"args": vars(args), "argv": args.argv, **run_info(), **(extra or {})}
    if args.resume and os.path.isfile(path):
        with open(path) as f:
            old = json.load(f)
        old.setdefault("resumes", []).append(record)
        record = old
    write_json_atomic(path, record)
    return record


class MetricsLog:
    """metrics.jsonl (one dict per step) and the one-line log of fixed keys."""

    LINE_KEYS = [("loss", "{:.4f}"), ("lr", "{:.2e}"), ("grad_norm", "{:.3f}"), ("tok_per_s", "{:.0f}"),
                 ("step_s", "{:.2f}")]
    EVAL_KEYS = [("heldout_loss", "{:.4f}"), ("gen_correct_frac", "{:.3f}"), ("gen_compiled_frac", "{:.3f}"),
                 ("gen_mean_tokens", "{:.0f}")]

    def __init__(self, run_dir, total_steps, keep_until_step=None):
        self.path = os.path.join(run_dir, "metrics.jsonl")
        self.total_steps = total_steps
        if keep_until_step is not None and os.path.isfile(self.path):
            # On resume, drop steps after the checkpoint: they are about to be replayed.
            with open(self.path) as f:
                rows = [json.loads(line) for line in f if line.strip()]
            with open(self.path, "w") as f:
                for row in rows:
                    if row.get("step", 0) <= keep_until_step:
                        f.write(json.dumps(row) + "\n")

    def format_line(self, row, keys, prefix="step"):
        width = len(str(self.total_steps))
        parts = [f"{prefix} {row['step']:0{max(4, width)}d}/{self.total_steps:0{max(4, width)}d}"]
        for key, fmt in keys:
            value = row.get(key)
            parts.append(f"{key} " + ("-" if value is None else fmt.format(value)))
        return " | ".join(parts)

    def log(self, row):
        with open(self.path, "a") as f:
            f.write(json.dumps(row) + "\n")
        print(self.format_line(row, self.LINE_KEYS), flush=True)
        if any(k in row for k, _ in self.EVAL_KEYS):
            print(self.format_line(row, self.EVAL_KEYS, prefix="eval"), flush=True)


# ----------------------------------------------------------------------------------------------------
# RNG and checkpoints (shared with the RL stage)


def capture_rng() -> dict:
    import numpy as np

    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state):
    import numpy as np

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def checkpoint_dirs(run_dir) -> list:
    """Complete checkpoints, oldest first. Half-written ones live under .tmp-* names and are ignored."""
    root = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(root):
        return []
    names = sorted(n for n in os.listdir(root) if n.startswith("step_") and n[5:].isdigit())
    return [os.path.join(root, n) for n in names]


def save_checkpoint(run_dir, step, pol, trainer_state: dict, args, keep_last: int) -> str:
    """Write checkpoints/step_NNNNNN atomically: build it under a temporary name, then rename.

    trainer_state: anything torch.save can hold (optimizer, scheduler, data position, curriculum...);
    RNG states are added here, so capture happens at the same point in every run.
    """
    root = os.path.join(run_dir, "checkpoints")
    os.makedirs(root, exist_ok=True)
    final = os.path.join(root, f"step_{step:06d}")
    tmp = os.path.join(root, f".tmp-step_{step:06d}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    base_dir = os.path.join(run_dir, "base_model") if pol.base == "tiny" else None
    policy_lib.save_policy(pol, os.path.join(tmp, "policy"), base_dir=base_dir)
    torch.save({**trainer_state, "step": step, "rng": capture_rng()}, os.path.join(tmp, "trainer_state.pt"))
    shutil.copy(os.path.join(run_dir, "run.json"), os.path.join(tmp, "run.json"))
    with open(os.path.join(tmp, "args.json"), "w") as f:
        json.dump(vars(args), f, indent=1, default=str)
    if os.path.isdir(final):  # re-saving a step after a resume: move the old one aside first
        old = f"{tmp}-old"
        os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, final)
    for stale in checkpoint_dirs(run_dir)[:-keep_last]:
        shutil.rmtree(stale, ignore_errors=True)
    for name in os.listdir(root):  # leftovers of killed writers
        if name.startswith(".tmp-") and not name.startswith(f".tmp-step_{step:06d}-{os.getpid()}"):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    return final


def load_trainer_state(ckpt_dir) -> dict:
    # weights_only=False: the file holds numpy RNG state and plain Python objects that we wrote ourselves.
    return torch.load(os.path.join(ckpt_dir, "trainer_state.pt"), map_location="cpu", weights_only=False)


# ----------------------------------------------------------------------------------------------------
# SFT data


def read_jsonl(path, what) -> list:
    if not os.path.isfile(path):
        raise UsageError(f"{what} file not found: {path}")
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise UsageError(f"{path}:{lineno}: not valid JSON ({e.msg})") from None
    if not rows:
        raise UsageError(f"{what} file is empty: {path}")
    return rows


def load_pairs(path) -> list:
    pairs = read_jsonl(path, "pairs")
    for lineno, pair in enumerate(pairs, 1):
        for key in ["task_id", "prompt", "completion"]:
            if not isinstance(pair.get(key), str):
                raise UsageError(f"{path}: record {lineno} needs a string {key!r} "
                                 "(SFT pair: {task_id, prompt, completion, verdict})")
    return pairs


def split_heldout(pairs, heldout_frac, seed):
    """(train, heldout) by task id, so no held-out task is trained on; seeded and order-independent."""
    ids = sorted({p["task_id"] for p in pairs})
    random.Random(seed).shuffle(ids)
    n_heldout = math.ceil(heldout_frac * len(ids)) if heldout_frac > 0 else 0
    n_heldout = min(n_heldout, len(ids) - 1)
    heldout_ids = set(ids[:n_heldout])
    return [p for p in pairs if p["task_id"] not in heldout_ids], [p for p in pairs if p["task_id"] in heldout_ids]


def encode_pair(tokenizer, pair, eos_id):
    """{"input_ids", "n_prompt"}: rendered prompt ids, then completion ids and eos; the loss covers only
    positions >= n_prompt (the completion and its eos, so the model learns to stop)."""
    prompt_ids = policy_lib.encode(tokenizer, policy_lib.render_user(tokenizer, pair["prompt"]))
    completion_ids = policy_lib.encode(tokenizer, pair["completion"]) + [eos_id]
    return {"input_ids": prompt_ids + completion_ids, "n_prompt": len(prompt_ids), "task_id": pair["task_id"]}


def encode_pairs(tokenizer, pairs, max_seq_len):
    examples = [encode_pair(tokenizer, p, tokenizer.eos_token_id) for p in pairs]
    kept = [e for e in examples if len(e["input_ids"]) <= max_seq_len]
    return kept, len(examples) - len(kept)


def epoch_batches(lengths, micro_batch, bucket_size, seed, epoch) -> list:
    """Micro-batches (lists of example indices) for one epoch, a function of (seed, epoch) alone.

    Length bucketing: shuffle, sort each window of `bucket_size` sequences by length, cut it into
    micro-batches (little padding), then shuffle the micro-batches (no length order across the epoch).
    """
    rng = random.Random(seed * 1_000_003 + epoch)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window_size = math.ceil(bucket_size / micro_batch) * micro_batch  # whole micro-batches per window
    batches = []
    for start in range(0, len(order), window_size):
        window = sorted(order[start:start + window_size], key=lambda i: lengths[i])
        batches += [window[i:i + micro_batch] for i in range(0, len(window), micro_batch)]
    rng.shuffle(batches)
    return batches


class BatchStream:
    """An endless stream of micro-batches over epochs; its position (epoch, index) is checkpointed."""

    def __init__(self, lengths, micro_batch, bucket_size, seed, epoch=0, index=0):
        self.lengths, self.micro_batch, self.bucket_size, self.seed = lengths, micro_batch, bucket_size, seed
        self.epoch, self.index = epoch, index
        self.batches = epoch_batches(lengths, micro_batch, bucket_size, seed, epoch)

    def next(self):
        if self.index >= len(self.batches):
            self.epoch, self.index = self.epoch + 1, 0
            self.batches = epoch_batches(self.lengths, self.micro_batch, self.bucket_size, self.seed, self.epoch)
        batch = self.batches[self.index]
        self.index += 1
        return batch

    def state(self):
        return {"epoch": self.epoch, "index": self.index}


def collate(examples, pad_id):
    """Right-padded (input_ids, attention_mask, loss_mask), each (B, T); loss_mask marks completion tokens."""
    ids, attention = policy_lib.pad_right([e["input_ids"] for e in examples], pad_id)
    loss_mask = torch.zeros_like(attention)
    for i, e in enumerate(examples):
        loss_mask[i, e["n_prompt"]:len(e["input_ids"])] = 1
    return ids, attention, loss_mask


# ----------------------------------------------------------------------------------------------------
# SFT: loss, step, evaluation


def completion_nll_sum(pol, batch, chunk_tokens):
    """(sum of -log p over completion tokens, number of them) for one micro-batch."""
    ids, attention, loss_mask = (t.to(pol.device) for t in batch)
    logprobs = policy_lib.token_logprobs(pol.model, ids, attention, loss_mask, chunk_tokens)  # (N,)
    return -logprobs.sum(), logprobs.numel()


def lr_lambda(step, warmup_steps, total_steps, schedule, min_lr_frac):
    """Multiplier of --lr at optimizer step `step` (0-based): linear warm-up, then cosine to the floor."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if schedule == "constant":
        return 1.0
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return min_lr_frac + (1 - min_lr_frac) * 0.5 * (1 + math.cos(math.pi * progress))


def make_optimizer(pol, args):
    betas = tuple(float(b) for b in args.adam_betas.split(","))
    params = policy_lib.trainable_parameters(pol)
    return torch.optim.AdamW(params, lr=args.lr, betas=betas, weight_decay=args.weight_decay)


def make_scheduler(optimizer, args, total_steps):
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: lr_lambda(s, args.warmup_steps, total_steps, args.schedule, args.min_lr_frac))


def autocast(pol):
    """bf16 autocast for an fp32 model on CUDA (full fine-tuning keeps fp32 master weights)."""
    if pol.device.type == "cuda" and pol.dtype == torch.float32:
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def sft_step(pol, examples, micro_batches, optimizer, scheduler, args) -> dict:
    """One optimizer step over `grad_accum` micro-batches. The loss is the mean over every completion
    token of the step, so it does not depend on how the step is split into micro-batches."""
    pad_id = pol.tokenizer.pad_token_id
    batches = [collate([examples[i] for i in mb], pad_id) for mb in micro_batches]
    n_target = sum(int(b[2][:, 1:].sum()) for b in batches)
    n_tokens = sum(int(b[1].sum()) for b in batches)
    lr = optimizer.param_groups[0]["lr"]
    pol.model.train()
    total = 0.0
    for batch in batches:
        with autocast(pol):
            nll_sum, _ = completion_nll_sum(pol, batch, args.logprob_chunk_tokens)
        (nll_sum / n_target).backward()
        total += nll_sum.item()
    params = policy_lib.trainable_parameters(pol)
    if args.grad_clip > 0:
        grad_norm = torch.nn.utils.clip_grad_norm_(params, args.grad_clip).item()
    else:
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in params if p.grad is not None])).item()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return {"loss": total / n_target, "lr": lr, "grad_norm": grad_norm, "tokens": n_tokens,
            "completion_tokens": n_target}


@torch.no_grad()
def heldout_loss(pol, examples, micro_batch, chunk_tokens):
    """Mean -log p per completion token over held-out examples (eval mode: no dropout, no RNG use)."""
    from tqdm import tqdm

    if not examples:
        return None
    nll, count = 0.0, 0
    with policy_lib.eval_mode(pol.model):
        for start in tqdm(range(0, len(examples), micro_batch), desc="heldout", leave=False, disable=None):
            batch = collate(examples[start:start + micro_batch], pol.tokenizer.pad_token_id)
            with autocast(pol):
                s, n = completion_nll_sum(pol, batch, chunk_tokens)
            nll, count = nll + s.item(), count + n
    return nll / max(1, count)


class LazyJudge:
    """reward.Judge opened on first use and kept for the run; None if reward.py is not there."""

    def __init__(self, args, device):
        self.args, self.device, self.judge, self.stack, self.missing = args, device, None, None, None

    def get(self):
        if self.judge is None and self.missing is None:
            try:
                from reward import Judge
            except ImportError as e:
                self.missing = str(e)
                print(f"note: judged generation skipped, reward.py is not importable ({e})", flush=True)
                return None
            self.stack = contextlib.ExitStack()
            self.judge = self.stack.enter_context(
                Judge(workers=self.args.judge_workers, device=self.device, timeout_s=self.args.judge_timeout_s,
                      policy=self.args.judge_policy))
        return self.judge

    def close(self):
        if self.stack is not None:
            self.stack.close()
            self.judge = self.stack = None


def gen_tasks(heldout_pairs, task_sources, n):
    """The first n distinct held-out tasks as (task_id, user prompt, task source)."""
    seen, tasks = set(), []
    for pair in heldout_pairs:
        if pair["task_id"] in seen:
            continue
        source = task_sources.get(pair["task_id"]) or policy_lib.task_source_from_prompt(pair["prompt"])
        if source is None:
            continue
        seen.add(pair["task_id"])
        tasks.append((pair["task_id"], pair["prompt"], source))
        if len(tasks) == n:
            break
    return tasks


def judged_generation(pol, tasks, judge: LazyJudge, step, run_dir, args) -> dict:
    """Sample an answer to each task, judge them, dump them to samples/, return the summary metrics."""
    if not tasks:
        return {}
    prompts = [policy_lib.render_user(pol.tokenizer, prompt) for _, prompt, _ in tasks]
    samples = policy_lib.generate(pol, prompts, args.gen_max_new_tokens, args.gen_temperature, args.gen_top_p,
                                  seed=args.seed + step, batch_size=args.gen_batch_size,
                                  logprob_chunk_tokens=args.logprob_chunk_tokens)
    j = judge.get()
    verdicts = j.verify_many([(src, s.text) for (_, _, src), s in zip(tasks, samples)], completions=True) if j else None
    os.makedirs(os.path.join(run_dir, "samples"), exist_ok=True)
    with open(os.path.join(run_dir, "samples", f"sft_step_{step:06d}.jsonl"), "w") as f:
        for i, ((task_id, _, _), s) in enumerate(zip(tasks, samples)):
            f.write(json.dumps({"step": step, "task_id": task_id, "completion": s.text,
                                "finish_reason": s.finish_reason, "tokens": len(s.completion_ids),
                                "verdict": verdicts[i].to_dict() if verdicts else None}) + "\n")
    out = {"gen_mean_tokens": sum(len(s.completion_ids) for s in samples) / len(samples)}
    if verdicts:
        out["gen_correct_frac"] = sum(bool(v.correct) for v in verdicts) / len(verdicts)
        out["gen_compiled_frac"] = sum(bool(v.compiled) for v in verdicts) / len(verdicts)
    return out


# ----------------------------------------------------------------------------------------------------
# Stages


def prepare_run_dir(args):
    """Create (or, with --resume, reopen) the run directory; returns (run_dir, last checkpoint or None)."""
    run_dir = args.out or os.path.join("runs", f"{args.stage}-{time.strftime('%Y%m%d-%H%M%S')}")
    args.out = run_dir
    if args.resume:
        if not os.path.isdir(run_dir):
            raise UsageError(f"--resume: run directory not found: {run_dir}")
        ckpts = checkpoint_dirs(run_dir)
        return run_dir, (ckpts[-1] if ckpts else None)
    if checkpoint_dirs(run_dir):
        raise UsageError(f"{run_dir} already holds checkpoints; pass --resume to continue it or choose another --out")
    os.makedirs(run_dir, exist_ok=True)
    return run_dir, None


def args_from_checkpoint(args, ckpt_dir):
    """On resume, every flag except RUNTIME_FLAGS comes from the checkpoint; differences are reported."""
    with open(os.path.join(ckpt_dir, "args.json")) as f:
        saved = json.load(f)
    for key, value in saved.items():
        if key in RUNTIME_FLAGS or key == "argv":
            continue
        if key in vars(args) and vars(args)[key] != value and f"--{key.replace('_', '-')}" in " ".join(args.argv):
            print(f"note: --resume keeps the checkpoint's {key}={value!r} (command line said {vars(args)[key]!r})")
        setattr(args, key, value)
    return args


def corpus_texts(pairs, tasks):
    """Texts the tiny tokenizer is trained on: prompts, completions and any task sources."""
    return [p["prompt"] for p in pairs] + [p["completion"] for p in pairs] + [t["source"] for t in tasks]


def load_sft_policy(args, run_dir, ckpt, corpus):
    """The policy to train: from the checkpoint when resuming, else built per the flags."""
    dtype = args.dtype
    if dtype == "auto" and args.lora_r == 0:
        dtype = "fp32"  # full fine-tuning: fp32 master weights (bf16 autocast on CUDA)
    if ckpt is not None:
        return policy_lib.load_policy(os.path.join(ckpt, "policy"), gradient_checkpointing=args.gradient_checkpointing,
                                      dtype=dtype, device=args.device, load_in_4bit=args.load_in_4bit)
    tiny_sizes = dict(vocab_size=args.tiny_vocab, hidden_size=args.tiny_hidden, num_layers=args.tiny_layers,
                      num_heads=args.tiny_heads, num_kv_heads=args.tiny_kv_heads,
                      intermediate_size=args.tiny_intermediate, max_positions=args.tiny_max_positions)
    return policy_lib.load_policy(args.model, corpus_texts=corpus, run_dir=run_dir, tiny_sizes=tiny_sizes,
                                  lora_r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout,
                                  load_in_4bit=args.load_in_4bit, gradient_checkpointing=args.gradient_checkpointing,
                                  dtype=dtype, device=args.device, seed=args.seed)


def run_sft(args) -> dict:
    """LoRA (or full) SFT on a JSONL of pairs. Returns a summary dict (last metrics, checkpoint path)."""
    from tqdm import tqdm
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # save_pretrained's shard bars would interleave with the step lines
    if not args.resume:  # check the inputs before anything is written
        load_pairs(args.pairs)
        if args.tasks:
            read_jsonl(args.tasks, "tasks")
        # Absolute paths in run.json, so --resume works from any directory.
        args.pairs = os.path.abspath(args.pairs)
        args.tasks = os.path.abspath(args.tasks) if args.tasks else None
    run_dir, ckpt = prepare_run_dir(args)
    if ckpt is not None:
        args = args_from_checkpoint(args, ckpt)
        print(f"resuming {run_dir} from {ckpt}")
    elif args.resume:
        print(f"note: {run_dir} has no checkpoint yet; starting from step 0")
        if not args.pairs:
            raise UsageError("--resume found no checkpoint and no --pairs was given")
    pairs = load_pairs(args.pairs)
    tasks = read_jsonl(args.tasks, "tasks") if args.tasks else []
    task_sources = {t.get("id"): t.get("source") for t in tasks}
    train_pairs, heldout_pairs = split_heldout(pairs, args.heldout_frac, args.seed)

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    pol = load_sft_policy(args, run_dir, ckpt, corpus_texts(pairs, tasks))
    train_examples, dropped = encode_pairs(pol.tokenizer, train_pairs, args.max_seq_len)
    heldout_examples, _ = encode_pairs(pol.tokenizer, heldout_pairs, args.max_seq_len)
    heldout_examples = heldout_examples[:args.eval_max_pairs]
    if not train_examples:
        raise UsageError(f"no training pair fits --max-seq-len {args.max_seq_len}")
    lengths = [len(e["input_ids"]) for e in train_examples]
    batches_per_epoch = len(epoch_batches(lengths, args.micro_batch, args.bucket_size, args.seed, 0))
    total_steps = args.max_steps or max(1, math.ceil(args.epochs * batches_per_epoch / args.grad_accum))
    n_trainable = sum(p.numel() for p in policy_lib.trainable_parameters(pol))
    n_params = sum(p.numel() for p in pol.model.parameters())
    derived = {"train_pairs": len(train_examples), "heldout_pairs": len(heldout_pairs), "dropped_too_long": dropped,
               "batches_per_epoch": batches_per_epoch, "total_steps": total_steps,
               "sequences_per_step": args.micro_batch * args.grad_accum, "params": n_params,
               "trainable_params": n_trainable, "vocab": len(pol.tokenizer), "device": str(pol.device),
               "dtype": str(pol.dtype), "lora": pol.lora}
    print("derived: " + " | ".join(f"{k} {v}" for k, v in derived.items()), flush=True)
    write_run_json(run_dir, args, {"stage": "sft", "derived": derived})

    optimizer = make_optimizer(pol, args)
    scheduler = make_scheduler(optimizer, args, total_steps)
    stream = BatchStream(lengths, args.micro_batch, args.bucket_size, args.seed)
    step = 0
    if ckpt is not None:
        state = load_trainer_state(ckpt)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        stream = BatchStream(lengths, args.micro_batch, args.bucket_size, args.seed, **state["data"])
        step = state["step"]
        restore_rng(state["rng"])
    metrics = MetricsLog(run_dir, total_steps, keep_until_step=step)
    judge = LazyJudge(args, "cuda" if pol.device.type == "cuda" else "cpu")
    tasks_for_gen = gen_tasks(heldout_pairs, task_sources, args.gen_tasks)
    last_ckpt, row = ckpt, {}
    try:
        progress = tqdm(total=total_steps, initial=step, desc="sft", disable=None)
        while step < total_steps:
            t0 = time.perf_counter()
            micro_batches = [stream.next() for _ in range(args.grad_accum)]
            out = sft_step(pol, train_examples, micro_batches, optimizer, scheduler, args)
            step += 1
            step_s = time.perf_counter() - t0
            row = {"step": step, "epoch": stream.epoch, "loss": out["loss"], "lr": out["lr"],
                   "grad_norm": out["grad_norm"], "tok_per_s": out["tokens"] / step_s, "step_s": step_s,
                   "tokens": out["tokens"], "completion_tokens": out["completion_tokens"]}
            if pol.device.type == "cuda":
                row["peak_mem_gb"] = torch.cuda.max_memory_allocated(pol.device) / 2**30
            if args.eval_every and (step % args.eval_every == 0 or step == total_steps):
                row["heldout_loss"] = heldout_loss(pol, heldout_examples, args.micro_batch, args.logprob_chunk_tokens)
            if args.gen_every and (step % args.gen_every == 0 or step == total_steps):
                row.update(judged_generation(pol, tasks_for_gen, judge, step, run_dir, args))
            progress.update(1)
            metrics.log(row)
            if args.stop_after and step >= args.stop_after:
                print(f"--stop-after {args.stop_after}: stopping without a final checkpoint")
                break
            if step % args.save_every == 0 or step == total_steps:
                state = {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                         "data": stream.state(), "stage": "sft"}
                last_ckpt = save_checkpoint(run_dir, step, pol, state, args, args.keep_last)
        progress.close()
    finally:
        judge.close()
    return {"run_dir": run_dir, "step": step, "checkpoint": last_ckpt, "last": row, "policy": pol}


def run_rl(args):
    # ---- issue 6: RL (DRPO / GRPO) goes here, reusing prepare_run_dir, write_run_json, MetricsLog,
    # capture_rng/restore_rng, save_checkpoint and policy.generate / policy.token_logprobs. ----
    raise UsageError("--stage rl is not implemented yet (issue 6)")


def run_all(args):
    # ---- the default offline pipeline (issue 5, wired by the lead): synth -> teacher -> tokenizer + tiny
    # model -> run_sft -> run_rl -> eval, all under runs/<name>/ with report.md and PNG curves. ----
    raise UsageError("the default pipeline (python train.py with no arguments) is not wired yet; "
                     "run: python train.py --stage sft --pairs PAIRS.jsonl --out runs/NAME")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)  # exits with code 2 on bad flags
    try:
        if args.stage == "sft":
            run_sft(args)
        elif args.stage == "rl":
            run_rl(args)
        else:
            run_all(args)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
