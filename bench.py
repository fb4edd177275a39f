"""Throughput benchmarks. One subcommand per thing measured; each prints a table and ends with one JSON line.

    python bench.py verify --device cpu --n 16          # laptop: judge pool vs one process per candidate
    python bench.py verify --device cuda --n 64         # H200: the issue-3 target (<= 30 s, >= 8x)
    python bench.py synth --n 10000 --levels 1,2,5      # synthesis rate with validation, op uniformity
    python bench.py rl-step --model-config qwen2.5-7b --prompts 8 --group-size 8 --new-tokens 1024   # H200
    python bench.py rl-seeds --init runs/gs/sft/best --tasks runs/gs/data/tasks_rl.jsonl --seeds 3 --out runs/seeds \
        --train-flags '--preset gpu-small --rl-steps 40' --stop-after-s 500 \
        --eval-tasks runs/gs/data/tasks_eval.jsonl --kb-tasks ../shared/KernelBench/level1 \
        --eval-flags '--device cuda --workers 6 --temperature 0'   # each arm's seed spread, SFT beside; run again to go on
    python bench.py timing-noise --device cuda --n 20   # the same kernels timed twice: speedup spread
    python bench.py worker-restarts --device cpu        # judge wall time, default vs cautious worker recycling
    python bench.py rollout                             # laptop: tiny model, plain generate vs the static engine
    python bench.py rollout --model-config qwen2.5-7b   # H200 target: 64 x 512 + 1024 tokens, >= 10x generate
    python bench.py rollout-profile --model-config qwen2.5-7b --engines compile,compile_fused   # H200: step time by kernel
    python bench.py sft-step --model-config qwen2.5-7b  # H200 target: LoRA r64, 16 x 2048, <= 80 GB, >= 7k tok/s
    python bench.py sft-profile --pairs runs/gs/data/pairs.jsonl --device cuda  # H200: gpu-small's SFT step, variants
    python bench.py decode-gemms --model-config qwen2.5-7b --triton o,down  # H200: decode matmuls alone, TB/s
    python bench.py decode-attn --model-config qwen2.5-7b   # H200: split-KV decode attention, launch sweep
    python bench.py decode-sample --model-config qwen2.5-7b # H200: generate's sampling rule vs Gumbel-max
    python bench.py kb-table --results runs/eval-teacher-kb2  # per-task KernelBench speed table, summary
    python bench.py kb-table --results runs/gs/eval_sft_kb1 runs/gs/eval_rl_kb1  # checkpoints side by side
    python bench.py kb-ab --results runs/gs/eval_sft_kb1 runs/gs/eval_rl_kb1 --out runs/ab  # GPU: changed answers, one card
    python bench.py kb-judge --results runs/gs/eval_sft_kb1  # where the judge's time went: exclusive retries, phases
    python bench.py kb-surface --tasks ../shared/KernelBench/level1 runs/gs/data/tasks_sft.jsonl  # surface gaps
    python bench.py conv-layout --tasks ../shared/KernelBench/level2 --device cuda  # H200: convs NCHW vs channels-last
    python bench.py kb-kernels --tasks ../shared/KernelBench/level1 --only 1,3,8 --variants ieee,bf16x3,bf16x3_256n

verify: builds `--n` candidate solutions of mixed quality (known-good Triton kernels, cheats and faults
from tests/) for small KernelBench-like tasks (tests/judge_tasks/), then verifies them twice with the same
number of concurrent workers: with the pool (each worker imports torch/Triton once and serves many
candidates) and with one fresh worker process per candidate (recycle_every=1, replacements started ahead
as spares). Both times include starting the workers, candidates going to each worker as it becomes ready;
startup_s (until the first worker is ready: a trainer pays it once per run) is reported apart, with the
zygote's and the workers' own start times. With `--cli` a third run verifies each candidate as a user without
the pool would: its own `python reward.py --task T --solution S` process (which starts its own one-worker
judge), the same number at a time. The verdicts of all runs must agree on (compiled, correct, error_type, triton_launches).

worker-restarts: a batch shaped like early RL rollouts (a quarter correct, the rest failing before any
launch: missing ModelNew, constructor signature that does not bind), verified with reward.RECYCLE_ERRORS
(default) and RECYCLE_ERRORS_CAUTIOUS (a worker restart after each such failure), pools started first.

rollout: a model with random weights (built from its config: nothing is downloaded) generates for one batch
with every engine in one process: plain transformers generate ("hf", the baseline) and the fast engine of
policy.py, then again with a LoRA adapter attached (merged for sampling). A random model says
garbage and may say eos at any step, so the timed runs suppress eos (its logit is -inf) and every sequence
runs exactly --new-tokens; tokens/s counts new tokens over the wall time of the call (prefill included).
Before that, greedy tokens of each fast engine are compared with plain generate on prompts of different
lengths; where a row differs, the two tokens' logits at that position are compared in units of the model
dtype's spacing (bf16 ties between near-equal logits of a random model are expected).
rollout-profile (or rollout --profile-engines): for each fast engine, ms per decode step as the engine runs it
(CUDA graphs replayed, sampling included) and eagerly, then the kernel time of a few eager steps of the same
layer functions (the compiled halves included: kernels inside a replayed graph may be hidden from the
profiler) under torch.profiler, by category (GEMM, attention, cache writes, compiled and eager elementwise,
sampling) with the top kernels; on CPU the aten ops' self CPU time instead. Kernel time well under the
engine's ms/step means the GPU waits (launches, syncs); a category far over its bytes/bandwidth is the target.
decode-gemms: the matmuls of one decode step (q|k|v, o, gate|up, down, lm_head of the model config) at
--batch rows, each alone: on W (N, K) as the engines call it and on a pre-transposed copy (K, N), with the
weight bytes per second (CUDA: CUDA-graph timing; CPU: wall clock, for the code path only). `--triton`
sweeps policy.skinny_partials (split-K Triton, pointer or descriptor loads) for the named matmuls: each
configuration with the sum of its partials and as the kernel alone (inside the engine the sum fuses into
the next elementwise kernel).
decode-attn: the split-KV decode attention of one layer as the engines run it (whole cache, the step's slot
read on the device): slice length and slots per iteration, then warps and stages, then the best few over
a rollout's first, middle and last slot. decode-sample: one step's sampling at batch x vocab.
sft-step: LoRA SFT steps through train.py's `sft_step` (loss via policy.token_logprobs) on random tokens.
sft-profile: gpu-small's full fine-tuning step on real pairs in variants over the same batches (padding mask,
log-prob chunk, fused AdamW, padding to a multiple of N tokens), then its kernels.
"""
import argparse
import copy
import glob
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

import synth

HERE = os.path.dirname(os.path.abspath(__file__))


def verify_candidates(n, seed, include_hangs):
    """n (name, task_source, solution_source), about half known-good, the rest cheats and faults."""
    tests = os.path.join(HERE, "tests")
    read = lambda p: open(p).read()  # noqa: E731
    goods = sorted(glob.glob(os.path.join(tests, "judge_tasks", "good", "*.py")))
    bads = sorted(glob.glob(os.path.join(tests, "hacks", "*.py")) + glob.glob(os.path.join(tests, "judge_tasks", "faults", "*.py")))
    slow = ("infinite_loop", "huge_touch")  # a timeout or a 12 GB allocation would dominate the measurement
    bads = [p for p in bads if include_hangs or not any(s in p for s in slow)]
    rng = random.Random(seed)
    picked = [goods[i % len(goods)] for i in range(n - n // 2)] + rng.sample(bads * (1 + n // len(bads)), n // 2)
    rng.shuffle(picked)
    out = []
    for p in picked:
        src = read(p)
        task = src.split("# task: ", 1)[1].split()[0]
        out.append((os.path.relpath(p, tests), read(os.path.join(tests, "judge_tasks", task + ".py")), src))
    return out


def verify_by_cli(cands, args):
    """Verdicts of `python reward.py --task T --solution S`, one process per candidate, `args.workers` at a
    time (the candidates' files in a temporary folder). A process that prints no verdict is an error here:
    the CLI answers every candidate with one JSON line."""
    import concurrent.futures
    import subprocess
    import tempfile
    from reward import Verdict

    def one(i, task, sol, folder):
        paths = [os.path.join(folder, f"{i}_{kind}.py") for kind in ("task", "solution")]
        for path, text in zip(paths, (task, sol)):
            with open(path, "w") as f:
                f.write(text)
        cmd = [sys.executable, os.path.join(HERE, "reward.py"), "--task", paths[0], "--solution", paths[1],
               "--device", args.device, "--timeout-s", str(args.timeout_s), "--time-trials", str(args.time_trials)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout_s + 120)
        lines = res.stdout.strip().splitlines()
        if res.returncode not in (0, 1, 2) or not lines:  # 1: incorrect, 2: broken task (a verdict either way)
            raise RuntimeError(f"reward.py exited {res.returncode} on candidate {i}: {res.stderr[-500:]}")
        return Verdict.from_dict(json.loads(lines[-1]))

    with tempfile.TemporaryDirectory(prefix="bench-verify-cli-") as folder, \
            concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(one, i, task, sol, folder) for i, (_, task, sol) in enumerate(cands)]
        return [job.result() for job in jobs]


TRANSPORT_CHILD = """
import mmap, os, sys
import torch
sys.path.insert(0, os.getcwd())
import reward
wr, fd, ready, n, value, device, mode, room = sys.argv[1:]
t = torch.full((int(n) // 4,), float(value), device=device)
if device == "cuda":
    torch.cuda.synchronize()
shm = mmap.mmap(int(fd), int(room)) if mode == "file" else None
os.write(int(ready), b"x")
reward._send_tensors(int(wr), {"type": "trial"}, [t], torch, shm)
"""


def cmd_transport(args):
    """One answer process's outputs to its worker, as the judge moves them (reward._send_tensors and
    _recv_tensors): through the pipe, and through the output file (a memfd both map), `--rounds` times each, in
    alternation, from a child process that holds the tensor on `--device` to this one, which rebuilds it there.
    The clock starts once the child's tensor is made."""
    import mmap
    import torch
    import reward
    nbytes = int(args.gb * (1 << 30)) // 4 * 4
    fd = reward._output_shm()
    if fd is None:
        raise SystemExit("bench transport: this platform has no memfd with seals (the judge streams through the pipe)")
    room = nbytes + (1 << 20)
    os.posix_fallocate(fd, 0, room)
    rows = {"pipe": [], "file": []}
    for r in range(args.rounds):
        for mode in ("pipe", "file"):
            rd, wr = os.pipe()
            ready_r, ready_w = os.pipe()
            child = subprocess.Popen([sys.executable, "-c", TRANSPORT_CHILD, str(wr), str(fd), str(ready_w),
                                      str(nbytes), str(r + 1), args.device, mode, str(room)],
                                     pass_fds=(wr, fd, ready_w), cwd=os.path.dirname(os.path.abspath(__file__)))
            os.close(wr)
            os.close(ready_w)
            shm = mmap.mmap(fd, room) if mode == "file" else None
            if os.read(ready_r, 1) != b"x":
                raise SystemExit(f"bench transport: the child failed (exit {child.wait()})")
            t0 = time.perf_counter()
            head = reward._recv_blocking(rd)
            out = reward._recv_tensors(rd, head, torch, args.device, shm)
            out = [t.to(args.device, copy=True) if mode == "file" else t for t in out]  # as the comparison reads it
            if args.device == "cuda":
                torch.cuda.synchronize()
            rows[mode].append(time.perf_counter() - t0)
            if float(out[0][-1]) != r + 1:
                raise SystemExit("bench transport: the bytes did not arrive")
            del out
            if shm is not None:
                shm.close()
            os.close(rd)
            os.close(ready_r)
            child.wait()
    res = {m: round(statistics.median(v), 4) for m, v in rows.items()}
    res["ratio"] = round(res["pipe"] / res["file"], 2)
    print(f"{args.gb:g} GB on {args.device}: pipe {res['pipe']:.3f} s, output file {res['file']:.3f} s "
          f"(median of {args.rounds}): {res['ratio']:.2f}x")
    print(json.dumps({"bench": "transport", "gb": args.gb, "device": args.device, **res}))


def cmd_verify(args):
    from reward import Judge
    cands = verify_candidates(args.n, args.seed, args.include_hangs)
    pairs = [(t, s) for _, t, s in cands]
    kw = dict(workers=args.workers, device=args.device, timeout_s=args.timeout_s, time_trials=args.time_trials,
              spare_workers=args.spare_workers)
    print(f"verify | {len(pairs)} candidates | device {args.device} | workers {args.workers} | "
          f"timeout_s {args.timeout_s:g} | time_trials {args.time_trials}", file=sys.stderr)
    # wall_s counts from Judge() to the last verdict, candidates going to workers as each becomes ready; startup_s
    # is the part before the first worker was ready, which a trainer pays once per run, not once per batch.
    modes = [("pool", args.recycle_every)] + ([] if args.no_fresh else [("fresh_process", 1)])
    runs, starts = {}, {}
    for mode, recycle_every in modes:
        t = time.perf_counter()
        with Judge(recycle_every=recycle_every, **kw) as judge:
            verdicts = judge.verify_many(pairs, progress=True)
            log, zygote = judge.ready_log, judge.zygote
        wall = time.perf_counter() - t
        inits = sorted(x for _, x in log if x is not None)
        first = log[0][0] if log else None
        starts[mode] = {"first_ready_s": first,
                        "zygote_ready_s": round(zygote.ready_at - judge.created, 3) if zygote and zygote.ready_at else None,
                        "worker_init_s_median": inits[len(inits) // 2] if inits else None, "workers_started": len(log)}
        runs[mode] = (wall, first or 0.0, verdicts)
    if args.cli:
        t = time.perf_counter()
        verdicts = verify_by_cli(cands, args)
        runs["cli"] = (time.perf_counter() - t, 0.0, verdicts)  # no startup apart: each process starts its own
    key = lambda v: (v.compiled, v.correct, v.error_type, v.triton_launches)  # noqa: E731
    disagree = sorted({name for mode in runs if mode != "pool"
                       for (name, _, _), a, b in zip(cands, runs["pool"][2], runs[mode][2]) if key(a) != key(b)})
    print(f"{'mode':<18} {'wall_s':>8} {'startup_s':>10} {'verify_s':>9} {'cand/s':>8} {'correct':>8}")
    for mode, (wall, startup, vs) in runs.items():
        print(f"{mode:<18} {wall:8.2f} {startup:10.2f} {wall - startup:9.2f} {len(vs) / wall:8.2f} "
              f"{sum(v.correct for v in vs):8d}")
    for mode, st in starts.items():
        print(f"{mode:<18} start: " + ", ".join(f"{k} {x}" for k, x in st.items()))
    # Where the pool's time went (sums over candidates, seconds of worker time; verify_s is dispatch to verdict,
    # so it includes waiting for the GPU lock): which phase to make faster next.
    phases = {}
    for mode, (_, _, vs) in runs.items():
        phases[mode] = {k: round(sum(v.timings.get(k, 0.0) for v in vs), 2)
                        for k in ("ref_s", "import_s", "check_s", "time_s", "lock_wait_s", "worker_s", "verify_s")}
        print(f"{mode:<18} phase sums: " + ", ".join(f"{k} {x:.2f}" for k, x in phases[mode].items()))
    speedups = [v.speedup for v in runs["pool"][2] if v.speedup is not None]
    fresh = runs.get("fresh_process")
    ratio = fresh[0] / runs["pool"][0] if fresh else None
    ratio_ready = (fresh[0] - fresh[1]) / (runs["pool"][0] - runs["pool"][1]) if fresh else None
    ratio_cli = runs["cli"][0] / runs["pool"][0] if "cli" in runs else None
    ratio_cli_ready = runs["cli"][0] / (runs["pool"][0] - runs["pool"][1]) if "cli" in runs else None
    said = ([f"{ratio:.2f}x faster than fresh worker processes from a cold start, {ratio_ready:.2f}x once both have "
             "their first workers up"] if fresh else []) + \
        ([f"{ratio_cli:.2f}x faster than one reward.py process per candidate ({ratio_cli_ready:.2f}x once its "
          "first worker is up)"] if ratio_cli else [])
    print(f"pool is {', '.join(said) or 'the only mode timed'}; verdicts disagree on {len(disagree)}: {disagree[:5]}")
    print(json.dumps({"bench": "verify", "n": len(pairs), "device": args.device, "workers": args.workers,
                      "pool_s": round(runs["pool"][0], 2), "fresh_process_s": fresh and round(fresh[0], 2),
                      "pool_startup_s": round(runs["pool"][1], 2),
                      "fresh_process_startup_s": fresh and round(fresh[1], 2),
                      "ratio": fresh and round(ratio, 2), "ratio_after_startup": fresh and round(ratio_ready, 2),
                      "cli_s": round(runs["cli"][0], 2) if "cli" in runs else None,
                      "ratio_cli": round(ratio_cli, 2) if ratio_cli else None,
                      "ratio_cli_after_startup": round(ratio_cli_ready, 2) if ratio_cli_ready else None,
                      "starts": starts, "agree": not disagree,
                      "n_correct": sum(v.correct for v in runs["pool"][2]), "n_timed": len(speedups), "phase_sums": phases,
                      "argv": sys.argv}))


def cmd_worker_restarts(args):
    import reward
    read = lambda *p: open(os.path.join(HERE, "tests", "judge_tasks", *p)).read()  # noqa: E731
    task, good = read("relu_add.py"), read("good", "relu_add.py")
    missing = good.replace("class ModelNew", "class ModelNeu")
    signature = good.replace("def __init__(self", "def __init__(self, width")
    pairs = [(task, [good, missing, signature, missing][i % 4]) for i in range(args.n)]
    rows = []
    for rnd in range(args.rounds):
        for name, errors in (("cautious", reward.RECYCLE_ERRORS_CAUTIOUS), ("default", reward.RECYCLE_ERRORS)):
            with reward.Judge(workers=args.workers, device=args.device, timeout_s=60.0, recycle_errors=errors) as j:
                j.wait_ready()
                t = time.perf_counter()
                verdicts = j.verify_many(pairs, progress=False)
                rows.append({"round": rnd, "recycle": name, "wall_s": round(time.perf_counter() - t, 2),
                             "n_correct": sum(v.correct for v in verdicts),
                             "errors": sorted({str(v.error_type) for v in verdicts if not v.correct})})
    print(f"{'round':>5} {'recycle':<9} {'wall_s':>8} {'correct':>8}  errors")
    for r in rows:
        print(f"{r['round']:>5} {r['recycle']:<9} {r['wall_s']:8.2f} {r['n_correct']:8d}  {', '.join(r['errors'])}")
    print(json.dumps({"bench": "worker-restarts", "n": args.n, "device": args.device, "workers": args.workers,
                      "rows": rows, "argv": sys.argv}))


def cmd_synth(args):
    """Synthesis rate including validation, and how close level-1 op draws are to uniform."""
    import synth
    levels = [int(v) for v in args.levels.split(",")]
    budget = synth.make_budget(args.size)
    t = time.perf_counter()
    records, stats = synth.generate(args.n, levels, args.seed, budget, workers=args.workers, progress=True)
    wall = time.perf_counter() - t
    rep = synth.coverage_report(records)
    print(f"{'level':>5} {'programs':>9} {'share min':>10} {'share max':>10} {'TV dist':>8}")
    for lv, s in rep["levels"].items():
        print(f"{lv:>5} {s['programs']:>9} {s['min_share']:>10.2f} {s['max_share']:>10.2f} {s['tv_distance']:>8.4f}")
    print(f"{len(records)} programs in {wall:.1f} s = {len(records) / wall:.1f} programs/s "
          f"({args.workers} workers, validation included); rejections {stats}")
    print(json.dumps({"bench": "synth", "n": len(records), "levels": levels, "size": args.size,
                      "workers": args.workers, "wall_s": round(wall, 2),
                      "programs_per_s": round(len(records) / wall, 1),
                      "share_range": {lv: [round(s["min_share"], 3), round(s["max_share"], 3)]
                                      for lv, s in rep["levels"].items()}, "argv": sys.argv}))


# ----------------------------------------------------------------------------------------------------
# Models with random weights from a config (nothing is downloaded): rollout and sft-step

# Qwen2.5-7B / Qwen2.5-Coder-7B-Instruct (the paper's base) as in its config.json.
QWEN25_7B = dict(vocab_size=152064, hidden_size=3584, num_hidden_layers=28, num_attention_heads=28,
                 num_key_value_heads=4, intermediate_size=18944, max_position_embeddings=32768, rms_norm_eps=1e-6,
                 rope_parameters={"rope_type": "default", "rope_theta": 1e6}, tie_word_embeddings=False,
                 use_sliding_window=False, bos_token_id=151643, eos_token_id=151645, pad_token_id=151643)


class IdTokenizer:
    """Stand-in tokenizer for random-weight models: benchmarks feed token ids, never text."""

    def __init__(self, vocab_size, eos_token_id, pad_token_id):
        self.vocab_size, self.eos_token_id, self.pad_token_id = vocab_size, eos_token_id, pad_token_id

    def __len__(self):
        return self.vocab_size

    def decode(self, ids, skip_special_tokens=True):
        return " ".join(map(str, ids))


def model_config_of(model_config):
    """(transformers config, IdTokenizer) of a --model-config name."""
    from transformers import Qwen2Config

    import policy as P
    if model_config == "qwen2.5-7b":
        config = Qwen2Config(**QWEN25_7B)
        return config, IdTokenizer(config.vocab_size, config.eos_token_id, config.pad_token_id)
    tokenizer = IdTokenizer(P.TINY_SIZES["vocab_size"], 2, 0)
    return P.tiny_model_config(tokenizer, *(P.TINY_SIZES[k] for k in (
        "hidden_size", "num_layers", "num_heads", "num_kv_heads", "intermediate_size", "max_positions"))), tokenizer


def random_policy(model_config, device, seed, gradient_checkpointing=False):
    """A policy.Policy around a Qwen2 model with random weights: bf16 on CUDA, fp32 on CPU."""
    import torch
    from transformers import Qwen2ForCausalLM

    import policy as P
    device = P.resolve_device(device)
    dtype = P.resolve_dtype(None, device)
    config, tokenizer = model_config_of(model_config)
    default_dtype = torch.get_default_dtype()
    torch.manual_seed(seed)
    try:  # built directly on the device in the target dtype: a 7B model never exists in fp32
        torch.set_default_dtype(dtype)
        with torch.device(device):
            model = Qwen2ForCausalLM(config)
    finally:
        torch.set_default_dtype(default_dtype)
    model.config.use_cache = False
    inv_freq = model.get_decoder().rotary_emb.inv_freq.float()
    model.rope_theta_effective = float(inv_freq[1] ** (-len(inv_freq)))  # inv_freq[i] = theta^(-2i/D); a check
    if gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return P.Policy(model=model, tokenizer=tokenizer, device=device, dtype=dtype, lora=False, quantized=False,
                    base=f"random:{model_config}")


def attach_random_lora(pol, r, alpha, seed):
    """A LoRA adapter whose B is random (peft starts it at zero), so merging it changes the weights."""
    import torch

    import policy as P
    P.attach_lora(pol, r, alpha, 0.0)
    g = torch.Generator(device=pol.device).manual_seed(seed)
    with torch.no_grad():
        for p in lora_B_params(pol):
            p.copy_(torch.randn(p.shape, generator=g, device=p.device, dtype=p.dtype) * 0.01)
    return pol


def lora_B_params(pol):
    """The B matrices of the policy's LoRA adapter (peft names them lora_B)."""
    return [p for name, p in pol.model.named_parameters() if "lora_B" in name]


class GpuSampler:
    """Mean SM clock (MHz), board power (W) and temperature (C) of the GPU over a timed run, sampled every
    250 ms by `nvidia-smi -lms` in a child process; `stats` stays empty without CUDA or nvidia-smi. A clock or
    power drop between two runs of the same kernels tells throttling apart from a slower program."""

    def __init__(self, pol):
        import shutil
        import subprocess
        self.proc, self.stats = None, {}
        exe = shutil.which("nvidia-smi") if pol.device.type == "cuda" else None
        if exe:
            visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
            index = visible if visible.isdigit() else str(pol.device.index or 0)
            self.proc = subprocess.Popen([exe, "-i", index, "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                                          "--format=csv,noheader,nounits", "-lms", "250"],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def stop(self):
        if self.proc is None:
            return self.stats
        self.proc.terminate()
        out, _ = self.proc.communicate(timeout=10)
        rows = []
        for line in out.splitlines():
            try:
                rows.append([float(x) for x in line.split(",")])
            except ValueError:  # "[N/A]" or a partial last line
                continue
        if rows:
            for i, key in enumerate(("gpu_sm_mhz", "gpu_power_w", "gpu_temp_c")):
                self.stats[key] = round(sum(r[i] for r in rows) / len(rows), 1)
        return self.stats


def _sync(pol):
    import torch
    if pol.device.type == "cuda":
        torch.cuda.synchronize()


def _peak_gb(pol, reset=False):
    import torch
    if pol.device.type != "cuda":
        return None
    if reset:
        torch.cuda.reset_peak_memory_stats()
    return torch.cuda.max_memory_allocated() / 2**30


def _env():
    import torch
    import transformers
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {"torch": torch.__version__, "transformers": transformers.__version__, "gpu": gpu}


def _log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def rollout_throughput(pol, engine, prompt_ids, args, lora):
    """One timed run (every sequence forced to args.new_tokens); fast engines get a full untimed run first
    (CUDA-graph capture, torch.compile), plain generate a short one. Failures are recorded, not raised."""
    import policy as P
    row = {"engine": engine, "lora": lora}
    run = lambda n: P.sample_token_ids(pol, prompt_ids, n, args.temperature, args.top_p, args.seed,  # noqa: E731
                                       len(prompt_ids), engine, suppress_eos=True)
    try:
        _log(f"rollout {engine} (lora {lora}): warm-up")
        t = time.perf_counter()
        run(args.new_tokens if engine != "hf" else 4)
        _sync(pol)
        row["first_s"] = round(time.perf_counter() - t, 2)
        _peak_gb(pol, reset=True)
        _log(f"rollout {engine} (lora {lora}): timed run")
        gpu = GpuSampler(pol)
        t = time.perf_counter()
        completions, _ = run(args.new_tokens)
        _sync(pol)
        wall = time.perf_counter() - t
        row.update(gpu.stop())
        # Two tokens: the call's fixed part (prefill, a fast engine's graph capture) and one decode step, so the
        # rest of the wall is the decode loop: its ms/step, to set beside the profile's replayed step
        if engine.startswith("compile"):  # it compiles for this cache length first
            run(2)
            _sync(pol)
        t = time.perf_counter()
        run(2)
        _sync(pol)
        row["two_token_s"] = round(time.perf_counter() - t, 3)
        row["decode_ms_per_step"] = round((wall - row["two_token_s"]) / max(args.new_tokens - 2, 1) * 1e3, 3)
    except (RuntimeError, ValueError) as e:
        row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        _log(f"rollout {engine} failed: {row['error']}")
        return row
    tokens = sum(len(c) for c in completions)
    row.update(_per_call_costs(pol, engine))
    if engine.startswith("compile"):  # one compiled layer should serve every layer: few graphs, no eager fallback
        import torch
        row["dynamo_unique_graphs"] = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    row.update(wall_s=round(wall, 2), tokens=tokens, tokens_per_s=round(tokens / wall, 1),
               peak_gb=_peak_gb(pol) and round(_peak_gb(pol), 2), all_full_length=all(len(c) == args.new_tokens for c in completions))
    _log(f"rollout {engine} (lora {lora}): {row['tokens_per_s']} tokens/s")
    return row


def _per_call_costs(pol, engine):
    """Seconds of the fixed work inside every timed call besides decoding: the LoRA merge and unmerge
    (`merge_unmerge_s`, with an adapter) and the fused engines' weight concatenation (`fuse_weights_s`).
    The r64-merged run was 8% slower than the same engine without an adapter."""
    import policy as P
    costs = {}
    with P.sampling_mode(pol, 0):
        if pol.lora and not pol.quantized:
            _sync(pol)
            t = time.perf_counter()
            pol.model.unmerge_adapter()
            pol.model.merge_adapter()
            _sync(pol)
            costs["merge_unmerge_s"] = round(time.perf_counter() - t, 3)
        if "_fused" in engine:
            t = time.perf_counter()
            weights = P._fused_weights(pol.model)
            _sync(pol)
            costs["fuse_weights_s"] = round(time.perf_counter() - t, 3)
            del weights
    return costs


def greedy_prompts(pol, args):
    """`--greedy-prompts` random prompts of different lengths (so left padding differs per row)."""
    rng = random.Random(args.seed + 1)
    vocab = pol.tokenizer.vocab_size
    lengths = [rng.randint(max(1, args.prompt_len // 4), args.prompt_len) for _ in range(args.greedy_prompts)]
    return [[rng.randrange(vocab - 1000) for _ in range(n)] for n in lengths]


def greedy_tokens(pol, engine, prompts, args):
    import policy as P
    return P.sample_token_ids(pol, prompts, args.greedy_tokens, 0.0, 1.0, args.seed, len(prompts), engine,
                              suppress_eos=True)[0]


def greedy_check(pol, engine, prompts, ref, args):
    """Greedy tokens of `engine` vs plain generate's (`ref`). Where a row first differs, one plain full
    forward (no cache) over the common prefix scores both tokens: their logit gap in units of the model
    dtype's spacing at that magnitude (bf16: 8 significant bits); <= 2 units counts as a rounding tie."""
    import math

    import torch

    import policy as P
    _log(f"greedy check: {engine}")
    try:
        got = greedy_tokens(pol, engine, prompts, args)
    except (RuntimeError, ValueError) as e:
        return {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    mantissa_bits = {torch.bfloat16: 8, torch.float16: 11}.get(pol.dtype, 24)
    rows = []
    for p, a, b in zip(prompts, ref, got):
        d = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
        if d is None:
            rows.append({"first_diff": None})
            continue
        with P.sampling_mode(pol, 0):
            ids = torch.tensor([p + a[:d]], device=pol.device)
            logits = P._hf_model(pol.model)(input_ids=ids, use_cache=False).logits[0, -1].float()
        la, lb = logits[a[d]].item(), logits[b[d]].item()
        spacing = 2.0 ** (math.floor(math.log2(max(abs(la), abs(lb), 1e-30))) - (mantissa_bits - 1))
        gap = abs(la - lb) / spacing
        rows.append({"first_diff": d, "hf_token": a[d], "fast_token": b[d], "gap_ulps": round(gap, 2),
                     "tie": gap <= 2.0, "no_cache_argmax": int(logits.argmax())})
    return {"rows_equal": sum(r["first_diff"] is None for r in rows), "rows": rows}


def default_batch(model_config):
    """Sequences of a batch when --batch is unset: 64 for 7B, 8 for tiny."""
    return 64 if model_config == "qwen2.5-7b" else 8


def rollout_defaults(args):
    """Sizes of rollout, rollout-profile and decode-attn left unset: the issue-9 batch for 7B, a small one for
    tiny (and the profiled token, where there is one)."""
    big = args.model_config == "qwen2.5-7b"
    args.batch = args.batch or default_batch(args.model_config)
    args.prompt_len = args.prompt_len or (512 if big else 64)
    args.new_tokens = args.new_tokens or (1024 if big else 64)
    if hasattr(args, "at_token"):
        args.at_token = args.new_tokens // 2 if args.at_token is None else args.at_token


def cmd_rollout(args):
    """Tokens/s of plain generate vs the fast engines in one process, with and without a LoRA adapter."""
    import torch

    import policy as P
    rollout_defaults(args)
    cuda = torch.cuda.is_available() and args.device != "cpu"
    engines = [e for e in (args.engines or ("hf,cudagraph,compile_fused_splitkv" if cuda else "hf,static")).split(",") if e]
    profile = [e for e in (args.profile_engines or "").split(",") if e]
    fast = [e for e in engines if e != "hf"]
    lora_engines = [e for e in (args.lora_engines if args.lora_engines is not None
                                else (fast[0] if fast else "")).split(",") if e]
    _log(f"building {args.model_config} with random weights")
    pol = random_policy(args.model_config, "cuda" if cuda else "cpu", args.seed)
    n_params = sum(p.numel() for p in pol.model.parameters())
    print(f"rollout | {args.model_config} ({n_params / 1e6:,.1f}M params, rope theta "
          f"{pol.model.rope_theta_effective:.4g}, {str(pol.dtype)[6:]}, {pol.device}) | "
          f"batch {args.batch} x prompt {args.prompt_len} x new {args.new_tokens} tokens | temperature "
          f"{args.temperature:g} top_p {args.top_p:g} | eos suppressed: every sequence runs --new-tokens | "
          f"engines {engines} | with LoRA r{args.lora_r}: {lora_engines}", flush=True)
    rng = torch.Generator().manual_seed(args.seed)
    prompt_ids = torch.randint(0, pol.tokenizer.vocab_size - 1000, (args.batch, args.prompt_len), generator=rng).tolist()
    # Order: the baseline first, then each fast engine (torch.compile last: the likeliest to fail) timed and
    # checked for greedy equality, then the LoRA runs, so a late failure still leaves the main numbers.
    results = [rollout_throughput(pol, "hf", prompt_ids, args, "-")] if "hf" in engines else []
    greedy = {}
    if args.greedy_prompts and fast:
        g_prompts = greedy_prompts(pol, args)
        _log("greedy check: hf")
        g_ref = greedy_tokens(pol, "hf", g_prompts, args)
    for e in sorted(fast, key=lambda e: e.startswith("compile")):
        results.append(rollout_throughput(pol, e, prompt_ids, args, "-"))
        if args.greedy_prompts:
            greedy[e] = greedy_check(pol, e, g_prompts, g_ref, args)
    profiles = profile_engines(pol, profile, args) if profile else []  # before LoRA: the engines just timed
    attention = attention_timings(pol, args) if profile and cuda and args.attn_splits else None
    if lora_engines:
        attach_random_lora(pol, args.lora_r, args.lora_alpha, args.seed)
        results += [rollout_throughput(pol, e, prompt_ids, args, f"r{args.lora_r} merged") for e in lora_engines]
        # where a merged adapter's run is slower, the same step replayed with it (the profile above is without)
        profiles += [dict(row, lora=f"r{args.lora_r} merged")
                     for row in profile_engines(pol, [e for e in profile if e in lora_engines], args)]
        if args.lora_zero_control:
            # B = 0: the merge leaves the weights as they were, peft's wrappers stay: equal to the run without
            # an adapter means the values of the merged weights cost the time; equal to the random-B run, the
            # wrappers (or the order of the runs) do
            import torch
            with torch.no_grad():
                for p in lora_B_params(pol):
                    p.zero_()
            results += [rollout_throughput(pol, e, prompt_ids, args, f"r{args.lora_r} B=0") for e in lora_engines]
    hf = next((r["tokens_per_s"] for r in results if r["engine"] == "hf" and "tokens_per_s" in r), None)
    print(f"{'engine':<22} {'lora':<12} {'first_s':>8} {'wall_s':>8} {'tokens/s':>10} {'x hf':>7} {'peak_GB':>8} "
          f"{'merge_s':>8} {'fuse_s':>7} {'SM_MHz':>7} {'power_W':>8} {'2tok_s':>7} {'ms/step':>8}")
    for r in results:
        if "error" in r:
            print(f"{r['engine']:<22} {r['lora']:<12} failed: {r['error']}")
            continue
        r["x_hf"] = round(r["tokens_per_s"] / hf, 2) if hf else None
        print(f"{r['engine']:<22} {r['lora']:<12} {r['first_s']:8.1f} {r['wall_s']:8.1f} {r['tokens_per_s']:10.1f} "
              f"{r['x_hf'] or float('nan'):7.2f} {r['peak_gb'] or float('nan'):8.1f} "
              f"{r.get('merge_unmerge_s', float('nan')):8.3f} {r.get('fuse_weights_s', float('nan')):7.3f} "
              f"{r.get('gpu_sm_mhz', float('nan')):7.0f} {r.get('gpu_power_w', float('nan')):8.0f} "
              f"{r.get('two_token_s', float('nan')):7.2f} {r.get('decode_ms_per_step', float('nan')):8.2f}")
    for engine, g in greedy.items():
        if "error" in g:
            print(f"greedy {engine} vs hf: failed: {g['error']}")
            continue
        diffs = [(r["first_diff"], r["gap_ulps"], r["tie"]) for r in g["rows"] if r["first_diff"] is not None]
        print(f"greedy {engine} vs hf, {args.greedy_prompts} prompts x {args.greedy_tokens} tokens: "
              f"{g['rows_equal']} rows equal; differing rows (first position, logit gap in ulps, tie): {diffs}")
    best = max((r for r in results if r["engine"] != "hf" and "tokens_per_s" in r and r["lora"] == "-"),
               key=lambda r: r["tokens_per_s"], default=None)
    print(json.dumps({"bench": "rollout", "model_config": args.model_config, "device": str(pol.device),
                      "batch": args.batch, "prompt_len": args.prompt_len, "new_tokens": args.new_tokens,
                      "temperature": args.temperature, "top_p": args.top_p, "eos_suppressed": True,
                      "results": results, "greedy": greedy, "profile": profiles, "attention": attention,
                      "hf_tokens_per_s": hf,
                      "best_engine": best and best["engine"], "best_tokens_per_s": best and best["tokens_per_s"],
                      "best_x_hf": best and best.get("x_hf"), "env": _env(), "argv": sys.argv}))


# Where a decode step's time goes (rollout-profile, rollout --profile-engines)

# (category, pattern over CUDA kernel names, or over aten op names in a CPU profile); the first match wins.
# The forward's kernels are split by these; every kernel of the sampling window is "sampling". The compile
# engines' cache writes are stores inside Inductor's kernels (triton_..._index_copy_...): "compiled".
PROFILE_CATEGORIES = (
    ("cache index_copy", r"^(?!triton_).*(index_copy|indexcopy)"),
    ("attention", r"attn|attention|fmha|flash|softmax"),
    ("gemm", r"gemm|gemv|nvjet|xmma|cutlass|cublas|matmul|splitk|skinny_mm|aten::(mm|addmm|bmm|linear)$"),
    ("elementwise/norm/rotary: compiled", r"^triton_"),
    ("memcpy/memset", r"^mem(cpy|set)"),
    ("elementwise/norm/rotary: eager", r"elementwise|reduce|norm|rsqrt|pow|mean|mul|add|neg|cat|silu|copy|fill"),
)
SAMPLING = "sampling (outside the graph)"


def profile_category(name):
    import re
    return next((cat for cat, pattern in PROFILE_CATEGORIES if re.search(pattern, name, re.IGNORECASE)), "other")


def profiled_kernels(prof, cuda):
    """(name, calls, ms) per CUDA kernel of a torch.profiler run; on CPU per aten op (self CPU time)."""
    from torch.autograd import DeviceType
    rows = []
    for e in prof.key_averages():
        if cuda and e.device_type == DeviceType.CUDA:
            rows.append((e.key, e.count, e.self_device_time_total / 1e3))
        elif not cuda and e.key.startswith("aten::"):
            rows.append((e.key, e.count, e.self_cpu_time_total / 1e3))
    return rows


def profile_engine(pol, engine, args):
    """One fast engine's decode step: ms per step as the engine runs it (CUDA graphs replayed, sampling
    included) and run eagerly, then the kernel time of `--profile-steps` eager steps by category. Kernels
    replayed inside a CUDA graph can be invisible to the profiler, so the profiled steps run the same layer
    functions eagerly (the compiled halves included); the sampling is profiled apart so that its softmax
    is not counted as attention. The cache is sized as in a rollout of --new-tokens; the steps write new
    tokens --at-token onwards (kv_len as at that point of a rollout)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    import policy as P
    options = P.FAST_ENGINES[engine]
    cuda = pol.device.type == "cuda"
    graphs = options["mode"] != "static"
    if graphs and not cuda:
        raise ValueError(f"engine {engine!r} needs CUDA")
    B, W = args.batch, args.prompt_len
    slots = list(range(W + args.at_token, W + args.at_token + args.decode_steps))
    if slots[-1] >= W + args.new_tokens:
        raise ValueError(f"--at-token {args.at_token} + --decode-steps {args.decode_steps} pass "
                         f"--new-tokens {args.new_tokens}")
    rng = torch.Generator().manual_seed(args.seed)
    ids = torch.randint(0, pol.tokenizer.vocab_size - 1000, (B, W), generator=rng).to(pol.device)
    stop_t = torch.tensor(P.eos_ids(pol), dtype=torch.long, device=pol.device)
    _log(f"rollout-profile {engine}: prefill and warm-up")
    with P.sampling_mode(pol, args.seed):
        decoder = P._StaticDecoder(pol.model, B, W + args.new_tokens, pol.device, pol.dtype, kv_bucket=P.KV_BUCKET, **options)
        next_token = P._token_sampler(stop_t, args.temperature, args.top_p, suppress_eos=True, gumbel=cuda)
        token = next_token(decoder.prefill(ids, torch.ones_like(ids), max(1, 32768 // W)))
        positions = [torch.full_like(token, s) for s in slots]  # no padding: the rotary position is the slot

        def decode(replay):
            tok = token
            for slot, pos in zip(slots, positions):
                tok = next_token(decoder.step(tok, pos, slot, replay=replay))
            return tok

        decode(True)   # warm-up: CUDA-graph capture, torch.compile and Triton compilation
        decode(False)
        ms = {}
        for name, replay in (("engine", True), ("eager", False)):
            _sync(pol)
            t0 = time.perf_counter()
            decode(replay)
            _sync(pol)
            ms[name] = (time.perf_counter() - t0) * 1e3 / len(slots)
        _log(f"rollout-profile {engine}: profiling {args.profile_steps} eager steps")
        steps = list(zip(slots, positions))[:args.profile_steps]
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with profile(activities=activities) as forward:
            logits = [decoder.step(token, pos, slot, replay=False) for slot, pos in steps]
            _sync(pol)
        with profile(activities=activities) as sampling:
            for x in logits:
                next_token(x)
            _sync(pol)
        replay_ms = None
        if graphs:  # the graphs' own kernels, where the profiler sees inside them (0 where it does not)
            with profile(activities=activities) as replayed:
                for slot, pos in steps:
                    decoder.step(token, pos, slot)
                _sync(pol)
            replay_ms = sum(t for _, _, t in profiled_kernels(replayed, cuda)) / len(steps)
        kv_lens = sorted({decoder.kv_len(s) for s in slots})
        del decoder, logits
    n = len(steps)
    kernels = [(name, calls / n, t / n, profile_category(name)) for name, calls, t in profiled_kernels(forward, cuda)]
    kernels += [(name, calls / n, t / n, SAMPLING) for name, calls, t in profiled_kernels(sampling, cuda)]
    kernels.sort(key=lambda k: -k[2])
    order = [cat for cat, _ in PROFILE_CATEGORIES] + ["other", SAMPLING]
    categories = {cat: {"ms": round(sum(k[2] for k in kernels if k[3] == cat), 4),
                        "calls": round(sum(k[1] for k in kernels if k[3] == cat), 1)} for cat in order}
    total = sum(c["ms"] for c in categories.values())
    profiled = "the engine's own eager steps"
    if graphs:
        profiled = "the same layer functions run eagerly" + (" (compiled ones included)" if "compile" in options["mode"] else "")
    print(f"\nrollout-profile {engine} | batch {B} | prompt {W} | kv_len {kv_lens} (new tokens {args.at_token}-"
          f"{args.at_token + len(slots) - 1} of {args.new_tokens}) | engine {ms['engine']:.2f} ms/step "
          f"({'CUDA graphs replayed' if graphs else 'eager'}, sampling included, {len(slots)} steps) | eager "
          f"{ms['eager']:.2f} ms/step | {'kernel' if cuda else 'aten op (CPU)'} time {total:.2f} ms/step over "
          f"{n} profiled steps: {profiled}" + (f" | kernel time seen inside the replayed graphs (forward only, "
                                                f"0 if hidden) {replay_ms:.2f} ms/step" if graphs else ""))
    print(f"{'category':<36} {'ms/step':>8} {'share':>7} {'calls/step':>11}")
    for cat in order:
        c = categories[cat]
        print(f"{cat:<36} {c['ms']:8.3f} {c['ms'] / max(total, 1e-9):7.1%} {c['calls']:11.1f}")
    print(f"{'total':<36} {total:8.3f} {1:7.1%} {sum(c['calls'] for c in categories.values()):11.1f}")
    print(f"{'top kernels':<90} {'ms/step':>8} {'calls/step':>11}  category")
    for name, calls, t, cat in kernels[:args.top_kernels]:
        print(f"{name[:90]:<90} {t:8.3f} {calls:11.1f}  {cat}")
    return {"engine": engine, **options, "kv_lens": kv_lens, "decode_steps": len(slots), "profile_steps": n,
            "engine_ms_per_step": round(ms["engine"], 3), "eager_ms_per_step": round(ms["eager"], 3),
            "kernel_ms_per_step": round(total, 3), "profiled": profiled, "categories": categories,
            "replayed_graph_kernel_ms_per_step": replay_ms and round(replay_ms, 3),
            "top_kernels": [{"name": name, "ms": round(t, 4), "calls": round(calls, 1), "category": cat}
                            for name, calls, t, cat in kernels[:args.top_kernels]]}


def attention_timings(pol, args):
    """One layer's decode attention at the profiled kv_len, timed alone (CUDA graphs, triton do_bench_cudagraph):
    SDPA (`policy._attend`, what the engines without _splitkv run) vs the split-KV kernels with each
    --attn-splits cache slots per program; achieved K/V read bandwidth and the largest difference from SDPA."""
    import torch
    import triton.testing

    import policy as P
    cfg = P._hf_model(pol.model).config
    H, kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
    D = getattr(cfg, "head_dim", None) or cfg.hidden_size // H
    B, cache_len = args.batch, args.prompt_len + args.new_tokens
    bucket = P.KV_BUCKET  # the engines' kv_len bucket
    kv_len = min(cache_len, -(-(args.prompt_len + args.at_token + 1) // bucket) * bucket)
    g = torch.Generator(device=pol.device).manual_seed(args.seed)
    q = torch.randn(B, H, 1, D, generator=g, device=pol.device, dtype=pol.dtype)
    k, v = (torch.randn(B, kv_heads, cache_len, D, generator=g, device=pol.device, dtype=pol.dtype)[:, :, :kv_len]
            for _ in range(2))
    mask = torch.zeros(B, 1, 1, kv_len, device=pol.device, dtype=pol.dtype)
    mask[:, :, :, args.prompt_len + args.at_token + 1:] = float("-inf")  # the rest of the bucket, as in a step
    kv_bytes = 2 * k.numel() * k.element_size()
    ref = P._attend(q, k, v, mask, D ** -0.5)
    rows = []
    for split in [None] + [int(x) for x in args.attn_splits.split(",") if x]:
        fn = (lambda: P._attend(q, k, v, mask, D ** -0.5)) if split is None else (
            lambda split=split: P._attend_split_kv(q, k, v, mask, D ** -0.5, split_tokens=split))
        us = triton.testing.do_bench_cudagraph(fn) * 1e3
        rows.append({"attention": "sdpa" if split is None else f"split_kv_{split}", "us": round(us, 2),
                     "gb_per_s": round(kv_bytes / us / 1e3, 1),
                     "max_abs_diff_vs_sdpa": round((fn().float() - ref.float()).abs().max().item(), 5)})
    print(f"\ndecode attention alone, one layer: batch {B} x {H} q heads / {kv_heads} kv heads x head dim {D}, kv_len "
          f"{kv_len} ({kv_bytes / 1e6:.1f} MB of K/V read; x {cfg.num_hidden_layers} layers per step)")
    print(f"{'attention':<16} {'us/layer':>9} {'GB/s':>8} {'max |diff| vs sdpa':>19}")
    for r in rows:
        print(f"{r['attention']:<16} {r['us']:9.1f} {r['gb_per_s']:8.0f} {r['max_abs_diff_vs_sdpa']:19.5f}")
    return {"batch": B, "kv_len": kv_len, "kv_mb": round(kv_bytes / 1e6, 2), "rows": rows}


def profile_engines(pol, engines, args):
    """`profile_engine` for each engine; a failure is recorded in its row, not raised."""
    rows = []
    for engine in engines:
        try:
            rows.append(profile_engine(pol, engine, args))
        except (RuntimeError, ValueError, KeyError) as e:
            rows.append({"engine": engine, "error": f"{type(e).__name__}: {str(e)[:300]}"})
            _log(f"rollout-profile {engine} failed: {rows[-1]['error']}")
    return rows


def cmd_rollout_profile(args):
    """Where the fast engines' decode step spends its time (see `profile_engine`), one engine after another."""
    import torch
    rollout_defaults(args)
    cuda = torch.cuda.is_available() and args.device != "cpu"
    engines = [e for e in (args.engines or ("compile" if cuda else "static")).split(",") if e]
    _log(f"building {args.model_config} with random weights")
    pol = random_policy(args.model_config, "cuda" if cuda else "cpu", args.seed)
    print(f"rollout-profile | {args.model_config} ({str(pol.dtype)[6:]}, {pol.device}) | batch {args.batch} x prompt "
          f"{args.prompt_len} | temperature {args.temperature:g} top_p {args.top_p:g} | engines {engines}", flush=True)
    rows = profile_engines(pol, engines, args)
    attention = attention_timings(pol, args) if cuda and args.attn_splits else None
    print(json.dumps({"bench": "rollout-profile", "model_config": args.model_config, "device": str(pol.device),
                      "batch": args.batch, "prompt_len": args.prompt_len, "new_tokens": args.new_tokens,
                      "at_token": args.at_token, "temperature": args.temperature, "top_p": args.top_p,
                      "engines": rows, "attention": attention, "env": _env(), "argv": sys.argv}))


def decode_gemm_shapes(model_config):
    """(name, N, K) of the matmuls of one decode step, fused as the _fused engines run them."""
    c, _ = model_config_of(model_config)
    hidden, heads, kv_heads, inter, vocab = (c.hidden_size, c.num_attention_heads, c.num_key_value_heads,
                                             c.intermediate_size, c.vocab_size)
    d = getattr(c, "head_dim", None) or hidden // heads
    return [("qkv", (heads + 2 * kv_heads) * d, hidden), ("o", hidden, heads * d), ("gate_up", 2 * inter, hidden),
            ("down", hidden, inter), ("lm_head", vocab, hidden)]


def host_seconds(fn, n):
    """Mean wall seconds of n calls of fn after one warm-up (the CPU stand-in for a GPU benchmark timer)."""
    fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def cmd_decode_gemms(args):
    """Each decode matmul alone: F.linear on W (N, K) vs torch.mm on W's transpose made contiguous (K, N)."""
    import torch

    import policy as P
    device = P.resolve_device(None if args.device == "auto" else args.device)
    dtype = P.resolve_dtype(None, device)
    M = args.batch or default_batch(args.model_config)
    if device.type == "cuda":
        import triton.testing
        bench_us = lambda fn: triton.testing.do_bench_cudagraph(fn, rep=200) * 1e3  # noqa: E731
    else:
        bench_us = lambda fn: host_seconds(fn, 20) * 1e6  # noqa: E731
    print(f"decode-gemms | {args.model_config} | M {M} | {str(dtype)[6:]} | {device}", flush=True)
    print(f"{'gemm':<8} {'N':>7} {'K':>6} {'MB':>8} {'linear_us':>10} {'TB/s':>6} {'mm_t_us':>8} {'TB/s':>6} {'max|diff|':>9}")
    g = torch.Generator(device=device).manual_seed(args.seed)
    rows = []
    for name, N, K in decode_gemm_shapes(args.model_config):
        w = torch.randn(N, K, generator=g, device=device, dtype=dtype) * K ** -0.5
        x = torch.randn(M, K, generator=g, device=device, dtype=dtype)
        w_t = w.t().contiguous()
        linear = lambda: torch.nn.functional.linear(x, w)  # noqa: E731
        mm_t = lambda: torch.mm(x, w_t)  # noqa: E731
        us = {"linear": bench_us(linear), "mm_t": bench_us(mm_t)}
        nbytes = N * K * w.element_size()
        row = {"gemm": name, "N": N, "K": K, "weight_mb": round(nbytes / 1e6, 2),
               **{f"{k}_us": round(v, 2) for k, v in us.items()},
               **{f"{k}_tb_per_s": round(nbytes / v / 1e6, 3) for k, v in us.items()},
               "max_abs_diff": (linear().float() - mm_t().float()).abs().max().item()}
        rows.append(row)
        print(f"{name:<8} {N:7d} {K:6d} {row['weight_mb']:8.1f} {us['linear']:10.1f} {row['linear_tb_per_s']:6.2f} "
              f"{us['mm_t']:8.1f} {row['mm_t_tb_per_s']:6.2f} {row['max_abs_diff']:9.3g}", flush=True)
        if device.type == "cuda" and (args.triton == "all" or name in args.triton.split(",")):
            t0 = time.perf_counter()
            sweep = triton_gemm_sweep(name, x, w, lambda fn: triton.testing.do_bench_cudagraph(fn, rep=50) * 1e3)
            ok = sorted((r for r in sweep if "us" in r), key=lambda r: r["us"])
            by_kernel = sorted(ok, key=lambda r: r["kernel_us"])
            row["triton"] = {"configs": len(sweep), "failed": len(sweep) - len(ok), "sweep_s": round(time.perf_counter() - t0, 1),
                             "best": ok[:3], "best_kernel": by_kernel[:1], "all": sweep}
            for label, r in [("best", b) for b in ok[:3]] + [("kernel", b) for b in by_kernel[:1]]:
                cfg = (f"n{r['block_n']} k{r['block_k']} split{r['split']} w{r['num_warps']} s{r['num_stages']}"
                       f"{' tma' * r['tma']}")
                print(f"  triton {label:<6} {cfg:<28} {r['us']:8.1f} us {nbytes / r['us'] / 1e6:5.2f} TB/s | kernel "
                      f"{r['kernel_us']:8.1f} us {nbytes / r['kernel_us'] / 1e6:5.2f} TB/s | max|diff| {r['max_abs_diff']:.3g}",
                      flush=True)
        del w, w_t
    print(json.dumps({"bench": "decode-gemms", "model_config": args.model_config, "device": str(device), "m": M,
                      "rows": rows, "env": _env(), "argv": sys.argv}))


def skinny_stage_bytes(block_m, block_k, block_n):
    """Shared memory of one pipeline stage of policy.skinny_partials: a bf16 tile of x and one of W."""
    return (block_m * block_k + block_k * block_n) * 2


def skinny_configs(M, N, K, sms):
    """First-round configurations of policy.skinny_partials for one matmul shape: each column tile and K
    block with the slice counts whose grids come nearest 1, 2 and 4 programs per SM, as many pipeline
    stages (up to 4) as ~220 KB of shared memory holds, with pointer and with descriptor (TMA) loads."""
    import triton
    block_m = max(16, triton.next_power_of_2(M))
    out = []
    for bn in (64, 128, 256):
        for bk in (128, 256):
            stage_bytes = skinny_stage_bytes(block_m, bk, bn)
            stages = min(4, 220_000 // stage_bytes)
            if stages < 2:
                continue
            tiles = triton.cdiv(N, bn)
            splits = [s for s in (1, 2, 3, 4, 6, 8, 12, 16, 24) if K // s >= 2 * bk]
            chosen = {min(splits, key=lambda s: abs(tiles * s - want * sms)) for want in (1, 2, 4)}
            out += [dict(block_n=bn, block_k=bk, split=s, num_warps=8 if bn == 256 else 4, num_stages=stages, tma=tma)
                    for s in sorted(chosen) for tma in (False, True)]
    return out


def triton_gemm_sweep(name, x, w, bench_us, top=2):
    """policy.skinny_linear over `skinny_configs`, then the `top` fastest with other stage and warp counts.
    Each row: us with the sum of the partials (what F.linear's place costs) and us of the kernel alone
    (the sum can fuse into the next elementwise op), the largest difference from F.linear."""
    import torch
    import triton

    import policy as P
    ref = torch.nn.functional.linear(x, w).float()
    rows, seen = [], set()

    def try_config(cfg):
        key = tuple(sorted(cfg.items()))
        if key in seen:
            return
        seen.add(key)
        try:
            diff = (P.skinny_linear(x, w, **cfg).float() - ref).abs().max().item()
            row = {"gemm": name, **cfg, "us": round(bench_us(lambda: P.skinny_linear(x, w, **cfg)), 2),
                   "kernel_us": round(bench_us(lambda: P.skinny_partials(x, w, **cfg)), 2), "max_abs_diff": diff}
        except Exception as e:  # out of shared memory or registers: recorded, the sweep goes on
            row = {"gemm": name, **cfg, "error": f"{type(e).__name__}: {str(e)[:120]}"}
        rows.append(row)

    block_m = max(16, triton.next_power_of_2(x.shape[0]))  # as skinny_partials tiles the rows
    for cfg in skinny_configs(x.shape[0], w.shape[0], w.shape[1], P._sm_count(x.device)):
        try_config(cfg)
    ok = sorted((r for r in rows if "us" in r), key=lambda r: r["us"])
    for best in ok[:top]:
        cfg = {k: best[k] for k in ("block_n", "block_k", "split", "tma")}
        stage_bytes = skinny_stage_bytes(block_m, cfg["block_k"], cfg["block_n"])
        for stages in (2, 3, 4, 5, 6):
            for warps in (4, 8):
                if stages * stage_bytes <= 228_000:
                    try_config({**cfg, "num_warps": warps, "num_stages": stages})
    return rows


def cmd_decode_attn(args):
    """The split-KV decode attention of one layer alone, as the engines run it: over the whole cache of a
    rollout, reading up to the step's slot (a device tensor). Sweeps slice length and cache slots per
    iteration (Triton's default warps and stages), then warps and stages for the fastest few; the best
    are timed at the first, middle and last slot of a rollout (Simpson's rule gives the rollout's mean)."""
    import torch
    import triton.testing

    import policy as P
    device = P.resolve_device(None if args.device == "auto" else args.device)
    if device.type != "cuda":
        raise SystemExit("decode-attn times CUDA kernels; run it on a GPU")
    dtype = P.resolve_dtype(None, device)
    c, _ = model_config_of(args.model_config)
    H, kv_heads = c.num_attention_heads, c.num_key_value_heads
    D = getattr(c, "head_dim", None) or c.hidden_size // H
    rollout_defaults(args)
    B, W, new = args.batch, args.prompt_len, args.new_tokens
    cache_len = -(-(W + new) // P.KV_BUCKET) * P.KV_BUCKET      # as the compile engines round it
    g = torch.Generator(device=device).manual_seed(args.seed)
    q = torch.randn(B, H, 1, D, generator=g, device=device, dtype=dtype)
    k, v = (torch.randn(B, kv_heads, cache_len, D, generator=g, device=device, dtype=dtype) for _ in range(2))
    mask = torch.zeros(B, 1, 1, cache_len, device=device, dtype=dtype)
    slot = torch.zeros(1, dtype=torch.long, device=device)
    scale = D ** -0.5

    def at(s):
        slot.fill_(s)
        mask.zero_()
        mask[..., s + 1:] = float("-inf")
        ref = P._attend(q, k[:, :, :s + 1], v[:, :, :s + 1], mask[..., :s + 1], scale).float()
        return ref, 2 * B * kv_heads * (s + 1) * D * k.element_size()

    def time_config(cfg, ref, nbytes):
        fn = lambda: P._attend_split_kv(q, k, v, mask, scale, slot, **cfg)  # noqa: E731
        try:
            diff = (fn().float() - ref).abs().max().item()
            us = triton.testing.do_bench_cudagraph(fn, rep=100) * 1e3
            return {**cfg, "us": round(us, 2), "tb_per_s": round(nbytes / us / 1e6, 3), "max_abs_diff": diff}
        except Exception as e:  # out of resources: recorded, the sweep goes on
            return {**cfg, "error": f"{type(e).__name__}: {str(e)[:120]}"}

    mid = W + new // 2
    ref, nbytes = at(mid)
    print(f"decode-attn | {args.model_config} | batch {B} x {H} q / {kv_heads} kv heads x {D} | cache {cache_len} | "
          f"slot {mid}: {nbytes / 1e6:.1f} MB of K/V", flush=True)
    default = {"split_tokens": None, "block_n": P.SPLIT_KV_BLOCK, "num_warps": None, "num_stages": None}
    rows = [time_config(default, ref, nbytes)]
    for split in (256, 512, 768, 1024, cache_len):
        for bn in (32, 64, 128):
            rows.append(time_config({"split_tokens": split, "block_n": bn, "num_warps": None, "num_stages": None}, ref, nbytes))
    first = sorted((r for r in rows if "us" in r), key=lambda r: r["us"])[:3]
    for r in first:
        for warps in (2, 4, 8):
            for stages in (1, 2, 3, 4):
                rows.append(time_config({"split_tokens": r["split_tokens"], "block_n": r["block_n"], "num_warps": warps,
                                         "num_stages": stages}, ref, nbytes))
    ok = sorted((r for r in rows if "us" in r), key=lambda r: r["us"])
    finals = []
    for cfg in [default] + [{k: r[k] for k in default} for r in ok[:4] if {k: r[k] for k in default} != default]:
        per_slot = [time_config(cfg, *at(s)) for s in (W, mid, W + new - 1)]
        if all("us" in r for r in per_slot):
            mean_us = (per_slot[0]["us"] + 4 * per_slot[1]["us"] + per_slot[2]["us"]) / 6
            finals.append({**cfg, "us_first_mid_last": [r["us"] for r in per_slot], "rollout_mean_us": round(mean_us, 2),
                           "per_step_ms": round(mean_us * c.num_hidden_layers / 1e3, 3)})
    print(f"{'split':>6} {'bn':>4} {'warps':>5} {'stages':>6} {'us':>8} {'TB/s':>6}")
    for r in ok[:10]:
        print(f"{str(r['split_tokens']):>6} {r['block_n']:4d} {str(r['num_warps']):>5} {str(r['num_stages']):>6} {r['us']:8.1f} "
              f"{r['tb_per_s']:6.2f}")
    print("over a rollout (first / middle / last slot; Simpson mean; x layers):")
    for f in finals:
        print(f"  {str(f['split_tokens']):>6} {f['block_n']:4d} {str(f['num_warps']):>5} {str(f['num_stages']):>6} "
              f"{f['us_first_mid_last']} -> {f['rollout_mean_us']:.1f} us/layer, {f['per_step_ms']:.3f} ms/step")
    print(json.dumps({"bench": "decode-attn", "model_config": args.model_config, "batch": B, "cache_len": cache_len,
                      "rows": rows, "rollout": finals, "env": _env(), "argv": sys.argv}))


def cmd_decode_sample(args):
    """One decode step's sampling alone at --batch x vocab: generate's rule (fp32 scores, warpers, softmax,
    multinomial; `policy._token_sampler`) vs `policy.gumbel_sample`, at --temperature (top-p 1)."""
    import torch
    import triton.testing

    import policy as P
    device = P.resolve_device(None if args.device == "auto" else args.device)
    if device.type != "cuda":
        raise SystemExit("decode-sample times CUDA kernels; run it on a GPU")
    c, _ = model_config_of(args.model_config)
    B = args.batch or default_batch(args.model_config)
    logits = torch.randn(B, c.vocab_size, device=device, dtype=P.resolve_dtype(None, device))
    stop_t = torch.tensor([0], device=device)
    rule = P._token_sampler(stop_t, args.temperature, 1.0, suppress_eos=False)

    def bench_us(fn):
        try:
            return triton.testing.do_bench_cudagraph(fn, rep=200) * 1e3
        except Exception as e:  # not capturable: launched one by one instead
            _log(f"decode-sample: no CUDA graph ({type(e).__name__}: {e}); timing without one")
            return triton.testing.do_bench(fn, rep=200) * 1e3

    us = {"generate_rule": bench_us(lambda: rule(logits)), "gumbel": bench_us(lambda: P.gumbel_sample(logits, args.temperature))}
    print(f"decode-sample | batch {B} x vocab {c.vocab_size} | temperature {args.temperature:g} | "
          + " | ".join(f"{k} {v:.1f} us" for k, v in us.items()), flush=True)
    print(json.dumps({"bench": "decode-sample", "batch": B, "vocab": c.vocab_size, "temperature": args.temperature,
                      **{f"{k}_us": round(v, 2) for k, v in us.items()}, "env": _env(), "argv": sys.argv}))


def cmd_sft_step(args):
    """LoRA SFT steps through train.py's own step (loss: policy.token_logprobs over completion tokens)."""
    import types

    import torch

    import policy as P
    import train
    big = args.model_config == "qwen2.5-7b"
    cuda = torch.cuda.is_available() and args.device != "cpu"
    args.seqs = args.seqs or (16 if big else 4)
    args.seq_len = args.seq_len or (2048 if big else 256)
    args.prompt_len = args.seq_len // 4 if args.prompt_len is None else args.prompt_len
    micro = min(args.micro_batch, args.seqs)
    _log(f"building {args.model_config} with random weights")
    pol = random_policy(args.model_config, "cuda" if cuda else "cpu", args.seed, args.gradient_checkpointing)
    attach_random_lora(pol, args.lora_r, args.lora_alpha, args.seed)
    n_train = sum(p.numel() for p in P.trainable_parameters(pol))
    step_args = types.SimpleNamespace(lr=args.lr, adam_betas="0.9,0.999", weight_decay=0.0, grad_clip=1.0,
                                      logprob_chunk_tokens=args.chunk_tokens, pad_multiple=1)
    optimizer = train.make_optimizer(pol, step_args)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
    g = torch.Generator().manual_seed(args.seed)
    vocab = pol.tokenizer.vocab_size
    examples = [{"input_ids": torch.randint(0, vocab - 1000, (args.seq_len,), generator=g).tolist(),
                 "n_prompt": args.prompt_len} for _ in range(args.seqs)]
    micro_batches = [list(range(i, min(i + micro, args.seqs))) for i in range(0, args.seqs, micro)]
    print(f"sft-step | {args.model_config} ({pol.dtype}, {pol.device}) | LoRA r{args.lora_r} "
          f"({n_train / 1e6:.1f}M trainable) | {args.seqs} x {args.seq_len} tokens (loss on the last "
          f"{args.seq_len - args.prompt_len}) | micro-batch {micro} x {len(micro_batches)} | gradient "
          f"checkpointing {args.gradient_checkpointing} | logprob chunk {args.chunk_tokens}", flush=True)
    _peak_gb(pol, reset=True)
    rows = []
    for step in range(args.warmup_steps + args.steps):
        _sync(pol)
        t = time.perf_counter()
        out = train.sft_step(pol, examples, micro_batches, optimizer, scheduler, step_args)
        _sync(pol)
        wall = time.perf_counter() - t
        rows.append({"step": step, "warmup": step < args.warmup_steps, "wall_s": round(wall, 3),
                     "tokens_per_s": round(args.seqs * args.seq_len / wall, 1), "loss": round(out["loss"], 4)})
        _log(f"step {step}: {rows[-1]}")
    timed = [r for r in rows if not r["warmup"]] or rows
    tokens_per_s = args.seqs * args.seq_len * len(timed) / sum(r["wall_s"] for r in timed)
    peak = _peak_gb(pol)
    print(f"{'step':>4} {'warmup':>6} {'wall_s':>8} {'tokens/s':>10} {'loss':>8}")
    for r in rows:
        print(f"{r['step']:>4} {str(r['warmup']):>6} {r['wall_s']:8.2f} {r['tokens_per_s']:10.1f} {r['loss']:8.4f}")
    print(f"{tokens_per_s:.0f} tokens/s over {len(timed)} timed steps; peak memory {peak or float('nan'):.1f} GB "
          f"(allocated)")
    print(json.dumps({"bench": "sft-step", "model_config": args.model_config, "device": str(pol.device),
                      "seqs": args.seqs, "seq_len": args.seq_len, "prompt_len": args.prompt_len,
                      "micro_batch": micro, "gradient_checkpointing": args.gradient_checkpointing,
                      "lora_r": args.lora_r, "trainable_params": n_train, "tokens_per_s": round(tokens_per_s, 1),
                      "peak_gb": peak and round(peak, 2), "steps": rows, "env": _env(), "argv": sys.argv}))


def cmd_sft_profile(args):
    """gpu-small's SFT step as train.py runs it (full fine-tuning: fp32 master weights, bf16 autocast on CUDA, 32
    sequences a step, length-bucketed as train.epoch_batches cuts them) on real pairs, in several variants over
    the same batches: the padding mask kept or dropped for right-padded batches (policy.CAUSAL_WHEN_RIGHT_PADDED),
    the log-prob chunk, AdamW's fused kernel. Then a few steps of the first variant under torch.profiler: the
    kernels by GPU time, and GPU time against wall time (a step far longer than its kernels waits on the host).
    Before timing, one batch's loss is computed with and without the padding mask: they must agree."""
    import tempfile
    import types

    import torch

    import policy as P
    import train
    preset = train.PRESETS["gpu-small"]
    device = P.resolve_device(args.device)
    pairs = train.load_pairs(args.pairs)[:args.max_pairs]
    sizes = train.tiny_sizes(train.parse_args(["--preset", "gpu-small"]))   # the model and tokenizer train.py builds
    _log(f"tokenizer and gpu-small model from {len(pairs)} pairs")
    pol = P.load_policy(None, corpus_texts=train.corpus_texts(pairs, []), run_dir=tempfile.mkdtemp(prefix="sftprof_"),
                        tiny_sizes=sizes, lora_r=0, dtype="fp32", device=str(device), seed=0)
    pairs = [dict(p, prompt=P.prompt_in_form(p["prompt"], preset["prompt_source"])) for p in pairs]
    examples, dropped = P.encode_pairs(pol.tokenizer, pairs, preset["pipeline_max_seq_len"])
    lengths = [len(e["input_ids"]) for e in examples]
    stream = train.BatchStream(lengths, preset["micro_batch"], 256, 0)
    batches = [stream.next() for _ in range(args.warmup_steps + args.steps)]
    check = P.collate([examples[i] for i in max(batches, key=lambda b: max(lengths[i] for i in b))],
                      pol.tokenizer.pad_token_id)
    with torch.no_grad(), train.autocast(pol):
        losses = []
        for causal in (False, True):
            P.CAUSAL_WHEN_RIGHT_PADDED = causal
            s, n = P.completion_nll_sum(pol, check, 512)
            losses.append(s.item() / n)
    rel = abs(losses[0] - losses[1]) / abs(losses[0])
    print(f"sft-profile | gpu-small ({sum(p.numel() for p in pol.model.parameters()) / 1e6:.1f}M params, "
          f"{pol.device}) | {len(examples)} pairs ({dropped} over {preset['pipeline_max_seq_len']} tokens) | "
          f"{len(batches)} steps of {preset['micro_batch']} | longest batch's loss with the padding mask "
          f"{losses[0]:.5f}, without {losses[1]:.5f} (rel diff {rel:.1e})", flush=True)
    if rel > 1e-2:
        raise SystemExit(f"the two masks disagree on the loss ({rel:.1e}): not timing a wrong variant")
    def variant(spec):
        """(name, causal-only, chunk tokens, fused AdamW, pad multiple) of a NAME:OPTS spec; sets the mask switch;
        and a fresh optimizer, scheduler and train.sft_step args for it."""
        name, _, opts = spec.partition(":")
        opts = opts.split("+")
        chunk = next((int(o[len("chunk"):]) for o in opts if o.startswith("chunk")), 512)
        pad = next((int(o[len("pad"):]) for o in opts if o.startswith("pad")), 1)
        causal, fused = "mask" not in opts, "fused" in opts
        P.CAUSAL_WHEN_RIGHT_PADDED = causal
        optimizer = torch.optim.AdamW(P.trainable_parameters(pol), lr=1e-4, fused=fused and device.type == "cuda")
        step = (optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0),
                types.SimpleNamespace(lr=1e-4, adam_betas="0.9,0.95", weight_decay=0.0, grad_clip=1.0,
                                      logprob_chunk_tokens=chunk, pad_multiple=pad))
        return name, causal, chunk, fused, pad, step

    rows = []
    for spec in args.variants.split(","):
        name, causal, chunk, fused, pad, step = variant(spec)
        if device.type == "cuda":
            torch.cuda.empty_cache()  # each variant starts from an empty allocator cache
        walls, tokens = [], 0
        for i, b in enumerate(batches):
            _sync(pol)
            t = time.perf_counter()
            out = train.sft_step(pol, examples, [b], *step)
            _sync(pol)
            if i >= args.warmup_steps:
                walls.append(time.perf_counter() - t)
                tokens += out["tokens"]
        rows.append({"variant": name, "causal_only": causal, "chunk_tokens": chunk, "fused_adam": fused,
                     "pad_multiple": pad, "ms_per_step": round(1e3 * sum(walls) / len(walls), 1),
                     "tokens_per_s": round(tokens / sum(walls))})
        _log(f"{rows[-1]}")
    print(f"{'variant':>12} {'causal':>6} {'chunk':>6} {'fused':>5} {'pad':>4} {'ms/step':>8} {'tokens/s':>9}")
    for r in rows:
        print(f"{r['variant']:>12} {str(r['causal_only']):>6} {r['chunk_tokens']:>6} {str(r['fused_adam']):>5} "
              f"{r['pad_multiple']:>4} {r['ms_per_step']:8.1f} {r['tokens_per_s']:9d}")
    prof_rows = []
    if args.profile_steps and device.type == "cuda":
        from torch.profiler import ProfilerActivity, profile

        name, _, _, _, _, step = variant(args.variants.split(",")[0])
        _sync(pol)
        t = time.perf_counter()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for b in batches[args.warmup_steps:args.warmup_steps + args.profile_steps]:
                train.sft_step(pol, examples, [b], *step)
            _sync(pol)
        wall_ms = (time.perf_counter() - t) * 1e3
        kernels = sorted((e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA
                          and e.self_device_time_total > 0), key=lambda e: -e.self_device_time_total)
        gpu_ms = sum(e.self_device_time_total for e in kernels) / 1e3
        print(f"profile of {args.profile_steps} steps ({name}): wall {wall_ms:.0f} ms, GPU busy {gpu_ms:.0f} ms "
              f"({100 * gpu_ms / wall_ms:.0f}%); kernels by GPU time:")
        for e in kernels[:args.top_kernels]:
            prof_rows.append({"name": e.key[:90], "count": e.count, "gpu_ms": round(e.self_device_time_total / 1e3, 2)})
            print(f"  {prof_rows[-1]['gpu_ms']:9.2f} ms  {e.count:6d}x  {e.key[:100]}")
    P.CAUSAL_WHEN_RIGHT_PADDED = True
    print(json.dumps({"bench": "sft-profile", "pairs": len(examples), "loss_mask_vs_causal": losses, "rows": rows,
                      "profile": prof_rows, "env": _env(), "argv": sys.argv}))


def cmd_rl_step(args):
    """One RL step through train.py's own rl_step (rollout -> judge -> DRPO/GRPO update) on a random-weight
    model with a fresh LoRA adapter: time split generate / verify / update and peak memory. The prompts are
    real synthetic tasks rendered by policy.render_prompt (a tokenizer trained here on them; the 7B model's
    vocab is larger, its extra ids decode to nothing). A random model writes no code, so --teacher-frac of
    the rollouts are judged with the teacher's solution instead (tokens unchanged), so that the judge does
    real work and DRPO has correct rollouts to weigh."""
    import tempfile

    import torch

    import policy as P
    import synth
    import teacher
    import train
    from reward import Judge
    big = args.model_config == "qwen2.5-7b"
    cuda = torch.cuda.is_available() and args.device != "cpu"
    device = "cuda" if cuda else "cpu"
    records, _ = synth.generate(args.prompts * 4, [1, 2], args.seed, synth.make_budget("cpu"), workers=1, progress=False)
    records = [dict(r, level=1) for r in records]  # one curriculum bucket for the bench
    tasks_path = os.path.join(tempfile.mkdtemp(prefix="bench-rl-"), "tasks.jsonl")
    with open(tasks_path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    flags = ["--stage", "rl", "--tasks", tasks_path, "--device", device, "--prompts-per-step", str(args.prompts),
             "--group-size", str(args.group_size), "--rollout-max-new-tokens", str(args.new_tokens),
             "--micro-batch", str(args.micro_batch), "--gen-batch-size", str(args.prompts * args.group_size),
             "--engine", args.engine, "--loss", args.loss, "--rl-lora-r", str(args.lora_r),
             "--lora-alpha", str(2 * args.lora_r), "--logprob-chunk-tokens", str(args.chunk_tokens)]
    step_args = train.parse_args(flags + (["--gradient-checkpointing"] if args.gradient_checkpointing else []))
    _log(f"building {args.model_config} with random weights")
    pol = random_policy(args.model_config, device, args.seed, args.gradient_checkpointing)
    pol.tokenizer = P.train_tokenizer([r["source"] for r in records], 4096)
    P.attach_lora(pol, args.lora_r, 2 * args.lora_r, 0.0)
    n_train = sum(p.numel() for p in P.trainable_parameters(pol))
    solutions = {r["source"]: teacher.completion_text(teacher.compile_program(r, seed=0, target=device))
                 for r in records[:args.prompts * args.steps]}

    class TeacherSwapJudge:
        """verify_many with --teacher-frac of each group's completions replaced by the teacher's solution."""

        def __init__(self, judge):
            self.judge = judge

        def verify_many(self, pairs, **kw):
            k = round(args.teacher_frac * args.group_size)
            pairs = [(src, solutions[src] if i % args.group_size < k else text) for i, (src, text) in enumerate(pairs)]
            return self.judge.verify_many(pairs, **kw)

    optimizer = torch.optim.AdamW(P.trainable_parameters(pol), lr=step_args.rl_lr)
    print(f"rl-step | {args.model_config} ({pol.dtype}, {pol.device}) | LoRA r{args.lora_r} ({n_train / 1e6:.1f}M "
          f"trainable) | {args.prompts} prompts x G={args.group_size} x {args.new_tokens} new tokens | loss "
          f"{args.loss} | engine {args.engine} | micro-batch {args.micro_batch} | gradient checkpointing "
          f"{args.gradient_checkpointing} | teacher answers {args.teacher_frac:g} of each group", flush=True)
    rows = []
    with Judge(workers=args.workers, device=device, timeout_s=args.timeout_s) as judge:
        for step in range(args.steps):
            _peak_gb(pol, reset=True)
            batch = records[step * args.prompts:(step + 1) * args.prompts]
            t = time.perf_counter()
            row, samples, verdicts = train.rl_step(pol, optimizer, TeacherSwapJudge(judge), batch, step_args, step)
            _sync(pol)
            row.update(step=step, wall_s=time.perf_counter() - t, peak_gb=_peak_gb(pol),
                       new_tokens=sum(len(s.completion_ids) for s in samples))
            row.pop("hack_flags")
            rows.append(row)
            _log(f"step {step}: " + json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}))
    print(f"{'step':>4} {'generate_s':>10} {'verify_s':>9} {'update_s':>9} {'total_s':>8} {'new_tok':>8} {'tok/s':>8} "
          f"{'correct':>8} {'peak_GB':>8}")
    for r in rows:
        print(f"{r['step']:>4} {r['t_generate_s']:10.1f} {r['t_verify_s']:9.1f} {r['t_update_s']:9.1f} {r['wall_s']:8.1f} "
              f"{r['new_tokens']:>8} {r['tokens_per_s']:8.0f} {r['correct_frac']:8.2f} {r['peak_gb'] or float('nan'):8.1f}")
    print(json.dumps({"bench": "rl-step", "model_config": args.model_config, "device": str(pol.device),
                      "prompts": args.prompts, "group_size": args.group_size, "new_tokens": args.new_tokens,
                      "loss": args.loss, "engine": args.engine, "lora_r": args.lora_r, "micro_batch": args.micro_batch,
                      "gradient_checkpointing": args.gradient_checkpointing, "trainable_params": n_train,
                      "steps": rows, "env": _env(), "argv": sys.argv}, default=str))


def seed_run_done(run_dir) -> bool:
    """rl-seeds: a run counts as finished once its train.py exited 0 (seeds_done.json beside its metrics)."""
    return os.path.isfile(os.path.join(run_dir, "seeds_done.json"))


def seed_run_measures(run_dir) -> dict:
    """rl-seeds: what one RL run measured, from its metrics.jsonl and heldout_tasks.jsonl: held-out pass@1 over all
    held-out tasks and per level at its first evaluation (step 0: the SFT policy, with --rl-eval-first) and its last;
    the mean share of informative groups and of correct rollouts over its steps; its steps."""
    import eval as ev

    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    held = {}
    with open(os.path.join(run_dir, "heldout_tasks.jsonl")) as f:
        for line in f:
            if line.strip():
                held.setdefault(int(json.loads(line)["level"]), []).append(1)
    evals = [r for r in rows if r.get("heldout_pass1_by_level")]
    steps = [r for r in rows if r.get("step", 0) > 0]
    out = {"steps": steps[-1]["step"] if steps else 0}
    for tag, r in (("first", evals[0] if evals else None), ("last", evals[-1] if evals else None)):
        if r is None:
            continue
        out[f"heldout_{tag}"] = ev.heldout_mean(r["heldout_pass1_by_level"], held)
        out[f"heldout_{tag}_step"] = r["step"]
        for lv, x in r["heldout_pass1_by_level"].items():
            out[f"heldout_{tag}_L{lv}"] = x
    for key in ("informative_frac", "correct_frac", "all_wrong_frac"):
        vals = [r[key] for r in steps if r.get(key) is not None]
        out[f"mean_{key}"] = sum(vals) / len(vals) if vals else None
    return out


def seed_evals(args):
    """rl-seeds' evaluation sets: [(name, path)] from --eval-tasks (synthetic held-out JSONL) and --kb-tasks (a
    KernelBench level folder)."""
    return [(name, path) for name, path in (("synthetic", args.eval_tasks), ("kb", args.kb_tasks)) if path]


def seed_eval_measures(run_dir, evals) -> dict:
    """rl-seeds: what `eval.py` measured of one checkpoint (<run_dir>/eval_<name>/results.jsonl, per level): Acc,
    Acc within KernelBench's 1e-4, fast_1 and the geomean speedup where speed was measured."""
    import eval as ev

    out = {}
    for name, _ in evals:
        path = os.path.join(run_dir, f"eval_{name}", "results.jsonl")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        for lv, agg in ev.aggregate_by_level(rows)["levels"].items():
            for key in ("acc", "acc_kb_tol", "fast_1", "geomean_speedup"):
                if agg.get(key) is not None:
                    out[f"{name}_{key}_L{lv}"] = agg[key]
    return out


def run_seed_evals(args, policy, run_dir, evals, t0):
    """Each evaluation set judged for one checkpoint by `python eval.py` (resumable: its --out skips finished
    tasks), unless done already (eval_<name>/done.json) or past --stop-after-s. True when all are done."""
    import shlex

    done = True
    for name, path in evals:
        out = os.path.join(run_dir, f"eval_{name}")
        if os.path.isfile(os.path.join(out, "done.json")):
            continue
        if args.stop_after_s and time.time() - t0 > args.stop_after_s:
            return False
        argv = [sys.executable, os.path.join(HERE, "eval.py"), "--tasks", path, "--policy", policy, "--out", out,
                *shlex.split(args.eval_flags)]
        _log(f"eval {name} of {policy}: " + " ".join(shlex.quote(a) for a in argv[1:]))
        if subprocess.run(argv, cwd=HERE).returncode != 0:
            _log(f"{out}: eval.py failed; run again to resume it")
            done = False
            continue
        with open(os.path.join(out, "done.json"), "w") as f:
            json.dump({"policy": policy, "tasks": path}, f)
    return done


def cmd_rl_seeds(args):
    """N seeds of each RL arm from one SFT checkpoint, each `python train.py --stage rl` in a process of its own into
    <out>/<arm>_seed<k>; with --eval-tasks / --kb-tasks, each finished run's checkpoint and the SFT checkpoint
    (<out>/sft, the row every arm is read against) judged by eval.py. Then every measure (seed_run_measures,
    seed_eval_measures) as the mean and 95% interval over the seeds (eval.mean_ci95), per arm. Resumable across
    machine calls: a finished run (seeds_done.json) or evaluation (done.json) is skipped, an unfinished one continues
    (train.py --resume; eval.py's --out), and nothing starts after --stop-after-s (run it again to go on)."""
    import shlex

    import eval as ev
    import policy as P

    t0 = time.time()
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    extra = shlex.split(args.train_flags)
    os.makedirs(args.out, exist_ok=True)
    evals = seed_evals(args)
    if evals:
        run_seed_evals(args, args.init, os.path.join(args.out, "sft"), evals, t0)
    todo = [(arm, k) for arm in arms for k in range(args.seeds)]
    for arm, k in todo:
        run_dir = os.path.join(args.out, f"{arm}_seed{k}")
        if seed_run_done(run_dir):
            if evals:
                run_seed_evals(args, run_dir, run_dir, evals, t0)
            continue
        if args.stop_after_s and time.time() - t0 > args.stop_after_s:
            _log(f"--stop-after-s {args.stop_after_s:g}: {run_dir} not started; run the same command again to go on")
            break
        loss, *arm_flags = arm.split(":")  # an arm is a loss, optionally with flags: grpo:--reward=decoupled
        argv = [sys.executable, os.path.join(HERE, "train.py"), "--stage", "rl", "--out", run_dir]
        if P.checkpoint_dirs(run_dir):
            argv += ["--resume", "--device", args.device]
        else:
            argv += ["--init", args.init, "--tasks", args.tasks, "--loss", loss, "--seed", str(args.seed + k),
                     "--heldout-seed", str(args.seed),
                     "--device", args.device, "--rl-eval-first", *[f for a in arm_flags for f in a.split("=", 1)],
                     *extra]
        _log(f"{arm} seed {args.seed + k}: " + " ".join(shlex.quote(a) for a in argv[1:]))
        rc = subprocess.run(argv, cwd=HERE).returncode
        if rc != 0:
            _log(f"{run_dir}: train.py exited {rc}; left unfinished (run again to resume it)")
            continue
        with open(os.path.join(run_dir, "seeds_done.json"), "w") as f:
            json.dump({"arm": arm, "seed": args.seed + k, "wall_s": time.time() - t0}, f)
        if evals:
            run_seed_evals(args, run_dir, run_dir, evals, t0)
    summary = {}
    if evals:   # the SFT checkpoint: one run, its measures with no interval
        sft = seed_eval_measures(os.path.join(args.out, "sft"), evals)
        summary["sft"] = {"seeds_done": 1 if sft else 0, **{
            k: dict(zip(("mean", "ci95"), ev.mean_ci95([v]))) for k, v in sorted(sft.items())}}
    for arm in arms:
        runs = [os.path.join(args.out, f"{arm}_seed{k}") for k in range(args.seeds)]
        measures = [{**seed_run_measures(d), **seed_eval_measures(d, evals)} for d in runs if seed_run_done(d)]
        keys = sorted({k for m in measures for k in m if not k.endswith("_step")})
        summary[arm] = {"seeds_done": len(measures), **{
            k: dict(zip(("mean", "ci95"), ev.mean_ci95([m.get(k) for m in measures]))) for k in keys}}
    print(f"{'arm':<24} {'seeds':>5} {'measure':<28} {'mean':>8} {'95% +-':>8}")
    for arm, s in summary.items():
        for key, v in s.items():
            if key == "seeds_done" or v["mean"] is None:
                continue
            half = "-" if v["ci95"] is None else f"{v['ci95']:.3f}"
            print(f"{arm:<24} {s['seeds_done']:>5} {key:<28} {v['mean']:8.3f} {half:>8}")
    record = {"bench": "rl-seeds", "init": args.init, "tasks": args.tasks, "arms": arms, "seeds": args.seeds,
              "train_flags": args.train_flags, "summary": summary, "env": _env(), "argv": sys.argv}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(record, f, indent=1)
    print(json.dumps(record, default=str))


def cmd_timing_noise(args):
    """Judge timing noise: the same teacher kernels timed in two separate verify passes; the median over
    tasks of |speedup_2 / speedup_1 - 1| is the noise (target: within 3%)."""
    import statistics
    import synth
    import teacher
    from reward import Judge
    records = synth.read_tasks(args.tasks)[: args.n] if args.tasks else synth.generate(
        args.n, [1, 2], args.seed, synth.make_budget(args.size), workers=args.workers, progress=False)[0]
    pairs, ids = [], []
    for rec in records:
        try:
            pairs.append((rec["source"], teacher.compile_program(rec, seed=args.seed, target=args.device)))
            ids.append(rec["id"])
        except teacher.TeacherError as e:
            print(f"skip {rec['id']}: {e}", file=sys.stderr)
    passes = []
    with Judge(workers=args.workers, device=args.device, timeout_s=args.timeout_s,
               time_trials=args.time_trials) as judge:
        for _ in range(2):
            passes.append(judge.verify_many(pairs, progress=True))
    rows = []
    for tid, a, b in zip(ids, *passes):
        if a.correct and b.correct and a.speedup and b.speedup:
            rows.append((tid, a.speedup, b.speedup, abs(b.speedup / a.speedup - 1)))
    print(f"{'task':<24} {'speedup_1':>10} {'speedup_2':>10} {'rel_diff':>9}")
    for tid, s1, s2, d in rows:
        print(f"{tid:<24} {s1:>10.3f} {s2:>10.3f} {d:>9.2%}")
    med = statistics.median(d for *_, d in rows) if rows else None
    print(f"median |speedup_2/speedup_1 - 1| over {len(rows)} timed tasks: "
          + (f"{med:.2%}" if med is not None else "n/a (no timed tasks: speed is not measured on CPU)"))
    print(json.dumps({"bench": "timing-noise", "device": args.device, "n_timed": len(rows),
                      "median_rel_diff": None if med is None else round(med, 4),
                      "max_rel_diff": round(max((d for *_, d in rows), default=0.0), 4), "argv": sys.argv}))


def kb_order(task_id):
    """Sort key of a KernelBench task id: the file name's number first (1, 2, ..., 100), others after."""
    head = task_id.split("_", 1)[0]
    return (int(head), task_id) if head.isdigit() else (10 ** 9, task_id)


def kb_table_rows(rows):
    """Markdown lines of a per-task speed table from eval.py results.jsonl rows: speedup vs eager
    and vs torch.compile, the three times, the winning teacher plan where the run had several (and each plan's
    ms), flags and errors. Rows sorted by the file name's number (KernelBench order)."""
    def f(x, nd=2):
        return "-" if x is None else f"{x:.{nd}f}"
    has_plans = any(r.get("plans") for r in rows)
    head = "| task | correct | vs eager | vs compile | eager ms | compile ms | ms |" + (" plan | plans ms |" if has_plans else "") \
        + " flags / error |"
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in sorted(rows, key=lambda r: kb_order(r["task_id"])):
        notes = [{"fails_kb_tol": "misses 1e-4", "oom_retried_exclusive": "retried alone",
                  "exclusive_task": "run alone"}.get(fl, fl)
                 for fl in r.get("flags") or [] if fl != "speed_unmeasured"]
        if r.get("error_type"):
            notes.append(r["error_type"])
        cells = [r["task_id"], str(int(bool(r["correct"]))), f(r.get("speedup")), f(r.get("speedup_vs_compile")),
                 f(r.get("ref_ms")), f(r.get("compile_ref_ms")), f(r.get("runtime_ms"))]
        if has_plans:
            plans = r.get("plans") or {}
            cells += [r.get("plan") or "-", ", ".join(f"{k} {v:.2f}" if isinstance(v, (int, float)) else f"{k} {v}"
                                                      for k, v in plans.items()) or "-"]
        out.append("| " + " | ".join(cells + [", ".join(notes)]) + " |")
    return out


def kb_summary(rows):
    """eval.py's aggregates of the rows (Acc at both tolerances, fast_p and geomeans vs eager and compile), with
    the plan wins and the failures by error type."""
    from collections import Counter

    import eval as ev
    return {**ev.aggregate(rows), "plan_wins": dict(Counter(r.get("plan") for r in rows if r["correct"] and r.get("plan"))),
            "errors": dict(Counter(r["error_type"] for r in rows if r.get("error_type")))}


def kb_compare_rows(runs):
    """Markdown lines of a side-by-side table of several eval.py runs over the same task set (one model's
    checkpoints): per task and run, the speedup vs eager of a correct answer or the error type of a failed one,
    then each run's Acc and its errors by type. `runs`: {label: rows}; tasks in KernelBench order."""
    from collections import Counter

    import eval as ev

    def cell(r):
        if r is None:
            return "-"
        if r["correct"]:
            return f"ok {r['speedup']:.2f}x" if r.get("speedup") else "ok"
        return r.get("error_type") or "wrong"
    by_run = {label: {r["task_id"]: r for r in rows} for label, rows in runs.items()}
    tasks = sorted({t for rows in by_run.values() for t in rows}, key=kb_order)
    out = ["| task | " + " | ".join(by_run) + " |", "|---|" + "---|" * len(by_run)]
    out += [f"| {t} | " + " | ".join(cell(rows.get(t)) for rows in by_run.values()) + " |" for t in tasks]
    out += ["", "| run | tasks | correct | errors |", "|---|---|---|---|"]
    for label, rows in by_run.items():
        errors = Counter(r.get("error_type") or "wrong" for r in rows.values() if not r["correct"])
        out.append(f"| {label} | {len(rows)} | {sum(bool(r['correct']) for r in rows.values())} | "
                   + ", ".join(f"{k} {v}" for k, v in errors.most_common()) + " |")
    # Does a later checkpoint speed up what the first already solved? Speed over the tasks both solve with
    # a measured speedup (so Acc gained or lost does not move it), and fast_1 over all tasks of each run
    first, base = next(iter(by_run.items()))
    fast1 = lambda rows: sum(bool(r["correct"]) and (r.get("speedup") or 0) > 1 for r in rows.values())  # noqa: E731
    if len(by_run) > 1:
        out += ["", f"| run vs {first} | tasks correct in both, timed | geomean {first} | geomean run | "
                    f"faster / slower / same | fast_1 {first} | fast_1 run |", "|---|---|---|---|---|---|---|"]
    for label, rows in list(by_run.items())[1:]:
        both = [t for t in base if t in rows and all(x[t]["correct"] and x[t].get("speedup") for x in (base, rows))]
        geo = lambda x: ev.geomean(x[t]["speedup"] for t in both)  # noqa: E731
        moved = Counter((rows[t]["speedup"] > base[t]["speedup"]) - (rows[t]["speedup"] < base[t]["speedup"])
                        for t in both)
        fmt = lambda g: f"{g:.4f}x" if g else "-"  # noqa: E731
        out.append(f"| {label} | {len(both)} | {fmt(geo(base))} | {fmt(geo(rows))} | {moved[1]} / {moved[-1]} / "
                   f"{moved[0]} | {fast1(base)} of {len(base)} | {fast1(rows)} of {len(rows)} |")
    return out


def eval_rows(d, bench):
    """The rows of an eval.py --out's results.jsonl; the bench exits with a message where there are none."""
    import eval as ev
    rows = list(ev.read_rows(os.path.join(d, "results.jsonl")).values())
    if not rows:
        sys.exit(f"{bench}: no rows in {d}/results.jsonl")
    return rows


def cmd_kb_table(args):
    """Per-task table and summary of an eval.py --out over a KernelBench level, and the slowest
    tasks against eager with each plan's time (where the time goes, at plan level). Given several --results, one
    table of them side by side (a cell per task and run: speedup or error type) instead."""
    runs = {}
    for d in args.results:
        rows = eval_rows(d, "kb-table")
        label = os.path.basename(os.path.normpath(d))
        runs[label if label not in runs else d] = rows
    if len(runs) > 1:
        print("\n".join(kb_compare_rows(runs)))
        print(json.dumps({"bench": "kb-table", "results": args.results,
                          "runs": {label: kb_summary(rows) for label, rows in runs.items()}}))
        return
    rows = next(iter(runs.values()))
    print("\n".join(kb_table_rows(rows)))
    slow = sorted((r for r in rows if r["correct"] and r.get("speedup")), key=lambda r: r["speedup"])[:args.slowest]
    print(f"\nslowest {len(slow)} vs eager: " + "; ".join(
        f"{r['task_id']} {r['speedup']:.2f}x ({r.get('plan') or 'answer'} {r['runtime_ms']:.2f} ms vs eager "
        f"{r['ref_ms']:.2f} ms)" for r in slow))
    print(json.dumps({"bench": "kb-table", "results": args.results[0], **kb_summary(rows)}))


def kb_first_answers(d):
    """{task id: the first completion} of an eval.py --out, read as its replay reads it (policy.SamplesPolicy), so
    an answer counts as changed exactly when the replay would judge other text; the bench exits with a message
    where there is no samples.jsonl or a row is not one."""
    from policy import PolicySpecError, SamplesPolicy, samples_file

    if samples_file(d) is None:
        sys.exit(f"kb-ab: {d} holds no samples.jsonl (not an eval.py --out folder?)")
    try:
        by_task = SamplesPolicy(d).by_task
    except PolicySpecError as e:
        sys.exit(f"kb-ab: {e}")
    return {task: min(rows)[1] for task, rows in by_task.items()}


def kb_ab_select(answers, results, only):
    """The task ids kb-ab replays. `answers` and `results`: {label: {task id: ...}}, the first label the base.
    only "changed": tasks where some run's answer differs from the base's and at least one run is correct (an
    identical answer is the same code, and a change between two failures cannot move speed); "all": every task
    some run solved; else a comma list of ids or file-name numbers. A run not judged (eval.py --propose-only:
    results None) solved nothing known, so then "changed" is every task where some answer differs from the base's
    and "all" every task answered."""
    base = next(iter(answers.values()))
    answered = set().union(*answers.values())
    if any(rows is None for rows in results.values()):
        solved = answered
    else:
        solved = {t for rows in results.values() for t, r in rows.items() if r.get("correct")}
    if only == "changed":
        return sorted((t for t in solved if any(a.get(t) != base.get(t) for a in answers.values())), key=kb_order)
    if only == "all":
        return sorted(solved, key=kb_order)
    wanted = {w.strip() for w in only.split(",") if w.strip()}
    known = {t for rows in results.values() for t in (rows or {})} | answered
    picked = sorted((t for t in known if t in wanted or t.split("_", 1)[0] in wanted), key=kb_order)
    missing = wanted - set(picked) - {t.split("_", 1)[0] for t in picked}
    if missing:
        raise synth.UsageError(f"kb-ab: --only names tasks none of the runs has: {', '.join(sorted(missing))}")
    return picked


def kb_ab_cell(rows):
    """A task's replays of one run, summarised: ("ok", median speedup or None) when correct every time, else the
    first failure's error type."""
    bad = [r for r in rows if not r.get("correct")]
    if bad:
        return bad[0].get("error_type") or "wrong", None
    speeds = [r["speedup"] for r in rows if r.get("speedup")]
    return "ok", (statistics.median(speeds) if len(speeds) == len(rows) else None)


def kb_ab_compare(labels, results, answers, cells, picked):
    """kb-ab's tables and summary. `results` and `answers`: {label: {task id: row / first completion}} of the
    runs' own eval.py folders; `cells`: {label: {task id: kb_ab_cell of its replays}}; the first label the base.
    Per run against the base: the geomean ratio over the replayed tasks whose answers differ, correct in both (on
    one card), and the level's: over the tasks correct in both runs' own results, an identical answer counting 1.0
    and a changed one its replayed ratio; changed answers that failed in the replay are left out of it and listed.
    An identical answer replayed because another run changed it is the same code timed twice: its ratio goes to
    the noise column (the widest such ratio), not into the comparison. A run not judged (results None, eval.py
    --propose-only) has no level ratio; the replayed tasks' Acc (correct in every round) stands for the level's
    difference in Acc, since the answers not replayed are the same code as the base's."""
    import eval as ev

    def show(cell):
        verdict, speed = cell
        return verdict if verdict != "ok" else (f"ok {speed:.3f}x" if speed else "ok")
    lines = ["| task | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    lines += [f"| {t} | " + " | ".join(show(cells[label][t]) for label in labels) + " |" for t in picked]
    base_label = labels[0]
    base_res, base_cells = results[base_label], cells[base_label]
    replayed_ok = {label: sum(cells[label][t][0] == "ok" for t in picked) for label in labels}
    summary = {}
    lines += ["", f"| run vs {base_label} | changed, replayed correct in both | geomean ratio there | faster / slower | "
                  f"correct in both (own results) | level geomean ratio | lost in the replay | noise: identical "
                  f"answers replayed |", "|---|---|---|---|---|---|---|---|"]
    for label in labels[1:]:
        timed_both = [t for t in picked if base_cells[t][1] and cells[label][t][1]]
        same = [t for t in timed_both if answers[label].get(t) == answers[base_label].get(t)]
        both = [t for t in timed_both if t not in same]
        ratios = {t: cells[label][t][1] / base_cells[t][1] for t in both}
        noise = max((cells[label][t][1] / base_cells[t][1] for t in same), key=lambda x: abs(math.log(x)),
                    default=None)
        geo = ev.geomean(ratios.values())
        # the level's tasks correct in both runs' own results: identical answers count 1.0, changed ones their ratio
        judged = base_res is not None and results[label] is not None
        own_both = [t for t in base_res if base_res[t].get("correct") and results[label].get(t, {}).get("correct")] \
            if judged else []
        changed = [t for t in own_both if answers[label].get(t) != answers[base_label].get(t)]
        # on a CPU nothing is timed: no ratio, unless no answer changed (the same code: 1.0)
        timed = judged and (not changed or any(c[1] for c in base_cells.values()))
        lost = [t for t in changed if t not in ratios] if timed else []
        kept = [t for t in own_both if t not in lost]
        level = ev.geomean(ratios.get(t, 1.0) for t in kept) if timed else None
        faster, slower = sum(x > 1 for x in ratios.values()), sum(x < 1 for x in ratios.values())
        summary[label] = {"replayed_correct": replayed_ok[label], "base_replayed_correct": replayed_ok[base_label],
                          "replayed_both": len(both), "geomean_ratio_replayed": geo, "faster": faster,
                          "slower": slower, "correct_in_both_own": len(own_both),
                          "changed_in_both_own": len(changed), "level_geomean_ratio": level, "lost_in_replay": lost,
                          "identical_replayed": len(same), "noise_ratio": noise}
        fmt = lambda x: "-" if x is None else f"{x:.4f}"  # noqa: E731
        own = f"{len(own_both)} ({len(changed)} changed)" if judged else "- (not judged)"
        lines.append(f"| {label} | {len(both)} | {fmt(geo)} | {faster} / {slower} | {own} | "
                     f"{fmt(summary[label]['level_geomean_ratio'])} | "
                     f"{', '.join(lost) or '-'} | {fmt(noise) + f' (widest of {len(same)})' if same else '-'} |")
    lines += ["", f"Replayed tasks correct in every round (of {len(picked)}): "
              + ", ".join(f"{label} {replayed_ok[label]}" for label in labels)]
    return lines, summary


def cmd_kb_ab(args):
    """Several eval.py runs' answers to the same KernelBench level, timed again on one card in one call
    (an RL checkpoint against its SFT checkpoint when their verdicts came from different machines or days). Only the
    tasks where the answers differ are replayed (eval.py --policy samples:), run after run, in ABBA order over
    --rounds, and a task's speedup is its median over the rounds. An identical answer is the same code, so over the
    tasks correct in both runs' own results the level's geomean ratio is that of the replayed ones, identical ones
    counting 1.0. Runs written by eval.py --propose-only carry no verdicts: every task whose answer differs is
    replayed, and each run's Acc over them is the level's Acc difference (no level ratio)."""
    import shutil

    if len(args.results) < 2:
        raise synth.UsageError("kb-ab: give at least two --results folders (the first is the base)")
    if args.rounds < 1:
        raise synth.UsageError(f"kb-ab: --rounds must be >= 1 (got {args.rounds})")
    labels = []
    for i, d in enumerate(args.results):
        label = os.path.basename(os.path.normpath(d))
        labels.append(label if label not in labels else f"{label}_{i}")
    import eval as ev
    results = {label: ({r["task_id"]: r for r in eval_rows(d, "kb-ab")} if not ev.answers_only(d) else None)
               for label, d in zip(labels, args.results)}
    answers = {label: kb_first_answers(d) for label, d in zip(labels, args.results)}
    tasks_dir = args.tasks
    if tasks_dir is None:
        run_json = os.path.join(args.results[0], "run.json")
        tasks_dir = (json.load(open(run_json)).get("args") or {}).get("tasks") if os.path.isfile(run_json) else None
        if not tasks_dir or not os.path.isdir(tasks_dir):
            sys.exit(f"kb-ab: the base run's task folder ({tasks_dir or 'not recorded'}) is not here; pass --tasks "
                     "with the KernelBench level folder")
    picked = kb_ab_select(answers, results, args.only)
    files = {os.path.splitext(f)[0]: f for f in os.listdir(tasks_dir) if f.endswith(".py")}
    lost = [t for t in picked if t not in files]
    if lost:
        sys.exit(f"kb-ab: {tasks_dir} lacks the task files of {', '.join(lost)}")
    print(f"kb-ab: {len(picked)} task(s) to replay for {len(labels)} runs x {args.rounds} round(s): "
          + (", ".join(picked) or "none"), flush=True)
    sub = os.path.join(args.out, "tasks")
    os.makedirs(sub, exist_ok=True)
    for f in os.listdir(sub):  # the folder holds exactly this selection, so a changed --only does not mix in others
        if f.endswith(".py") and os.path.splitext(f)[0] not in picked:
            os.remove(os.path.join(sub, f))
    for t in picked:
        shutil.copyfile(os.path.join(tasks_dir, files[t]), os.path.join(sub, files[t]))
    replays = {label: {t: [] for t in picked} for label in labels}
    here = os.path.dirname(os.path.abspath(__file__))
    for k in range(args.rounds if picked else 0):
        order = list(zip(labels, args.results))
        for label, d in (order if k % 2 == 0 else order[::-1]):
            out = os.path.join(args.out, f"{label}_r{k}")
            argv = [sys.executable, os.path.join(here, "eval.py"), "--tasks", sub, "--policy",
                    f"samples:{os.path.abspath(d)}", "--out", out, "--device", args.device, "--workers",
                    str(args.workers)] + (["--baseline-cache", args.baseline_cache] if args.baseline_cache else [])
            print(f"--- round {k}: {label}", flush=True)
            res = subprocess.run(argv, capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"kb-ab: eval.py failed on {label} (round {k}, exit {res.returncode}): "
                         f"{res.stderr.strip()[-600:]}")
            rows = {r["task_id"]: r for r in eval_rows(out, "kb-ab")}
            for t in picked:
                replays[label][t].append(rows.get(t) or {"correct": False, "error_type": "missing"})
    cells = {label: {t: kb_ab_cell(rows) for t, rows in by_task.items()} for label, by_task in replays.items()}

    lines, summary = kb_ab_compare(labels, results, answers, cells, picked)
    print("\n".join(lines))
    print(json.dumps({"bench": "kb-ab", "results": args.results, "tasks": picked, "rounds": args.rounds,
                      "device": args.device, "runs": summary, "argv": sys.argv}))


EXCLUSIVE_FLAGS = ("oom_retried_exclusive", "exclusive_task")


def judge_work_s(timings):
    """Seconds a verdict's job worked, from its timings: the reference, the import, the checks and the timing,
    less the wait for the timing lock (worker_s also counts the wait for an exclusive hold at the job's start)."""
    phases = sum(timings.get(k, 0.0) for k in ("ref_s", "import_s", "check_s", "time_s"))
    return phases - timings.get("lock_wait_s", 0.0)


def verdict_flags(row):
    return (row.get("verdict") or {}).get("flags") or row.get("flags") or ()


def ran_alone(row):
    return bool(set(verdict_flags(row)) & set(EXCLUSIVE_FLAGS))


def judged_timings(rows):
    """(row, its verdict's timings) of the rows this run judged: not those whose verdict an earlier run's identical
    answer gave (verdict_reused)."""
    return [(r, (r.get("verdict") or {}).get("timings") or {}) for r in rows
            if "verdict_reused" not in verdict_flags(r)]


def kb_judge_summary(rows):
    """Where a judged KernelBench level's time went (eval.py results.jsonl rows; verdicts reused from an earlier run
    left out): jobs, exclusive retries (whole-GPU jobs, one at a time: level 1's judging waits on them), their work
    and the part of it that was the reference phase (outputs copied to the host where they did not fit the GPU),
    and every job's worker seconds."""
    t = judged_timings(rows)
    ex = [(r, tm) for r, tm in t if ran_alone(r)]
    return {"n_tasks": len(rows), "n_judged": len(t), "n_exclusive": len(ex),
            "exclusive_work_s": round(sum(judge_work_s(tm) for _, tm in ex), 1),
            "exclusive_ref_s": round(sum(tm.get("ref_s", 0.0) for _, tm in ex), 1),
            "worker_s": round(sum(tm.get("worker_s", 0.0) for _, tm in t), 1),
            "ref_s": round(sum(tm.get("ref_s", 0.0) for _, tm in t), 1)}


def kb_judge_rows(rows, top):
    """Markdown lines: the `top` jobs with the most work (judge_work_s), their phases, whether they ran alone and
    how many trials' reference outputs stayed on the GPU (recorded by newer judges; '-' for older runs)."""
    def cell(x):
        return "-" if x is None else f"{x:.1f}"
    out = ["| task | verdict | alone | work s | ref s | import s | check s | time s | worker s | trials on GPU |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r, tm in sorted(judged_timings(rows), key=lambda rt: -judge_work_s(rt[1]))[:top]:
        out.append(f"| {r['task_id']} | {'ok' if r.get('correct') else r.get('error_type') or 'wrong'} | "
                   f"{'yes' if ran_alone(r) else ''} | {judge_work_s(tm):.1f} | "
                   + " | ".join(cell(tm.get(k)) for k in ("ref_s", "import_s", "check_s", "time_s", "worker_s"))
                   + f" | {tm.get('ref_gpu_trials', '-')} |")
    return out


def cmd_kb_judge(args):
    """Where the judge's time went on each eval.py --out: the jobs with the most work, then a line per run (jobs,
    exclusive retries and their serial work, reference phases, worker seconds) and a JSON line."""
    runs = {}
    for d in args.results:
        rows = runs[d] = eval_rows(d, "kb-judge")
        print(f"{d}:")
        print("\n".join(kb_judge_rows(rows, args.top)))
        print()
    print("| run | tasks | judged | exclusive | exclusive work s | exclusive ref s | worker s | ref s |\n"
          "|---|---|---|---|---|---|---|---|")
    summaries = {d: kb_judge_summary(rows) for d, rows in runs.items()}
    for d, m in summaries.items():
        print(f"| {d} | {m['n_tasks']} | {m['n_judged']} | {m['n_exclusive']} | {m['exclusive_work_s']} | "
              f"{m['exclusive_ref_s']} | {m['worker_s']} | {m['ref_s']} |")
    print(json.dumps({"bench": "kb-judge", "runs": summaries}))


SURFACE_ROWS = (  # (row label, test on synth.surface_features' dict)
    ("constructor args: 0", lambda f: f["init_args"] == 0),
    ("constructor args: 1", lambda f: f["init_args"] == 1),
    ("constructor args: 2-3", lambda f: 2 <= f["init_args"] <= 3),
    ("constructor args: 4-6", lambda f: 4 <= f["init_args"] <= 6),
    ("constructor args: 7+", lambda f: f["init_args"] >= 7),
    ("constructor defaults", lambda f: f["init_defaults"] > 0),
    ("get_init_inputs passes a prefix", lambda f: f["prefix"]),
    ("annotated signatures", lambda f: f["annotated"]),
    ("docstrings", lambda f: f["docstrings"]),
    ("forward takes 2+ inputs", lambda f: f["forward_args"] >= 2),
    ("forward nests an op in another", lambda f: f["nested"]),
    ("inputs: torch.rand only", lambda f: f["draws"] == {"rand"}),
    ("inputs: torch.randn only", lambda f: f["draws"] == {"randn"}),
    ("inputs: rand and randn", lambda f: {"rand", "randn"} <= f["draws"]),
    ("inputs: torch.rand(...) then arithmetic", lambda f: "pos" in f["draws"]),
    ("inputs: torch.randint", lambda f: "randint" in f["draws"]),
)


def surface_groups(paths: list[str]) -> dict[str, list[dict]]:
    """{group label: task records with "source" (and "ops" where known)}: a task JSONL split by level ("gs15 L1" for
    runs/gs15/data/tasks_sft.jsonl, "<file name> L1" elsewhere), a folder of KernelBench .py files as one group named
    after it and its parent ("KernelBench level1")."""
    import synth
    groups: dict[str, list[dict]] = {}
    for path in paths:
        if os.path.isdir(path):
            files = synth.kernelbench_files([path])
            if not files:
                raise synth.UsageError(f"kb-surface: no .py files under {path}")
            name = os.path.basename(os.path.normpath(path))
            parent = os.path.basename(os.path.dirname(os.path.normpath(path)))
            groups[f"{parent} {name}"] = []
            for f in files:
                with open(f) as fh:
                    groups[f"{parent} {name}"].append({"source": fh.read()})
            continue
        try:
            with open(path) as fh:
                rows = [json.loads(line) for line in fh if line.strip()]
        except (OSError, ValueError) as e:
            raise synth.UsageError(f"kb-surface: {path}: not a readable task JSONL or folder ({e})")
        rows = [r for r in rows if isinstance(r, dict) and isinstance(r.get("source"), str)]
        if not rows:
            raise synth.UsageError(f"kb-surface: {path}: no task records with a 'source'")
        parent = os.path.dirname(os.path.abspath(path))  # a run's data/ folder: the run's name, else the file's
        label = os.path.basename(os.path.dirname(parent)) if os.path.basename(parent) == "data" else \
            os.path.splitext(os.path.basename(path))[0]
        if any(g.startswith(f"{label} L") for g in groups):
            label = path  # two files of one name stay apart
        for r in rows:
            groups.setdefault(f"{label} L{r.get('level', '?')}", []).append(r)
    return groups


def draw_lift(rows: list[dict], feats: list[dict], draw: str = "rand", min_tasks: int = 10) -> list[tuple]:
    """What an input draw tells about the op, over one-op tasks: (op, tasks, P(draw | op), lift) with lift =
    P(op | draw) / P(op), highest first. A lift far from 1 is a cue a model can learn in place of the op
    (torch.rand marked sqrt, log and rsqrt; KernelBench draws every input with torch.rand)."""
    from collections import Counter
    pairs = [(r["ops"][0], f["draws"] == {draw}) for r, f in zip(rows, feats) if f and len(r.get("ops") or []) == 1]
    n, n_draw = len(pairs), sum(d for _, d in pairs)
    if not n or not n_draw:
        return []
    ops, with_draw = Counter(o for o, _ in pairs), Counter(o for o, d in pairs if d)
    out = [(o, k, with_draw[o] / k, (with_draw[o] / n_draw) / (k / n)) for o, k in ops.items() if k >= min_tasks]
    return sorted(out, key=lambda t: -t[3])


def cmd_kb_surface(args):
    """How often each surface feature of a KernelBench-format source occurs in KernelBench's folders and
    in training task files, side by side (synth.surface_features; nothing runs), then what the input draw tells
    about the op in each task file's one-op tasks (draw_lift)."""
    import synth
    groups = surface_groups(args.tasks)
    feats = {g: [synth.surface_features(r["source"]) for r in rows] for g, rows in groups.items()}
    table = {g: {label: 100.0 * sum(1 for f in fs if f and test(f)) / max(1, sum(1 for f in fs if f))
                 for label, test in SURFACE_ROWS} for g, fs in feats.items()}
    names = list(groups)
    print("| feature (% of tasks) | " + " | ".join(f"{g} ({len(groups[g])})" for g in names) + " |")
    print("|---|" + "---|" * len(names))
    for label, _ in SURFACE_ROWS:
        print(f"| {label} | " + " | ".join(f"{table[g][label]:.0f}" for g in names) + " |")
    lifts = {}
    for g in names:
        lift = draw_lift(groups[g], feats[g])
        if lift:
            lifts[g] = [{"op": o, "tasks": k, "p_rand": round(p, 3), "lift": round(x, 2)} for o, k, p, x in lift]
            top = ", ".join(f"{o} {x:.1f}x ({p:.0%} of {k})" for o, k, p, x in lift[:args.top])
            low = ", ".join(f"{o} {x:.1f}x ({p:.0%} of {k})" for o, k, p, x in lift[-args.top:])
            print(f"\n{g}: one-op tasks drawn with torch.rand only, lift P(op | rand) / P(op): highest {top}; "
                  f"lowest {low}")
    unparsed = {g: sum(1 for f in fs if f is None) for g, fs in feats.items() if any(f is None for f in fs)}
    print(json.dumps({"bench": "kb-surface", "tasks": args.tasks, "groups": {g: len(r) for g, r in groups.items()},
                      "unparsed": unparsed, "shares": table, "draw_lift": lifts}))


def cmd_conv_layout(args):
    """A hybrid plan keeps a task's convolution in cuDNN, yet torch.compile ran level 2's conv tasks about
    2x faster than it. Inductor runs convolutions channels-last; this times each task's first
    convolution (its real input, captured in one eager forward) in the layout eager PyTorch uses (NCHW) and
    channels-last: the convolution alone (cl), with the input's conversion (cl_in: an epilogue kernel would read the
    channels-last output as it is) and with both conversions (cl_io), beside the whole task's eager time.
    KernelBench files are the benchmark's own code, run here as eager PyTorch (no model-written code)."""
    import torch
    import triton.testing

    import eval as ev
    device = torch.device("cuda" if args.device in ("auto", "cuda") and torch.cuda.is_available() else "cpu")
    if device.type == "cuda":
        bench_ms = lambda fn: triton.testing.do_bench(fn, warmup=5, rep=args.rep_ms)  # noqa: E731
    else:
        bench_ms = lambda fn: host_seconds(fn, 3) * 1e3  # noqa: E731
    convs = (torch.nn.Conv2d, torch.nn.Conv3d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d)
    rows = []
    print(f"conv-layout | {args.tasks} | {device} | cudnn.allow_tf32 {torch.backends.cudnn.allow_tf32}")
    print(f"{'task':<58} {'conv':<16} {'task_ms':>8} {'nchw_ms':>8} {'cl_ms':>7} {'cl_in_ms':>8} {'cl_io_ms':>8} "
          f"{'cl/nchw':>7}")
    for task in ev.load_tasks(args.tasks, args.limit):
        ns = {}
        try:
            exec(compile(task["source"], task["id"], "exec"), ns)  # noqa: S102 (the benchmark's own file)
            torch.manual_seed(args.seed)
            model = ns["Model"](*ns["get_init_inputs"]()).to(device).eval()
            conv = next((m for m in model.modules() if isinstance(m, convs)), None)
            if conv is None:
                continue
            inputs = [x.to(device) if torch.is_tensor(x) else x for x in ns["get_inputs"]()]
            seen = {}
            hook = conv.register_forward_pre_hook(lambda m, a: seen.setdefault("x", a[0]))
            with torch.no_grad():
                task_ms = bench_ms(lambda: model(*inputs))
            hook.remove()
            x = seen["x"]
            fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
            conv_cl = copy.deepcopy(conv).to(memory_format=fmt)
            x_cl = x.contiguous(memory_format=fmt)
            with torch.no_grad():
                nchw = bench_ms(lambda: conv(x))
                cl = bench_ms(lambda: conv_cl(x_cl))
                cl_in = bench_ms(lambda: conv_cl(x.contiguous(memory_format=fmt)))
                cl_io = bench_ms(lambda: conv_cl(x.contiguous(memory_format=fmt)).contiguous())
                diff = (conv(x) - conv_cl(x_cl)).abs().max().item()
        except Exception as e:  # one task's failure is its row, not the end of the table
            print(f"{task['id']:<58} error: {type(e).__name__}: {str(e)[:120]}")
            rows.append({"task_id": task["id"], "error": f"{type(e).__name__}: {e}"[:300]})
            continue
        finally:
            if device.type == "cuda":
                torch.cuda.empty_cache()
        row = {"task_id": task["id"], "conv": type(conv).__name__, "task_ms": round(task_ms, 4),
               "nchw_ms": round(nchw, 4), "cl_ms": round(cl, 4), "cl_in_ms": round(cl_in, 4),
               "cl_io_ms": round(cl_io, 4), "cl_over_nchw": round(cl / nchw, 3), "max_abs_diff": diff}
        rows.append(row)
        print(f"{task['id'][:58]:<58} {row['conv']:<16} {task_ms:8.3f} {nchw:8.3f} {cl:7.3f} {cl_in:8.3f} {cl_io:8.3f} "
              f"{row['cl_over_nchw']:7.2f}", flush=True)
    ok = [r for r in rows if "cl_ms" in r]
    summary = {"tasks": len(ok), "errors": len(rows) - len(ok),
               "geomean_cl_over_nchw": ev.geomean(r["cl_ms"] / r["nchw_ms"] for r in ok),
               "geomean_cl_in_over_nchw": ev.geomean(r["cl_in_ms"] / r["nchw_ms"] for r in ok),
               "geomean_cl_io_over_nchw": ev.geomean(r["cl_io_ms"] / r["nchw_ms"] for r in ok),
               "conv_share_of_task": ev.geomean(r["nchw_ms"] / r["task_ms"] for r in ok)}
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    print(json.dumps({"bench": "conv-layout", "tasks_dir": args.tasks, **summary}))


KB_KERNEL_VARIANTS = {  # bench.py kb-kernels: name -> (teacher plan, teacher constants set for it)
    "ieee": ("triton", {}),
    "bf16x3": ("triton-bf16x3", {}),
    "bf16x3_32k4w4s": ("triton-bf16x3", {"BF16X3_TILE": (128, 128, 32, 4, 4)}),
    "bf16x3_256n": ("triton-bf16x3", {"BF16X3_TILE": (128, 256, 64, 8, 3)}),
    "bf16x3_64m4w4s": ("triton-bf16x3", {"BF16X3_TILE": (64, 128, 64, 4, 4)}),
    "bf16x3_4w4s": ("triton-bf16x3", {"BF16X3_TILE": (128, 128, 64, 4, 4)}),
    "tf32x3": ("triton-tf32x3", {}),
    "tf32": ("triton-tf32", {}),
    "tf32_64n4w4s": ("triton-tf32", {"CONV_TILE": (128, 64, 32, 4, 4)}),
    "tf32_64m4w": ("triton-tf32", {"CONV_TILE": (64, 128, 32, 4, 3)}),
    "tf32_16k4w4s": ("triton-tf32", {"CONV_TILE": (128, 128, 16, 4, 4)}),
    "tf32_256m": ("triton-tf32", {"CONV_TILE": (256, 128, 32, 8, 3)}),
    "tf32_oldform": ("triton-tf32", {"CONV_TAP_MAJOR": False, "CONV_ROW_TILE": False}),
    "tf32_flatm": ("triton-tf32", {"CONV_ROW_TILE": False}),
    "tf32_flatk": ("triton-tf32", {"CONV_TAP_MAJOR": False}),
    "hybrid": ("hybrid", {}),
    "hybrid-cl": ("hybrid-cl", {}),
    "hybrid-fp16": ("hybrid-fp16", {}),
}


def kb_kernel_model(task, plan, consts, device, seed, tmp):
    """(reference Model, the teacher's `plan` ModelNew built with teacher constants `consts`, inputs), both models
    built after the same seed and on the same seeded inputs; the teacher's code and KernelBench's own, run in this
    process (no model-written code). Raises teacher.TeacherError where the plan does not apply."""
    import importlib.util

    import torch

    import teacher
    saved = {k: getattr(teacher, k) for k in consts}
    try:
        for k, v in consts.items():
            setattr(teacher, k, v)
        sol = dict(teacher.plans(task["source"], target="cuda", only=(plan,))).get(plan)
    finally:
        for k, v in saved.items():
            setattr(teacher, k, v)
    if sol is None:
        raise teacher.TeacherError(f"plan {plan} does not apply")
    path = os.path.join(tmp, f"sol_{abs(hash((task['id'], plan, repr(consts))))}.py")
    with open(path, "w") as f:
        f.write(sol)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ref_model, inputs, init = kb_reference(task, device, seed)
    torch.manual_seed(seed)
    new_model = mod.ModelNew(*init).to(device)
    return ref_model, new_model, inputs


def kb_reference(task, device, seed):
    """(KernelBench's Model built after `seed`, its inputs drawn after seed + 1, its init inputs)."""
    import torch
    ns = {}
    exec(compile(task["source"], task["id"], "exec"), ns)  # noqa: S102 (the benchmark's own file)
    torch.manual_seed(seed)
    init = ns["get_init_inputs"]()
    ref_model = ns["Model"](*init).to(device)
    torch.manual_seed(seed + 1)
    inputs = [x.to(device) if torch.is_tensor(x) else x for x in ns["get_inputs"]()]
    return ref_model, inputs, init


def kb_kernel_run(task, plan, consts, device, rep_ms, seed, tmp):
    """One kb-kernels row: the teacher's `plan` solution for `task` built with teacher constants `consts`, run in
    this process (the teacher's code, not model-written code; the task is KernelBench's own) beside the task's
    Model built after the same seed, on the same seeded inputs. Returns {ms, max_abs_err, ok_1e-2, ok_1e-4} or
    {error}."""
    import torch
    import triton.testing

    import teacher
    try:
        ref_model, new_model, inputs = kb_kernel_model(task, plan, consts, device, seed, tmp)
    except teacher.TeacherError as e:
        return {"error": f"teacher: {e}"[:300]}
    with torch.no_grad():
        ref = ref_model(*inputs)
        out = new_model(*inputs)
        torch.cuda.synchronize()
        err = (out - ref).abs().max().item()
        row = {"max_abs_err": err, "ok_1e-2": bool(torch.allclose(out, ref, atol=1e-2, rtol=1e-2)),
               "ok_1e-4": bool(torch.allclose(out, ref, atol=1e-4, rtol=1e-4))}
        del out, ref
        row["ms"] = triton.testing.do_bench(lambda: new_model(*inputs), warmup=10, rep=rep_ms, return_mode="median")
    return row


def cmd_kb_kernels(args):
    """The teacher's GEMM and convolution kernels against eager PyTorch on KernelBench tasks, each in
    several plans and tile configurations (KB_KERNEL_VARIANTS), so the teacher's defaults are chosen by measurement.
    Per task: eager's time, then each variant's solution checked against eager's output (1e-2 and KernelBench's
    1e-4) and timed (triton.testing.do_bench, median, L2 flushed before each run), all in one process so the ratios
    share one machine state. A variant the teacher cannot build for a task is skipped (a GEMM variant on a conv
    task); one variant's failure is its cell, not the end of the table."""
    import tempfile

    import torch
    import triton.testing

    import eval as ev
    import teacher
    if not torch.cuda.is_available():
        raise SystemExit("kb-kernels: needs CUDA (speed is not measured on the CPU)")
    device = torch.device("cuda")
    variants = [v for v in args.variants.split(",") if v]
    bad = [v for v in variants if v not in KB_KERNEL_VARIANTS]
    if bad:
        raise SystemExit(f"kb-kernels: unknown variants {bad}; choose from {', '.join(KB_KERNEL_VARIANTS)}")
    tasks = [t for path in args.tasks for t in ev.load_tasks(path, None)]
    if args.only:
        keep = set(args.only.split(","))
        tasks = [t for t in tasks if t["id"].split("_")[0] in keep or t["id"] in keep]
    rows, tmp = [], tempfile.mkdtemp(prefix="kb-kernels-")
    done = set()
    if args.out and os.path.exists(args.out):   # resume: rows already measured are kept
        rows = [json.loads(ln) for ln in open(args.out) if ln.strip()]
        done = {(r["task_id"], r["variant"]) for r in rows}
    print(f"kb-kernels | {len(tasks)} tasks | {', '.join(variants)} | {torch.cuda.get_device_name()}")
    t_end = time.monotonic() + args.time_s if args.time_s else None
    for task in tasks:
        if t_end and time.monotonic() > t_end:
            print("kb-kernels: --time-s reached")
            break
        todo = [v for v in variants if (task["id"], v) not in done]
        if not todo:
            continue
        ns = {}
        try:
            exec(compile(task["source"], task["id"], "exec"), ns)  # noqa: S102 (the benchmark's own file)
            torch.manual_seed(args.seed)
            model = ns["Model"](*ns["get_init_inputs"]()).to(device)
            torch.manual_seed(args.seed + 1)
            inputs = [x.to(device) if torch.is_tensor(x) else x for x in ns["get_inputs"]()]
            with torch.no_grad():
                eager = triton.testing.do_bench(lambda: model(*inputs), warmup=10, rep=args.rep_ms, return_mode="median")
            del model, inputs
        except (RuntimeError, ValueError, TypeError) as e:
            print(f"{task['id'][:50]:<50} eager failed: {type(e).__name__}: {str(e)[:100]}")
            continue
        cells = []
        for v in todo:
            plan, consts = KB_KERNEL_VARIANTS[v]
            t0 = time.monotonic()
            try:
                res = kb_kernel_run(task, plan, consts, device, args.rep_ms, args.seed, tmp)
            except Exception as e:  # noqa: BLE001 (a compile or launch failure of one variant is its cell)
                res = {"error": f"{type(e).__name__}: {e}"[:300]}
            finally:
                torch.cuda.empty_cache()
            row = {"task_id": task["id"], "variant": v, "plan": plan, "eager_ms": eager, **res,
                   "wall_s": round(time.monotonic() - t0, 1)}
            if "ms" in res:
                row["speedup"] = eager / res["ms"]
            rows.append(row)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")
            if "teacher:" in res.get("error", ""):
                continue
            cells.append(f"{v} {row['speedup']:.2f}x{'' if res['ok_1e-2'] else '!'}" if "ms" in res else f"{v} ERR")
        print(f"{task['id'][:50]:<50} eager {eager:8.3f} ms | " + " | ".join(cells), flush=True)
    summary = {}
    for v in variants:
        ok = [r for r in rows if r["variant"] == v and r.get("ok_1e-2")]
        if ok:
            summary[v] = {"tasks": len(ok), "geomean_speedup": round(ev.geomean(r["speedup"] for r in ok), 3),
                          "faster": sum(r["speedup"] > 1 for r in ok)}
    errors = [r for r in rows if "error" in r and not r["error"].startswith("teacher:")]
    for r in errors:
        print(f"error {r['task_id']} {r['variant']}: {r['error'][:200]}")
    print(json.dumps({"bench": "kb-kernels", "variants": summary, "errors": len(errors)}))


def cmd_kb_profile(args):
    """Where a task's time goes, kernel by kernel: eager PyTorch, torch.compile and the teacher's
    solutions in the --variants (KB_KERNEL_VARIANTS) on the same seeded inputs, each timed whole (do_bench median,
    L2 flushed) and then run --iters times under torch.profiler, its CUDA kernels listed with their time per
    forward. --cudnn-benchmark lets cuDNN time its algorithms first (eager, compile and the hybrids' convolutions
    alike). All in one process, so the ratios share one machine state."""
    import tempfile

    import torch
    import triton.testing
    from torch.profiler import ProfilerActivity, profile

    import eval as ev
    import teacher
    if not torch.cuda.is_available():
        raise SystemExit("kb-profile: needs CUDA")
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    variants = [v for v in args.variants.split(",") if v]
    bad = [v for v in variants if v not in KB_KERNEL_VARIANTS]
    if bad:
        raise SystemExit(f"kb-profile: unknown variants {bad}; choose from {', '.join(KB_KERNEL_VARIANTS)}")
    keep = set(args.only.split(","))
    tasks = [t for t in ev.load_tasks(args.tasks, None) if t["id"].split("_")[0] in keep or t["id"] in keep]
    device, tmp = torch.device("cuda"), tempfile.mkdtemp(prefix="kb-profile-")
    print(f"kb-profile | {len(tasks)} tasks | eager, compile, {', '.join(variants)} | cudnn.benchmark "
          f"{args.cudnn_benchmark} | {torch.cuda.get_device_name()}")
    rows = []
    for task in tasks:
        runs = {}
        ref_model, inputs, _ = kb_reference(task, device, args.seed)
        runs["eager"] = ref_model
        runs["compile"] = torch.compile(ref_model)
        for v in variants:
            plan, consts = KB_KERNEL_VARIANTS[v]
            try:
                runs[v] = kb_kernel_model(task, plan, consts, device, args.seed, tmp)[1]
            except teacher.TeacherError:
                continue
        with torch.no_grad():
            ref = ref_model(*inputs)
            for name, fn in runs.items():
                try:
                    out = fn(*inputs)
                    err = (out.float() - ref).abs().max().item()
                    ms = triton.testing.do_bench(lambda: fn(*inputs), warmup=10, rep=args.rep_ms, return_mode="median")
                    with profile(activities=[ProfilerActivity.CUDA]) as prof:
                        for _ in range(args.iters):
                            fn(*inputs)
                        torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001 (one solution's failure is its row)
                    print(f"{task['id'][:50]} {name}: {type(e).__name__}: {str(e)[:200]}")
                    continue
                kernels = sorted(profiled_kernels(prof, True), key=lambda r: -r[2])
                row = {"task_id": task["id"], "run": name, "ms": ms, "max_abs_err": err,
                       "kernels": [(k[:90], c / args.iters, t / args.iters) for k, c, t in kernels]}
                rows.append(row)
                print(f"{task['id'][:50]} | {name} | {ms:.3f} ms | err {err:.2e} | kernels "
                      f"{sum(t for _, _, t in row['kernels']):.3f} ms")
                for k, c, t in row["kernels"][:args.top]:
                    print(f"      {t:8.3f} ms  x{c:<4g} {k}")
                del out
        del runs, ref, inputs
        torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "a") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)


def add_model_args(parser, device_help):
    """--model-config and --device, shared by the subcommands that build a random-weight model."""
    parser.add_argument("--model-config", choices=["tiny", "qwen2.5-7b"], default="tiny",
                        help="random-weight model built from this config (bf16 on CUDA, fp32 on CPU)")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto", help=device_help)


ENGINE_NAMES_HELP = ("Engines (policy.ENGINES): hf (plain generate); static | cudagraph | compile, each also with "
                     "_fused (one q|k|v and one gate|up matmul per layer), _splitkv (split-KV Triton decode "
                     "attention) or _fused_splitkv, e.g. compile_fused_splitkv; compile_full; compile_tuned_fused_splitkv "
                     "(its GEMMs autotuned: minutes of compiling); compile_fused_splitkv_skinny (split-K Triton o and "
                     "down projections, the q|k|v bias outside cuBLAS); auto")


def add_rollout_args(parser):
    """Batch shape and sampling, shared by rollout and rollout-profile."""
    parser.add_argument("--batch", type=int, default=None, help="sequences per generate call (default 64 for 7B, 8 tiny)")
    parser.add_argument("--prompt-len", type=int, default=None, help="prompt tokens (default 512 for 7B, 64 tiny)")
    parser.add_argument("--new-tokens", type=int, default=None,
                        help="new tokens per sequence, forced (eos suppressed) (default 1024 for 7B, 64 tiny)")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature of the timed runs")
    parser.add_argument("--top-p", type=float, default=1.0, help="nucleus mass of the timed runs")
    parser.add_argument("--seed", type=int, default=0, help="seed of weights, prompts and sampling")


def add_profile_args(parser):
    """Where and how long a decode step is profiled (rollout-profile, rollout --profile-engines)."""
    parser.add_argument("--at-token", type=int, default=None,
                        help="the profiled steps write new tokens from this one on (default --new-tokens / 2: the "
                             "mean kv_len of a rollout)")
    parser.add_argument("--decode-steps", type=int, default=32, help="decode steps timed for ms/step")
    parser.add_argument("--profile-steps", type=int, default=4, help="eager decode steps under torch.profiler")
    parser.add_argument("--top-kernels", type=int, default=15, help="kernels listed by total time")
    parser.add_argument("--attn-splits", default="64,128,256,512,1024",
                        help="CUDA: also time one layer's decode attention alone, SDPA vs the split-KV kernel with "
                             "each of these cache slots per program ('' skips)")


def main(argv=None) -> int:
    """`python bench.py COMMAND`; a bad flag or input is one line and exit code 2, a failed run one line and exit
    code 1 (synth.run_main). The subcommand parsers are synth.ArgumentParser too (argparse makes them of the
    parent's class), so their flag errors are one line as well."""
    p = synth.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=synth.HelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("verify", help="judge throughput: worker pool vs one process per candidate",
                       formatter_class=synth.HelpFormatter)
    v.add_argument("--n", type=int, default=64, help="number of candidates")
    v.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where candidates run")
    v.add_argument("--workers", type=int, default=2, help="concurrent worker processes in both modes")
    v.add_argument("--timeout-s", type=float, default=60.0, help="wall-clock limit per candidate, seconds")
    v.add_argument("--time-trials", type=int, default=100, help="timed runs per model (CUDA only)")
    v.add_argument("--recycle-every", type=int, default=50, help="pool mode: candidates per worker before it is replaced")
    v.add_argument("--spare-workers", type=int, default=None,
                   help="workers started ahead to replace recycled ones (both modes; default: the Judge's)")
    v.add_argument("--include-hangs", action="store_true", help="also include the infinite-loop and 12 GB faults")
    v.add_argument("--cli", action="store_true",
                   help="a third run: one `python reward.py` process per candidate, --workers at a time")
    v.add_argument("--no-fresh", action="store_true",
                   help="skip the fresh-worker run (the judge with recycle_every=1): pool and, with --cli, the CLI only")
    v.add_argument("--seed", type=int, default=0, help="seed of the candidate mix")
    v.set_defaults(fn=cmd_verify)
    tr = sub.add_parser("transport", help="an answer's outputs to the judge's worker: pipe vs output file (memfd)",
                        formatter_class=synth.HelpFormatter)
    tr.add_argument("--gb", type=float, default=1.0, help="output size, GB (fp32)")
    tr.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where the output is made and rebuilt")
    tr.add_argument("--rounds", type=int, default=3, help="transfers of each kind (median)")
    tr.set_defaults(fn=cmd_transport)
    w = sub.add_parser("worker-restarts", help="judge wall time: default vs cautious worker recycling",
                       formatter_class=synth.HelpFormatter)
    w.add_argument("--n", type=int, default=32, help="candidates (a quarter correct, the rest failing early)")
    w.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where candidates run")
    w.add_argument("--workers", type=int, default=2, help="judge worker processes")
    w.add_argument("--rounds", type=int, default=2, help="repetitions of the pair of runs")
    w.set_defaults(fn=cmd_worker_restarts)
    s = sub.add_parser("synth", help="programs/s of synth.py including validation, and op uniformity",
                       formatter_class=synth.HelpFormatter)
    s.add_argument("--n", type=int, default=10000, help="validated programs")
    s.add_argument("--levels", default="1,2,5", help="comma-separated levels")
    s.add_argument("--size", default="cpu", help="synth size preset (cpu | paper)")
    s.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    s.add_argument("--seed", type=int, default=0, help="master seed")
    s.set_defaults(fn=cmd_synth)
    t = sub.add_parser("timing-noise", help="same kernels timed twice: speedup agreement (GPU)",
                       formatter_class=synth.HelpFormatter)
    t.add_argument("--tasks", default=None, help="task JSONL (default: synthesize --n level-1/2 tasks)")
    t.add_argument("--n", type=int, default=20, help="tasks")
    t.add_argument("--size", default="paper", help="synth size preset when synthesizing")
    t.add_argument("--device", choices=["cpu", "cuda"], default="cuda", help="where candidates run")
    t.add_argument("--workers", type=int, default=2, help="judge workers")
    t.add_argument("--timeout-s", type=float, default=120.0, help="seconds per candidate")
    t.add_argument("--time-trials", type=int, default=100, help="timed runs per model")
    t.add_argument("--seed", type=int, default=0, help="synthesis and teacher seed")
    t.set_defaults(fn=cmd_timing_noise)
    r = sub.add_parser("rollout", help="generation tokens/s: plain generate vs the fast engines, greedy equality",
                       formatter_class=synth.HelpFormatter)
    add_model_args(r, "where the model runs")
    add_rollout_args(r)
    r.add_argument("--engines", default=None,
                   help="comma-separated engines timed in this run (default hf,cudagraph,compile_fused_splitkv on CUDA, hf,static on "
                        "CPU). " + ENGINE_NAMES_HELP)
    r.add_argument("--lora-engines", default=None,
                   help="engines timed again with a LoRA adapter attached (merged for sampling); '' skips "
                        "(default: the first fast engine)")
    r.add_argument("--lora-r", type=int, default=64, help="LoRA rank of the attached adapter")
    r.add_argument("--lora-zero-control", action="store_true",
                   help="after the LoRA runs, zero the adapter's B and time them again (the merge then leaves the "
                        "weights unchanged): separates the cost of the merged values from that of peft's wrappers")
    r.add_argument("--lora-alpha", type=float, default=128, help="LoRA alpha")
    r.add_argument("--greedy-prompts", type=int, default=8, help="prompts of the greedy equality check (0 skips)")
    r.add_argument("--greedy-tokens", type=int, default=64, help="greedy tokens per prompt in the check")
    r.add_argument("--profile-engines", default="",
                   help="fast engines whose decode step is then profiled as by rollout-profile, in this process (the "
                        "model and torch.compile's work are reused); '' skips")
    add_profile_args(r)
    r.set_defaults(fn=cmd_rollout)
    rp = sub.add_parser("rollout-profile", help="a fast engine's decode step: ms/step and kernel time by category",
                        formatter_class=synth.HelpFormatter)
    add_model_args(rp, "where the model runs")
    add_rollout_args(rp)
    rp.add_argument("--engines", default=None,
                    help="comma-separated fast engines profiled one after another (default compile on CUDA, static "
                         "on CPU). " + ENGINE_NAMES_HELP)
    add_profile_args(rp)
    rp.set_defaults(fn=cmd_rollout_profile)
    dg = sub.add_parser("decode-gemms", help="the decode step's matmuls alone: weight bytes/s, W vs its transpose",
                        formatter_class=synth.HelpFormatter)
    add_model_args(dg, "where the matmuls run")
    dg.add_argument("--batch", type=int, default=None, help="rows of the activations (default 64 for 7B, 8 tiny)")
    dg.add_argument("--seed", type=int, default=0, help="seed of the random operands")
    dg.add_argument("--triton", default="",
                    help="CUDA: also sweep configurations of policy.skinny_linear (split-K Triton) for these matmuls "
                         "(comma-separated names from qkv,o,gate_up,down,lm_head, or all)")
    dg.set_defaults(fn=cmd_decode_gemms)
    da = sub.add_parser("decode-attn", help="the split-KV decode attention of one layer alone: a sweep of its "
                        "launch configuration (CUDA)", formatter_class=synth.HelpFormatter)
    add_model_args(da, "where the attention runs")
    add_rollout_args(da)
    da.set_defaults(fn=cmd_decode_attn)
    ds = sub.add_parser("decode-sample", help="one decode step's sampling alone: generate's rule vs the Gumbel-max "
                        "kernel (CUDA)", formatter_class=synth.HelpFormatter)
    add_model_args(ds, "where it runs")
    ds.add_argument("--batch", type=int, default=None, help="rows (default 64 for 7B, 8 tiny)")
    ds.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    ds.set_defaults(fn=cmd_decode_sample)
    f = sub.add_parser("sft-step", help="LoRA SFT step tokens/s and peak memory (train.py's step and loss)",
                       formatter_class=synth.HelpFormatter)
    add_model_args(f, "where the model runs")
    f.add_argument("--seqs", type=int, default=None, help="sequences per optimizer step (default 16 for 7B, 4 tiny)")
    f.add_argument("--seq-len", type=int, default=None, help="tokens per sequence (default 2048 for 7B, 256 tiny)")
    f.add_argument("--prompt-len", type=int, default=None, help="masked prompt tokens per sequence (default seq-len/4)")
    f.add_argument("--micro-batch", type=int, default=4, help="sequences per forward/backward")
    f.add_argument("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True,
                   help="recompute decoder-layer activations in backward")
    f.add_argument("--lora-r", type=int, default=64, help="LoRA rank (all linear layers)")
    f.add_argument("--lora-alpha", type=float, default=128, help="LoRA alpha")
    f.add_argument("--lr", type=float, default=1e-4, help="AdamW learning rate")
    f.add_argument("--chunk-tokens", type=int, default=1024, help="tokens per log-prob chunk (policy.token_logprobs)")
    f.add_argument("--warmup-steps", type=int, default=1, help="untimed steps first")
    f.add_argument("--steps", type=int, default=2, help="timed steps")
    f.add_argument("--seed", type=int, default=0, help="seed of weights and data")
    f.set_defaults(fn=cmd_sft_step)
    sp = sub.add_parser("sft-profile", help="gpu-small's SFT step on real pairs: variants (padding mask, log-prob "
                        "chunk, fused AdamW) over the same batches, then the kernels under torch.profiler",
                        formatter_class=synth.HelpFormatter)
    sp.add_argument("--pairs", required=True, help="SFT pairs JSONL (train.py's pipeline writes <run>/data/pairs.jsonl)")
    sp.add_argument("--max-pairs", type=int, default=4000, help="pairs read (the tokenizer is trained on them)")
    sp.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto", help="where the model runs")
    sp.add_argument("--variants", default="pad64:chunk8192+pad64,causal_c8k:chunk8192,base:mask,"
                                          "causal_c8k_fused:chunk8192+fused",
                    help="comma-separated NAME:OPTS, OPTS '+'-joined from mask (keep the padding mask), chunkN "
                         "(log-prob chunk of N tokens; default 512), fused (AdamW fused=True), padN (batches padded "
                         "to a multiple of N tokens, train.py --pad-multiple). A variant meets the batch lengths "
                         "earlier variants met already warm: list a padN variant first to see what new lengths cost")
    sp.add_argument("--warmup-steps", type=int, default=3, help="untimed steps of each variant first")
    sp.add_argument("--steps", type=int, default=20, help="timed steps of each variant (the same batches)")
    sp.add_argument("--profile-steps", type=int, default=3, help="steps of the first variant under torch.profiler (CUDA)")
    sp.add_argument("--top-kernels", type=int, default=25, help="kernels listed by GPU time")
    sp.set_defaults(fn=cmd_sft_profile)
    k = sub.add_parser("kb-table", help="per-task KernelBench speed table and summary from an eval.py --out",
                       formatter_class=synth.HelpFormatter)
    k.add_argument("--results", required=True, nargs="+",
                   help="an eval.py --out directory (its results.jsonl); several: one table of them side by side")
    k.add_argument("--slowest", type=int, default=10, help="how many of the slowest correct tasks to list")
    k.set_defaults(fn=cmd_kb_table)
    ka = sub.add_parser("kb-ab", help="several eval.py runs' answers to a KernelBench level timed again on one card in "
                        "one call: the tasks where their answers differ, ABBA over rounds",
                        formatter_class=synth.HelpFormatter)
    ka.add_argument("--results", required=True, nargs="+",
                    help="eval.py --out folders over the same level (samples.jsonl, and results.jsonl unless written "
                         "by eval.py --propose-only); the first is the base")
    ka.add_argument("--tasks", default=None,
                    help="the KernelBench level folder (default: the base run's, where it exists here)")
    ka.add_argument("--only", default="changed",
                    help="changed (answers differing from the base's, some run correct; with a --propose-only run, "
                         "every differing answer), all (every task some run solved; every task answered), or a comma "
                         "list of task ids or file-name numbers")
    ka.add_argument("--rounds", type=int, default=2, help="replays of every run, in ABBA order")
    ka.add_argument("--device", choices=["cpu", "cuda"], default="cuda", help="eval.py --device (speed needs cuda)")
    ka.add_argument("--workers", type=int, default=4, help="eval.py --workers")
    ka.add_argument("--baseline-cache", default=None, help="eval.py --baseline-cache (default: eval.py's)")
    ka.add_argument("--out", required=True, help="folder of the task subset and each replay's eval.py --out (resumable)")
    ka.set_defaults(fn=cmd_kb_ab)
    kj = sub.add_parser("kb-judge", help="where the judge's time went on an eval.py --out: the jobs with the most "
                        "work, exclusive retries (their serial work, reference phases), worker seconds",
                        formatter_class=synth.HelpFormatter)
    kj.add_argument("--results", required=True, nargs="+", help="eval.py --out directories (their results.jsonl)")
    kj.add_argument("--top", type=int, default=12, help="jobs listed per run, most work first")
    kj.set_defaults(fn=cmd_kb_judge)
    ks = sub.add_parser("kb-surface", help="surface features (constructor args, defaults, input draws, ...) of "
                        "KernelBench folders and training task files side by side; what the draw tells about the op",
                        formatter_class=synth.HelpFormatter)
    ks.add_argument("--tasks", required=True, nargs="+",
                    help="KernelBench level folders and/or task JSONL files (a run's data/tasks_sft.jsonl)")
    ks.add_argument("--top", type=int, default=4, help="ops listed at each end of the draw-lift ranking")
    ks.set_defaults(fn=cmd_kb_surface)
    c = sub.add_parser("conv-layout", help="each KernelBench task's first convolution: NCHW vs channels-last (cuDNN)",
                       formatter_class=synth.HelpFormatter)
    c.add_argument("--tasks", required=True, help="a KernelBench level folder (or any eval.py task set)")
    c.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    c.add_argument("--limit", type=int, default=None, help="the first N tasks by name")
    c.add_argument("--rep-ms", type=int, default=100, help="triton.testing.do_bench rep (ms of timed runs each)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", default=None, help="JSONL of the rows")
    c.set_defaults(fn=cmd_conv_layout)
    kk = sub.add_parser("kb-kernels", help="the teacher's GEMM/conv kernels in several plans and tiles vs eager, "
                        "per KernelBench task (GPU)", formatter_class=synth.HelpFormatter)
    kk.add_argument("--tasks", nargs="+", required=True, help="KernelBench level folders or task files")
    kk.add_argument("--only", default=None, help="comma list of task numbers (the file name's prefix) or ids")
    kk.add_argument("--variants", default="ieee,bf16x3", help=f"comma list of {', '.join(KB_KERNEL_VARIANTS)}")
    kk.add_argument("--rep-ms", type=int, default=100, help="triton.testing.do_bench rep (ms of timed runs each)")
    kk.add_argument("--time-s", type=float, default=None, help="stop starting tasks after this many seconds")
    kk.add_argument("--seed", type=int, default=0)
    kk.add_argument("--out", default=None, help="JSONL of the rows; rows already there are kept (resume)")
    kk.set_defaults(fn=cmd_kb_kernels)
    kp = sub.add_parser("kb-profile", help="KernelBench tasks kernel by kernel: eager, torch.compile and the teacher's "
                        "plans (GPU)", formatter_class=synth.HelpFormatter)
    kp.add_argument("--tasks", required=True, help="a KernelBench level folder")
    kp.add_argument("--only", required=True, help="comma list of task numbers (the file name's prefix) or ids")
    kp.add_argument("--variants", default="hybrid-cl,hybrid-fp16", help=f"comma list of {', '.join(KB_KERNEL_VARIANTS)}")
    kp.add_argument("--iters", type=int, default=5, help="profiled forwards per solution")
    kp.add_argument("--top", type=int, default=6, help="kernels printed per solution")
    kp.add_argument("--rep-ms", type=int, default=50, help="triton.testing.do_bench rep (ms of timed runs each)")
    kp.add_argument("--cudnn-benchmark", action="store_true", help="torch.backends.cudnn.benchmark = True")
    kp.add_argument("--seed", type=int, default=0)
    kp.add_argument("--out", default=None, help="JSONL of the rows (appended)")
    kp.set_defaults(fn=cmd_kb_profile)
    q = sub.add_parser("rl-step", help="one RL step (train.rl_step): generate/verify/update seconds, peak memory",
                       formatter_class=synth.HelpFormatter)
    add_model_args(q, "where model and judge run")
    q.add_argument("--prompts", type=int, default=2, help="tasks per step (the paper's setting: 8)")
    q.add_argument("--group-size", type=int, default=2, help="rollouts per task, G (target: 8)")
    q.add_argument("--new-tokens", type=int, default=32, help="max new tokens per rollout (target: 1024)")
    q.add_argument("--micro-batch", type=int, default=2, help="sequences per forward/backward in the update")
    q.add_argument("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True,
                   help="recompute decoder-layer activations in backward")
    q.add_argument("--lora-r", type=int, default=64, help="rank of the fresh RL adapter (alpha = 2r)")
    q.add_argument("--loss", choices=["drpo", "grpo"], default="drpo", help="train.py --loss")
    q.add_argument("--engine", default="hf", help="policy.generate engine")
    q.add_argument("--chunk-tokens", type=int, default=1024, help="tokens per log-prob chunk")
    q.add_argument("--teacher-frac", type=float, default=0.5, help="share of each group judged as the teacher's answer")
    q.add_argument("--workers", type=int, default=4, help="judge worker processes")
    q.add_argument("--timeout-s", type=float, default=120.0, help="judge limit per candidate, seconds")
    q.add_argument("--steps", type=int, default=2, help="RL steps (the first includes warm-up: CUDA init, Triton compiles)")
    q.add_argument("--seed", type=int, default=0, help="seed of weights and tasks")
    q.set_defaults(fn=cmd_rl_step)
    q = sub.add_parser("rl-seeds", help="N seeds of each RL arm from one SFT checkpoint: every measure as mean and 95%% "
                                        "interval (resumable)", formatter_class=synth.HelpFormatter)
    q.add_argument("--init", required=True, help="the SFT checkpoint every run starts from (train.py --init)")
    q.add_argument("--tasks", required=True, help="RL task JSONL (train.py --tasks); every run holds out the same "
                                                  "tasks (train.py --heldout-seed --seed)")
    q.add_argument("--arms", default="drpo,grpo",
                   help="comma list of arms: a --loss, optionally with flags as LOSS:--flag=value:--flag2=value")
    q.add_argument("--seeds", type=int, default=3, help="runs per arm (seeds --seed, --seed + 1, ...)")
    q.add_argument("--seed", type=int, default=0, help="the first run's seed")
    q.add_argument("--device", default="auto", help="train.py --device")
    q.add_argument("--train-flags", default="", help="more train.py flags for every run, one quoted string "
                                                     "(e.g. '--preset gpu-small --rl-steps 30')")
    q.add_argument("--stop-after-s", type=float, default=0,
                   help="start no new run after this many seconds (0 = no limit): a machine call's budget")
    q.add_argument("--eval-tasks", default=None,
                   help="synthetic held-out task JSONL (the pipeline's data/tasks_eval.jsonl): eval.py judges each "
                        "finished run's checkpoint and the SFT checkpoint on it (Acc, fast_1 per level)")
    q.add_argument("--kb-tasks", default=None,
                   help="a KernelBench level folder (../shared/KernelBench/level1): judged the same way")
    q.add_argument("--eval-flags", default="",
                   help="more eval.py flags for every evaluation, one quoted string (e.g. '--device cuda "
                        "--workers 6 --temperature 0 --baseline eager')")
    q.add_argument("--out", required=True, help="folder of the runs and summary.json")
    q.set_defaults(fn=cmd_rl_seeds)
    args = p.parse_args(argv)
    args.fn(args)
    return 0


if __name__ == "__main__":
    sys.exit(synth.run_main(main))
