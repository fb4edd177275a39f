"""pipeline.py: the whole method end to end, offline: tasks, teacher pairs, tokenizer and model, SFT, RL, evals, report.

    python train.py                                          # the tiny default on a laptop (CPU), ~15 min
    python pipeline.py --preset gpu-small --out runs/gs      # one GPU: a 24M-parameter model, KernelBench evals
    python pipeline.py --out runs/pipeline-x --resume        # continue a run after a kill (every stage resumes)

`python train.py` with no `--stage` (or `--stage all`) runs this file's `run_all`; the flags are train.py's and
this file's `--pipeline-*` group (`add_flags`), which sets the data, eval and report stages. The stages, each
reusing what an earlier run left:
  1. synth.py draws level-1 programs (and programs of the higher levels in --levels for RL), split into SFT/RL
     and held-out eval tasks; a program that matches a KernelBench file is dropped (`synth_pipeline_tasks`), and
     every training file is then checked against KernelBench (`check_decontaminated`; a copy fails the run).
  2. teacher.py writes verified pairs for the SFT tasks (`teacher_pairs`; the judge's verdicts are cached).
  3. train.run_sft: a BPE tokenizer and a tiny Qwen2-shaped model trained from scratch (or --model), SFT; the policy
     that is best by --sft-best-by (<run>/sft/best) is the one evaluated as SFT and handed to RL.
  4. train.run_rl: DRPO from that policy with the curriculum (`Pipeline.rl`), --pipeline-rl-seeds times (rl,
     rl_seed1, ...: RL's seed spread); --pipeline-ablation-loss adds an RL stage of the other loss (GRPO) from the
     same policy, beside it with --pipeline-parallel-ablation (`SideStage`: a process of its own; the trainers' GPU
     work and the judges' timing share one lock).
  5. eval.py on the held-out tasks for every checkpoint (`evaluate`), and with --pipeline-kernelbench-eval on the
     KernelBench level folders beside the teacher (`evaluate_kernelbench`, `kernelbench_teacher`), optionally with
     the test-time search (--pipeline-kernelbench-search).
  6. report.md and PNG curves in the run directory (`write_pipeline_report`, `plot_curves`): held-out Acc per
     checkpoint, RL against SFT with the seed spread and what the rollouts held (`rl_vs_sft_lines`), and where the
     checkpoints are with the next commands (`next_steps_lines`).
The tiny preset (`python train.py`, CPU): level-1 tasks and RL tasks of level 2, SFT with its best held-out
policy kept, three DRPO seeds of 100 s each, eval.py on held-out level-1 tasks. `--preset gpu-small` turns on, each
also a flag: higher-level SFT pairs and eval programs (`--pipeline-sft-levels`, `--pipeline-eval-higher`), the GRPO
ablation (`--pipeline-ablation-loss grpo`) beside the main RL stage (`--pipeline-parallel-ablation`), KernelBench
levels 1 and 2 for every checkpoint and the teacher (`--pipeline-kernelbench-eval 1,2`; an RL answer identical to
the SFT checkpoint's takes its verdict, eval.py --reuse-verdicts) and the test-time search on level 2
(`--pipeline-kernelbench-search 2`, `search_argv`, with `--pipeline-kernelbench-search-checkpoints rl`), tasks in
KernelBench's surface variety (`--pipeline-style kernelbench`, the same programs), RL programs at synth's gpu sizes
(`--pipeline-rl-size gpu`, their twins, so a rollout's timed speed is not a launch's) and prompts without docstrings
and comments (train.py --prompt-source code, saved with the checkpoints).
Under torchrun rank 0 makes the data while the other ranks wait; SFT, RL and the evals run data-parallel.
"""
import argparse
import contextlib
import copy
import json
import os
import random
import subprocess
import sys
import time

import eval as eval_lib
import policy as policy_lib
import train
from search import write_json_atomic

HERE = os.path.dirname(os.path.abspath(__file__))


def synth_pipeline_tasks(args, data_dir, kb_dirs=()):
    """Level-1 programs split into SFT tasks and held-out eval tasks; level-1 RL tasks drawn apart from both
    (--pipeline-rl-level1 apart: --pipeline-rl-tasks of them, the same op pool and style under another seed) or
    the SFT tasks themselves (sft); plus programs of the levels in --levels above 1: --pipeline-rl-tasks per level
    for RL (and SFT where --pipeline-sft-levels names the level) and
    --pipeline-eval-higher per level held out for the final eval (drawn under another seed; any whose source
    equals a training program's is dropped). A drawn program that matches a KernelBench file in `kb_dirs`
    (synth.decontaminate) is dropped before anything is written, so the decontamination check after this stage
    guards the files rather than failing a run over one unlucky draw. With --pipeline-rl-size other than cpu, the
    RL tasks are the same programs drawn again at that render-only preset's sizes (synth's twins: same ids, ops
    and hashes, larger dims, each record keeping its validated source), so a rollout's speed is timed where tile
    sizes matter; the SFT and eval tasks stay at cpu sizes, which the teacher's interpreter can verify. Returns
    paths (sft, rl, eval); reuses files already there."""
    import synth

    paths = [os.path.join(data_dir, n) for n in ("tasks_sft.jsonl", "tasks_rl.jsonl", "tasks_eval.jsonl")]
    if all(os.path.isfile(p) for p in paths):
        return paths
    budget = synth.make_budget("cpu")
    level1, rl_level1, extra = pipeline_programs(args, budget)
    random.Random(f"{args.seed}:pipeline-eval").shuffle(level1)
    eval_tasks, train_l1 = level1[:args.pipeline_eval_tasks], level1[args.pipeline_eval_tasks:]
    higher = pipeline_higher_levels(args)
    if higher and args.pipeline_eval_higher:
        held, _ = synth.generate(args.pipeline_eval_higher * len(higher), higher, args.seed + 2, budget,
                                 workers=args.judge_workers, progress=False, ops=args.pipeline_ops,
                                 style=args.pipeline_style, anchored=args.pipeline_anchored)
        seen = {r["source"] for r in level1 + rl_level1 + extra}
        eval_tasks += [dict(r, id=f"eval_{r['id']}") for r in held if r["source"] not in seen]
    rl_rows = (rl_level1 if args.pipeline_rl_level1 == "apart" and args.pipeline_rl_tasks else train_l1) + extra
    if args.pipeline_rl_size != "cpu":
        rl_rows = rl_twins(args, rl_rows)
    if kb_dirs:
        hits = synth.decontaminate(level1 + rl_level1 + extra + [r for r in rl_rows if "validated_source" in r],
                                   kb_dirs)
        if hits:
            drop = {tid for tid, _, _ in hits}
            print(f"dropped {len(drop)} drawn programs that match KernelBench files: "
                  + "; ".join(f"{tid} ~ {os.path.basename(f)} ({rule})" for tid, f, rule in hits[:5]), flush=True)
            eval_tasks, train_l1, extra, rl_rows = ([r for r in rows if r["id"] not in drop]
                                                    for rows in (eval_tasks, train_l1, extra, rl_rows))
    sft_levels = {int(v) for v in args.pipeline_sft_levels.split(",")}
    sft_tasks = (train_l1 if 1 in sft_levels else []) + [r for r in extra if r["level"] in sft_levels]
    for path, rows in zip(paths, [sft_tasks, rl_rows, eval_tasks]):
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    return paths


def pipeline_levels(args):
    return [int(v) for v in args.levels.split(",")]


def pipeline_higher_levels(args):
    """The levels of --levels above 1, for which the pipeline draws --pipeline-rl-tasks programs each."""
    return [lv for lv in pipeline_levels(args) if lv != 1]


def pipeline_programs(args, budget):
    """(level-1 programs, level-1 RL programs drawn apart from them, programs of the levels above 1) as the
    pipeline draws them, at `budget`'s sizes; deterministic for the flags whatever the worker count, so a
    render-only budget redraws the same programs. The apart programs (--pipeline-rl-level1 apart) carry ids
    prefixed "rl_", and none shares a source with a level-1 program."""
    import synth

    level1, _ = synth.generate(args.pipeline_tasks, [1], args.seed, budget, workers=args.judge_workers,
                               progress=False, ops=args.pipeline_ops, style=args.pipeline_style)
    rl_level1 = []
    if args.pipeline_rl_level1 == "apart" and args.pipeline_rl_tasks and 1 in pipeline_levels(args):
        drawn, _ = synth.generate(args.pipeline_rl_tasks, [1], args.seed + 3, budget, workers=args.judge_workers,
                                  progress=False, ops=args.pipeline_ops, style=args.pipeline_style)
        seen = {r["source"] for r in level1}
        rl_level1 = [dict(r, id=f"rl_{r['id']}") for r in drawn if r["source"] not in seen]
        if len(rl_level1) < args.pipeline_rl_tasks:
            print(f"level-1 RL tasks: {args.pipeline_rl_tasks - len(rl_level1)} of {args.pipeline_rl_tasks} drawn apart "
                  "repeat an SFT or eval program and are left out", flush=True)
    higher, extra = pipeline_higher_levels(args), []
    if higher and args.pipeline_rl_tasks:
        extra, _ = synth.generate(args.pipeline_rl_tasks * len(higher), higher, args.seed + 1, budget,
                                  workers=args.judge_workers, progress=False, ops=args.pipeline_ops,
                                  style=args.pipeline_style, anchored=args.pipeline_anchored)
    return level1, rl_level1, extra


def rl_twins(args, rows):
    """`rows` (the RL programs at cpu sizes) drawn again at --pipeline-rl-size's sizes: synth.generate with the
    same counts, seeds, ops, style and anchored share gives the same programs in the same slots (a render-only
    preset validates at cpu sizes and renders the twin), matched here by id and checked by hash. A program with no
    twin that fits keeps its cpu sizes (synth records that); one missing from the redraw is an error, since the RL
    set would then differ from the one the data step meant."""
    import synth

    level1, rl_level1, extra = pipeline_programs(args, synth.make_budget(args.pipeline_rl_size))
    by_id = {r["id"]: r for r in level1 + rl_level1 + extra}
    out = []
    for r in rows:
        twin = by_id.get(r["id"])
        if twin is None or twin["hash"] != r["hash"]:
            raise RuntimeError(f"--pipeline-rl-size {args.pipeline_rl_size}: the redraw of {r['id']} is not the same "
                               "program; synth's draws no longer match between size presets")
        out.append(twin)
    grown = sum(t["source"] != t["validated_source"] for t in out)
    print(f"RL tasks at --pipeline-rl-size {args.pipeline_rl_size}: {grown} of {len(out)} grown (the rest keep cpu "
          "sizes: no twin fits)", flush=True)
    return out


def kernelbench_dirs(args):
    """The KernelBench level folders the training sets are checked against: --kernelbench, else
    ../shared/KernelBench beside this repository if it is there, else none (a laptop without the benchmark)."""
    root = args.kernelbench
    if root is None:
        root = os.path.join(HERE, "..", "shared", "KernelBench")
        if not os.path.isdir(root):
            return []
    if root.lower() == "none":
        return []
    dirs = [os.path.join(root, f"level{lv}") for lv in KERNELBENCH_LEVELS]
    dirs = [d for d in dirs if os.path.isdir(d)]
    if not dirs:
        raise train.UsageError(f"--kernelbench {root}: no level1/ or level2/ folder there")
    return [os.path.abspath(d) for d in dirs]


def decontamination_digest(task_paths, kb_files) -> str:
    """sha256 of what a decontamination verdict depends on: the training task files, the KernelBench files (names
    and bytes) and synth.py (its normalisation rules)."""
    import hashlib

    h = hashlib.sha256()
    for path in list(task_paths) + sorted(kb_files) + [os.path.join(HERE, "synth.py")]:
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def check_decontaminated(task_paths, kb_dirs, record=None):
    """Fail the run if a training task shares a normalised source with a KernelBench file (synth.decontaminate:
    verbatim, renamed/resized structure, or a 1-op program with a KernelBench docstring). KernelBench is the
    evaluation set: a training set that holds one of its files would make every KernelBench number a lie.
    `record`: a JSON file where a clean verdict is kept with the digest of its inputs
    (decontamination_digest); a resumed pipeline whose inputs hash the same reuses it instead of checking 40,000
    tasks again (41 s of gpu-small's H200 run). Any changed byte checks afresh."""
    import synth

    if not kb_dirs:
        print("decontamination skipped: no KernelBench folder (--kernelbench)", flush=True)
        return
    kb_files = synth.kernelbench_files(kb_dirs)
    digest = decontamination_digest(task_paths, kb_files) if record else None
    if record and os.path.isfile(record):
        try:
            with open(record) as f:
                kept = json.load(f)
        except (OSError, json.JSONDecodeError):
            kept = {}
        if isinstance(kept, dict) and kept.get("digest") == digest:
            print(f"decontamination: {kept.get('tasks')} training tasks against {len(kb_files)} KernelBench files, "
                  f"clean when checked on {kept.get('time')} (the same bytes: {os.path.basename(record)})", flush=True)
            return
    records = [r for p in task_paths for r in train.read_jsonl(p, "tasks")]
    hits = synth.decontaminate(records, kb_dirs)
    if hits:
        raise train.UsageError(f"{len(hits)} training tasks copy KernelBench files (the evaluation set): "
                         + "; ".join(f"{tid} ~ {os.path.basename(f)} ({rule})" for tid, f, rule in hits[:5])
                         + ". Remove them from " + ", ".join(task_paths))
    print(f"decontamination: {len(records)} training tasks, none shares a normalised source with "
          f"{len(kb_files)} KernelBench files", flush=True)
    if record:
        write_json_atomic(record, {"digest": digest, "tasks": len(records), "kernelbench_files": len(kb_files),
                                   "time": time.strftime("%Y-%m-%d %H:%M:%S")})


def default_teacher_cache() -> str:
    """$XDG_CACHE_HOME/drtriton-lite/teacher_verdicts.jsonl, beside eval.py's baseline cache (eval.cache_file)."""
    return eval_lib.cache_file("teacher_verdicts.jsonl")


def teacher_pairs(args, tasks_path, pairs_path, log_path):
    """Verified SFT pairs from teacher.py's CLI (it compiles, judges, keeps the correct ones); its log to a file."""
    if os.path.isfile(pairs_path):
        return
    # teacher.py runs in this repository (cwd=HERE, so it imports its siblings), not in the caller's working
    # directory: every path handed to it must be absolute (`cd /tmp/x && python /work/main/train.py`
    # failed with "task file runs/pipeline-.../data/tasks_sft.jsonl does not exist").
    tasks_path, pairs_path, log_path = (os.path.abspath(p) for p in (tasks_path, pairs_path, log_path))
    cmd = [sys.executable, os.path.join(HERE, "teacher.py"), "--tasks", tasks_path, "--out", pairs_path,
           "--workers", str(args.judge_workers), "--seed", str(args.seed), "--style", args.pipeline_teacher_style,
           "--device", args.pipeline_teacher_device, "--sizes", args.pipeline_teacher_sizes,
           "--heavy", args.pipeline_teacher_heavy]
    cache = args.pipeline_teacher_cache or default_teacher_cache()
    if cache != "none":
        cmd += ["--verdict-cache", os.path.abspath(cache)]
    with open(log_path, "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=HERE).returncode
    if rc != 0 or not os.path.isfile(pairs_path):
        raise train.UsageError(f"teacher.py failed (exit {rc}); see {log_path}")


def evaluate(args, tasks_path, policy, out_dir, extra_argv=()):
    """eval.py on a task set (greedy), as a function call; returns its aggregates. `policy`: a checkpoint dir or
    "teacher"; `extra_argv`: more eval.py flags (a flag given twice takes the later value). Under torchrun
    every rank calls it: eval.run_eval shares the tasks out and returns the same aggregates on every rank."""
    device = "cuda" if policy_lib.resolve_device(args.device).type == "cuda" else "cpu"
    argv = ["--tasks", tasks_path, "--policy", policy, "--out", out_dir, "--device", device,
            "--workers", str(args.judge_workers), "--timeout-s", str(args.judge_timeout_s), "--temperature", "0",
            "--max-new-tokens", str(args.rollout_max_new_tokens), "--seed", str(args.seed),
            "--gen-batch-size", str(args.gen_batch_size), "--engine", args.engine, *extra_argv]
    eval_args = eval_lib.build_parser().parse_args(argv)
    eval_args.argv = argv
    eval_lib.check_args(eval_args)
    _, agg = eval_lib.run_eval(eval_args)
    return agg


def kernelbench_eval_dirs(args, kb_dirs) -> dict:
    """{level: KernelBench level folder} of the --pipeline-kernelbench-eval levels that kernelbench_dirs found;
    a line says which requested level is skipped and why (as the decontamination stage does)."""
    wanted = [lv for lv in args.pipeline_kernelbench_eval.split(",") if lv]
    found = {os.path.basename(d)[len("level"):]: d for d in kb_dirs}
    if not kb_dirs:
        print("KernelBench eval skipped: no KernelBench folder (--kernelbench)", flush=True)
    for lv in wanted:
        if kb_dirs and lv not in found:
            print(f"KernelBench eval of level {lv} skipped: no level{lv}/ folder beside {', '.join(kb_dirs)}",
                  flush=True)
    return {lv: found[lv] for lv in wanted if lv in found}


KB_CHUNK = 100  # files of a KernelBench level judged together in a pipeline's single-shot eval (all of them)


def kernelbench_argv(args):
    """eval.py flags of a KernelBench eval: speed against eager PyTorch only, 1 s of timed runs a candidate;
    --pipeline-kernelbench-workers judge workers (at most --judge-workers: larger GPU shares per worker);
    --pipeline-kernelbench-time-s as eval.py's --stop-after-s; --pipeline-kernelbench-max-new-tokens;
    eval.py's own per-candidate timeout (--judge-timeout-s where larger), because a real-size KernelBench task
    takes longer to judge than a synthetic program (gpu-small's 20 s is set for RL rollouts); its default
    --baseline-cache; the first --pipeline-kernelbench-limit files; a level's files in one chunk (KB_CHUNK).
    Level 1's judging is paced by its ~36 exclusive retries (whole-GPU jobs, one at a time). In eval.py's default
    chunks of 64 and 36 files (--gen-batch-size) the first chunk's last jobs run while the other workers idle; in
    one chunk the next chunk's jobs fill those gaps (packing an earlier run's per-task judge times onto the workers,
    exclusivity left out, gave 174 s in two chunks and 133 s in one)."""
    timeout_s = max(args.judge_timeout_s, eval_lib.build_parser().get_default("timeout_s"))
    # timing holds the GPU alone, so it sets a real-size eval's pace: 1 s of timed runs a candidate (at least the
    # judge's floor of runs), as the whole-level sweeps in the lab record use
    argv = ["--baseline", "eager", "--timeout-s", str(timeout_s), "--time-budget-s", "1",
            "--workers", str(min(args.judge_workers, args.pipeline_kernelbench_workers)),
            "--chunk-size", str(KB_CHUNK)]
    if args.pipeline_kernelbench_max_new_tokens:
        argv += ["--max-new-tokens", str(args.pipeline_kernelbench_max_new_tokens)]
    if args.pipeline_kernelbench_limit:
        argv += ["--limit", str(args.pipeline_kernelbench_limit)]
    if args.pipeline_kernelbench_time_s:
        argv += ["--stop-after-s", f"{args.pipeline_kernelbench_time_s:g}"]
    return argv


def search_argv(args):
    """eval.py flags of a KernelBench search eval, after kernelbench_argv's (the later flag wins): epilogue
    fragments first, --pipeline-kernelbench-search-budget candidates a task, 2 covers judged end to end a round
    (the search's 4 doubled its slowest round's work), 0.3 s of timed runs a candidate (a search times a task's
    fragments and covers where a single-shot eval times one answer, and timing holds the GPU alone), all
    --judge-workers (level 2's fragments are small: the correctness work runs in parallel), and chunks of 50
    (level 2 in two equal rounds)."""
    return ["--search", "--search-order", "epilogue-first", "--search-budget",
            str(args.pipeline_kernelbench_search_budget), "--search-beam", "2", "--time-budget-s", "0.3",
            "--workers", str(args.judge_workers), "--chunk-size", "50"]


def evaluate_kernelbench(args, kb_levels, policy, run_dir, name) -> dict:
    """eval.py of one policy on each KernelBench level into <run>/eval_<name>_kb<level>; {level: aggregates of
    that level's tasks, with "out"}. An RL checkpoint's answer identical to the SFT checkpoint's for the same
    file takes that verdict (eval.py --reuse-verdicts <run>/eval_sft_kb<level>): a few RL steps leave most greedy
    answers as they were, and a level-1 file's answer can cost a whole-GPU judge retry."""
    results = {}
    for lv, kb_dir in kb_levels.items():
        argv = kernelbench_argv(args)
        sft_dir = os.path.join(run_dir, f"eval_sft_kb{lv}")
        if name not in ("sft", "teacher") and os.path.isfile(os.path.join(sft_dir, "samples.jsonl")):
            argv += ["--reuse-verdicts", sft_dir]
        with kernelbench_lock(run_dir, lv):
            agg = evaluate(args, kb_dir, policy, os.path.join(run_dir, f"eval_{name}_kb{lv}"), argv)
        results[lv] = dict(agg["overall"], out=agg["out"], unfinished=agg.get("unfinished", 0))
        if name != "teacher" and lv in args.pipeline_kernelbench_search.split(",") and \
                args.pipeline_kernelbench_search_checkpoints in ("all", name):
            argv = kernelbench_argv(args) + search_argv(args)
            agg = evaluate(args, kb_dir, policy, os.path.join(run_dir, f"eval_{name}_kb{lv}_search"), argv)
            results[f"{lv}+search"] = dict(agg["overall"], out=agg["out"], unfinished=agg.get("unfinished", 0))
    return results


def kernelbench_teacher(args, kb_levels, run_dir) -> dict:
    """The teacher's KernelBench aggregates per level (--pipeline-kernelbench-teacher): auto = eval.py --policy
    teacher, resumable like every eval; a folder pattern = an earlier eval.py --out per level (an H200 teacher
    sweep), its rows limited to the tasks the checkpoints are judged on, so every row of the table covers the
    same files; "missing" counts those tasks that sweep lacks."""
    spec = args.pipeline_kernelbench_teacher
    if spec == "auto":
        return evaluate_kernelbench(args, kb_levels, "teacher", run_dir, "teacher")
    results = {}
    for lv, kb_dir in kb_levels.items():
        out_dir = spec.replace("{level}", lv)
        done = eval_lib.read_rows(os.path.join(out_dir, "results.jsonl"))
        task_ids = [str(r["id"]) for r in eval_lib.load_tasks(kb_dir, args.pipeline_kernelbench_limit)]
        rows = [done[t] for t in task_ids if t in done]
        results[lv] = dict(eval_lib.aggregate(rows), out=out_dir, missing=len(task_ids) - len(rows))
        if results[lv]["missing"]:
            print(f"note: {out_dir} lacks {results[lv]['missing']} of the {len(task_ids)} level-{lv} tasks", flush=True)
    return results


# Plain names of the logged RL metrics, for plots and the report
RL_NAMES = {"correct_frac": "correct, unflagged (S+)", "compiled_frac": "compiled",
            "informative_frac": "informative groups (correct and wrong)", "all_correct_frac": "all-correct groups",
            "all_wrong_frac": "all-wrong groups", "entropy": "entropy (nats / token)",
            "kl": "KL to the rollout policy (nats / token)", "kl_ref": "KL to the SFT policy (nats / token)",
            "clip_frac": "tokens outside the clip range"}


def plot_curves(run_dir, sft_rows, rl_rows, best_step=None) -> list:
    """PNG training curves (matplotlib imported here: only plotting needs it); `rl_rows`: RL run name -> its
    metrics rows; `best_step`: the SFT step handed to RL, marked on the SFT curve. Returns file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    names = []
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([r["step"] for r in sft_rows], [r["loss"] for r in sft_rows], label="train loss")
    held = [r for r in sft_rows if r.get("heldout_loss") is not None]
    ax.plot([r["step"] for r in held], [r["heldout_loss"] for r in held], "o-", label="held-out loss")
    if best_step is not None:
        ax.axvline(best_step, color="gray", linestyle="--", label=f"best held-out (step {best_step}), handed to RL")
    ax.set(xlabel="SFT step", ylabel="loss (nats / completion token)", title="SFT", yscale="log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "sft_loss.png"), dpi=100)
    names.append("sft_loss.png")
    plt.close(fig)
    for name, rows in rl_rows.items():
        if not rows:
            continue
        fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
        steps = [r["step"] for r in rows]
        ax = axes[0]
        for key in ["correct_frac", "compiled_frac", "informative_frac", "all_correct_frac", "all_wrong_frac",
                    "clip_frac"]:
            ax.plot(steps, [r.get(key) for r in rows], "o-", label=RL_NAMES[key])
        ax.set(xlabel="RL step", ylabel="share of rollouts, groups or tokens", ylim=(-0.05, 1.05),
               title=f"rollouts ({name})")
        ax.legend(fontsize=8)
        ax = axes[1]
        evals = [r for r in rows if r.get("heldout_pass1_by_level") or r.get("heldout_pass1") is not None]
        levels = sorted({lv for r in evals for lv in (r.get("heldout_pass1_by_level") or {})}, key=int)
        for lv in levels:
            pts = [(r["step"], r["heldout_pass1_by_level"].get(lv)) for r in evals
                   if (r.get("heldout_pass1_by_level") or {}).get(lv) is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"level {lv}, greedy pass@1")
        for lv in levels:
            pts = [(r["step"], r["heldout_pass_k_by_level"].get(lv)) for r in evals
                   if (r.get("heldout_pass_k_by_level") or {}).get(lv) is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "s--",
                        label=f"level {lv}, pass@{evals[-1].get('heldout_k')}")
        ax.set(xlabel="RL step", ylabel="held-out pass rate", ylim=(-0.05, 1.05), title="held-out tasks per level")
        if levels:
            ax.legend(fontsize=8)
        ax = axes[2]
        for key in ["entropy", "kl", "kl_ref"]:
            pts = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=RL_NAMES[key])
        ax.set(xlabel="RL step", ylabel="nats per token", yscale="symlog", title="entropy and KL")
        ax.set_yscale("symlog", linthresh=1e-8)  # a step's KL to the rollout policy can be ~1e-6
        ax.legend(fontsize=8)
        for ax in axes:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        fig.tight_layout()
        fig.savefig(os.path.join(run_dir, f"{name}_curves.png"), dpi=100)
        names.append(f"{name}_curves.png")
        plt.close(fig)
    return names


def write_pipeline_report(run_dir, summary, plots):
    s = summary
    lines = [f"# DRTriton pipeline run `{os.path.basename(os.path.abspath(run_dir))}`", "",
             f"Command: `python train.py {' '.join(s['argv'])}`".replace("train.py ` ", "train.py`"), "",
             "## What ran", ""]
    for name, info in s["stages"].items():
        beside = ", in its own process beside the main RL stage" if info.get("parallel") else ""
        lines.append(f"- **{name}** ({info['wall_s']:.0f} s{beside}): {info['what']}")
    lines += ["", f"Total wall time: {s['wall_s']:.0f} s on {s['device']}.", "", "## Results (held-out tasks, "
              "greedy, judged by reward.py)", "", "| policy | level | tasks | compiled | correct (Acc) | geomean speedup |",
              "|---|---|---|---|---|---|"]
    for name, agg in s["eval"].items():
        rows = sorted((agg.get("levels") or {}).items()) + [("all", agg.get("overall", agg))]
        for level, r in rows:
            speed = f"{r['geomean_speedup']:.2f}x" if r.get("geomean_speedup") else "-"
            lines.append(f"| {name} | {level} | {r.get('n_tasks')} | {_pct(r.get('compiled'))} | {_pct(r.get('acc'))} "
                         f"| {speed} |")
    lines += ["", s["verdict_note"]]
    if s.get("sft_selection"):
        lines += ["", s["sft_selection"]]
    if s.get("rl_vs_sft"):
        lines += ["", "## What RL adds", ""] + s["rl_vs_sft"]
    if s.get("kernelbench_note"):  # --pipeline-kernelbench-eval
        lines += ["", "## KernelBench", "", s["kernelbench_note"], ""] + kernelbench_table(s["kernelbench"])
    lines += ["", "## Curves", ""] + [f"![{p}]({p})" for p in plots]
    if s.get("next_steps"):
        lines += ["", "## Checkpoints and next commands", ""] + s["next_steps"]
    with open(os.path.join(run_dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def kernelbench_table(kb) -> list:
    """report.md lines of the KernelBench table: `kb` maps policy -> {level: eval.py aggregates}; one row per
    policy (the teacher first), per level the tasks ("n of N (partial)" where an eval stopped early or a sweep
    lacks files), Acc, Acc at KernelBench's 1e-4, fast_1 and the geomean speedup over the correct tasks ("not
    measured" where speed was not, e.g. on CPU)."""
    levels = sorted({lv for per in kb.values() for lv in per}, key=lambda lv: (int(lv.split("+")[0]), lv))
    if not levels:
        return []
    lines = ["| policy |" + "".join(f" L{lv} tasks | L{lv} Acc | L{lv} Acc at 1e-4 | L{lv} fast_1 | L{lv} geomean |"
                                    for lv in levels), "|---|" + "---|" * 5 * len(levels)]
    for name in sorted(kb, key=lambda n: n != "teacher"):  # stable: the teacher, then the checkpoints in run order
        cells = []
        for lv in levels:
            r = kb[name].get(lv)
            if r is None:
                cells += ["-"] * 5
                continue
            if r.get("speed_measured"):
                speed = [_pct(r.get("fast_1")), f"{r['geomean_speedup']:.2f}x" if r.get("geomean_speedup") else "-"]
            else:
                speed = ["not measured"] * 2
            left = r.get("unfinished") or r.get("missing") or 0  # a --pipeline-kernelbench-time-s stop, a short sweep
            tasks = f"{r['n_tasks']} of {r['n_tasks'] + left} (partial)" if left else str(r["n_tasks"])
            cells += [tasks, _pct(r.get("acc")), _pct(r.get("acc_kb_tol"))] + speed
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _acc(agg):
    return (agg.get("overall") or agg).get("acc") if agg else None


def rl_vs_sft_lines(evals, rl_rows, seed_runs, sft_name="sft") -> list:
    """report.md lines of "What RL adds": held-out Acc of SFT and of each RL seed, RL's mean and 95% interval over
    the seeds (eval.mean_ci95) against SFT, and per RL run what its rollouts held (steps, optimizer steps, share of
    informative groups, correct rollouts, the last held-out pass@1 per level): without informative groups neither
    loss has anything to learn from."""
    sft_acc = _acc(evals.get(sft_name))
    accs = [_acc(evals.get(n)) for n in seed_runs]
    mu, half = eval_lib.mean_ci95(accs)
    lines = []
    if sft_acc is not None and mu is not None:
        spread = f" +- {100 * half:.1f} points (95% interval over {len(accs)} seeds)" if half is not None else \
            " (one seed: no spread; --pipeline-rl-seeds N gives one)"
        diff = mu - sft_acc
        verdict = ("above SFT beyond the seed spread" if half is not None and diff > half else
                   "below SFT beyond the seed spread" if half is not None and -diff > half else
                   "within the seed spread of SFT" if half is not None else "one seed: not a comparison")
        n_tasks = (evals[sft_name].get("overall") or evals[sft_name]).get("n_tasks")
        grain = f" One task of the {n_tasks} is {100 / n_tasks:.1f} points." if n_tasks else ""
        lines.append(f"Held-out Acc: SFT {_pct(sft_acc)}; RL {_pct(mu)}{spread}: {100 * diff:+.1f} points, {verdict}. "
                     "Per seed: " + ", ".join(f"{n} {_pct(a)}" for n, a in zip(seed_runs, accs)) + "." + grain)
        lines.append("")
    lines += ["| RL run | steps | optimizer steps | informative groups | all-wrong groups | correct rollouts | "
              "largest KL of a step | KL to SFT at the end | last held-out pass@1 per level |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, rows in rl_rows.items():
        if not rows:
            continue
        mean = lambda key: sum(r.get(key) or 0.0 for r in rows) / len(rows)  # noqa: E731
        last = next((r for r in reversed(rows) if r.get("heldout_pass1_by_level")), {})
        held = ", ".join(f"L{lv} {_pct(x)}" for lv, x in sorted((last.get("heldout_pass1_by_level") or {}).items()))
        lines.append(f"| {name} | {rows[-1]['step']} | {sum(r.get('optimizer_steps', int(bool(r.get('updated')))) for r in rows)} "
                     f"| {_pct(mean('informative_frac'))} | {_pct(mean('all_wrong_frac'))} | {_pct(mean('correct_frac'))} "
                     f"| {_sci(max((r.get('kl') or 0.0 for r in rows), default=None))} "
                     f"| {_sci(next((r['kl_ref'] for r in reversed(rows) if r.get('kl_ref') is not None), None))} "
                     f"| {held or '-'} (step {last.get('step', '-')}) |")
    info = [r.get("informative_frac") or 0.0 for rows in rl_rows.values() for r in rows if r.get("step", 0) > 0]
    if info:
        share = sum(info) / len(info)
        lines += ["", f"Informative groups (some rollouts correct, some wrong) were {_pct(share)} of all groups. DRPO "
                      "learns from those and from all-correct groups (its speed weights; on CPU speed is not measured, "
                      "so they weigh equally); GRPO only from informative ones; all-wrong groups give neither loss "
                      "anything. " + (
                          "So few informative groups bound what RL can move: more SFT, or easier RL tasks, first."
                          if share < 0.3 else
                          "Signal was not what was short; the KL columns (nats per token) show how little the policy "
                          "moved, so the levers are more steps (--rl-time-limit-s, --rl-steps) and a larger step "
                          "(--rl-lr).")]
    return lines


def _sci(x):
    return "-" if x is None else f"{x:.1e}"


def next_steps_lines(run_dir, sft_policy, rl_dirs) -> list:
    """report.md's closing lines: where the checkpoints are and the commands that take them further."""
    rl_main = rl_dirs.get("rl")
    lines = [f"- SFT policy handed to RL: `{sft_policy}`"]
    lines += [f"- RL run `{name}`: `{d}` (checkpoints in `{os.path.join(d, 'checkpoints')}`)" for name, d in rl_dirs.items()]
    lines += ["", "Next:", "",
              f"- Evaluate the RL checkpoint on KernelBench level 1 (a GPU): `python eval.py --tasks "
              f"../shared/KernelBench/level1 --policy {rl_main} --out {os.path.join(run_dir, 'eval_rl_kb1')} "
              "--device cuda`",
              f"- More RL from the same SFT policy: `python train.py --stage rl --init {sft_policy} --tasks "
              f"{os.path.join(run_dir, 'data', 'tasks_rl.jsonl')} --out runs/rl-more --rl-steps 100`",
              f"- Seeds of each arm from that policy, as mean and 95% interval: `python bench.py rl-seeds --init "
              f"{sft_policy} --tasks {os.path.join(run_dir, 'data', 'tasks_rl.jsonl')} --seeds 3 --out runs/seeds`",
              "- The same pipeline on one GPU, a larger model with KernelBench evals: `python train.py --preset gpu-small`"]
    return lines


def _kb_accs(kb) -> str:
    """'teacher L1 100.0% L2 50.0%, sft L1 0.0% ...': the KernelBench Acc per policy and level, one line."""
    return ", ".join(f"{name}" + "".join(f" L{lv} {_pct(r.get('acc'))}" for lv, r in per.items())
                     for name, per in sorted(kb.items(), key=lambda kv: kv[0] != "teacher"))


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def run_stage(stages, name, what, fn):
    """One pipeline stage: a line when it starts and when it ends, its wall time into `stages`; fn's result."""
    print(f"\n=== {name}: {what}", flush=True)
    t = time.time()
    result = fn()
    stages[name] = {"what": what, "wall_s": time.time() - t}
    print(f"=== {name} done in {stages[name]['wall_s']:.0f} s", flush=True)
    return result


class Pipeline:
    """run_all's checkpoint stages: an RL run, a checkpoint's held-out eval (into `evals`) and its KernelBench evals
    (into `kernelbench`), each timed into `stages`. Picklable (flags and paths): an RL stage in a process of its own
    (SideStage) runs on a copy and hands back its three dicts."""

    def __init__(self, args, run_dir, eval_path, kb_levels, stages=None):
        self.args, self.run_dir, self.eval_path, self.kb_levels = args, run_dir, eval_path, kb_levels
        self.stages = {} if stages is None else stages
        self.evals, self.kernelbench = {}, {}
        self.seeds = {}  # RL run name -> its --seed (--pipeline-rl-seeds); the rest take --seed

    def kb_files(self):
        limit = self.args.pipeline_kernelbench_limit
        return f"the first {limit} files" if limit else "all files"

    def evaluate(self, name, policy_dir):
        """The checkpoint's greedy answers to the held-out tasks (eval_<name>), as soon as it exists."""
        self.evals[name] = run_stage(
            self.stages, f"eval-{name}", f"eval.py: greedy answers of the {name.upper()} checkpoint to the held-out "
                                         "tasks",
            lambda: evaluate(self.args, self.eval_path, policy_dir, os.path.join(self.run_dir, f"eval_{name}")))

    def evaluate_kernelbench(self, name, policy):
        if self.kb_levels:
            who = "the teacher" if name == "teacher" else f"the {name.upper()} checkpoint"
            self.kernelbench[name] = run_stage(
                self.stages, f"eval-{name}-kb", f"eval.py: {who} on KernelBench level(s) {', '.join(self.kb_levels)} "
                                                f"({self.kb_files()})",
                lambda: evaluate_kernelbench(self.args, self.kb_levels, policy, self.run_dir, name))

    def rl(self, name, loss, sft_dir, rl_path):
        """An RL run from the SFT checkpoint into <run>/<name>, then its evals; train.run_rl's summary."""
        args = self.args
        rl_args = copy.deepcopy(args)
        rl_args.stage, rl_args.out, rl_args.tasks, rl_args.init = "rl", os.path.join(self.run_dir, name), rl_path, sft_dir
        rl_args.loss = loss
        rl_args.seed = self.seeds.get(name, args.seed)
        rl_args.rl_eval_first = True  # a step-0 row: the per-level held-out curves start at the SFT policy
        rl_args.heldout_seed = args.seed if args.heldout_seed is None else args.heldout_seed  # one split for all seeds
        rl_args.resume = eval_lib.broadcast_object(bool(policy_lib.checkpoint_dirs(rl_args.out)))
        limit = f", stopped after {args.rl_time_limit_s:g} s" if args.rl_time_limit_s else ""
        result = run_stage(self.stages, name,
                           f"{args.rl_steps} {loss.upper()} steps{limit}, seed {rl_args.seed}, "
                           f"{args.prompts_per_step} tasks x "
                           f"G={args.group_size} rollouts of <= {args.rollout_max_new_tokens} tokens, fresh LoRA "
                           f"r={args.rl_lora_r} on the SFT policy, curriculum --levels {args.levels}",
                           lambda: train.run_rl(rl_args))
        del result["policy"]
        self.evaluate(name, rl_args.out)
        self.evaluate_kernelbench(name, rl_args.out)
        return result


def _side_stage_main(pipe, name, loss, sft_dir, rl_path, log_path, out_path):
    """A SideStage's process: its output to its log, Pipeline.rl, its dicts to out_path."""
    from reward import die_with_parent

    die_with_parent()  # a pipeline killed by its time box takes this stage with it
    log = open(log_path, "a", buffering=1)
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    sys.stdout = sys.stderr = log
    pipe.rl(name, loss, sft_dir, rl_path)
    write_json_atomic(out_path, {"stages": pipe.stages, "eval": pipe.evals, "kernelbench": pipe.kernelbench})


class SideStage:
    """--pipeline-parallel-ablation: the ablation's RL run and its evals in a process of its own (spawned: CUDA),
    started before the main RL stage and joined after it. The H200 sits mostly idle under one 24M-parameter model
    and its judge; the two stages take the same time box side by side, so neither trains on a quieter machine.
    Measurements stay clean: every timing holds the judges' per-GPU lock exclusive and the trainers' GPU work holds
    it shared (reward.gpu_work), and the KernelBench level-1 evals, whose references take up to 37 GB each, run one
    at a time (kernelbench_lock). Its log is <run>/<name>.log; a finished one (<run>/<name>/side_stage.json) is
    read back on --resume instead of run again."""

    def __init__(self, pipe, name, loss, sft_dir, rl_path):
        import multiprocessing

        self.pipe, self.name = pipe, name
        self.log_path = os.path.join(pipe.run_dir, f"{name}.log")
        self.out_path = os.path.join(pipe.run_dir, name, "side_stage.json")
        self.proc, self.t0 = None, time.time()
        if os.path.isfile(self.out_path):
            print(f"\n=== {name}: finished in an earlier run ({self.out_path})", flush=True)
            return
        os.makedirs(os.path.dirname(self.out_path), exist_ok=True)
        print(f"\n=== {name}: {loss.upper()} from the same SFT checkpoint, with its evals, in a process of its own "
              f"beside the main RL stage (--pipeline-parallel-ablation); its log: {self.log_path}", flush=True)
        self.proc = multiprocessing.get_context("spawn").Process(
            target=_side_stage_main, args=(type(pipe)(pipe.args, pipe.run_dir, pipe.eval_path, pipe.kb_levels), name,
                                           loss, sft_dir, rl_path, self.log_path, self.out_path),
            name=f"pipeline-{name}")
        self.proc.start()

    def join(self):
        """Wait for the stage and merge its stages, evals and KernelBench rows into the pipeline's; None, or what
        went wrong (the report is still written, without its rows)."""
        if self.proc is not None:
            self.proc.join()
            print(f"=== {self.name} (own process) done in {time.time() - self.t0:.0f} s, exit code "
                  f"{self.proc.exitcode}", flush=True)
        if not os.path.isfile(self.out_path):
            tail = open(self.log_path).read()[-1500:] if os.path.isfile(self.log_path) else ""
            print(f"error: the {self.name} stage failed; the end of {self.log_path}:\n{tail}", flush=True)
            return f"the {self.name} stage failed (exit code {self.proc.exitcode if self.proc else None}); see {self.log_path}"
        with open(self.out_path) as f:
            side = json.load(f)
        self.pipe.stages.update({k: dict(v, parallel=True) for k, v in side["stages"].items()})
        self.pipe.evals.update(side["eval"])
        self.pipe.kernelbench.update(side["kernelbench"])
        return None


@contextlib.contextmanager
def kernelbench_lock(run_dir, level):
    """KernelBench level 1's evals one at a time within a run (a file lock): their references take up to 37 GB each,
    and each judge sizes its workers' GPU shares as if it were alone (--pipeline-parallel-ablation). Other levels:
    no lock."""
    if str(level) != "1":
        yield
        return
    import fcntl

    with open(os.path.join(run_dir, ".kernelbench_level1.lock"), "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("waiting for another stage's KernelBench level-1 eval to finish", flush=True)
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pipeline_run_dir(args):
    """The pipeline's run directory, absolute: every stage's paths derive from it and go into run.json files and
    teacher.py's command line, which runs in this repository's directory."""
    return os.path.abspath(args.out or os.path.join("runs", f"pipeline-{time.strftime('%Y%m%d-%H%M%S')}"))


def run_all(args):
    """The offline pipeline at toy scale: synthesize tasks -> check them against KernelBench (a copy fails the run)
    -> teacher pairs (verified) -> tokenizer + tiny model
    -> SFT -> RL -> eval of the SFT and RL checkpoints on held-out level-1 tasks (and, with
    --pipeline-kernelbench-eval, on KernelBench beside the teacher) -> report.md and PNG curves."""
    t_all = time.time()
    run_dir = eval_lib.broadcast_object(pipeline_run_dir(args))  # a default --out holds the time: rank 0's
    not_empty = os.path.isdir(run_dir) and os.listdir(run_dir) and not args.resume
    missing = args.resume and not os.path.isdir(run_dir)
    eval_lib.barrier()  # every rank has looked before rank 0 writes there
    if not_empty:
        raise train.UsageError(f"{run_dir} is not empty; pass --resume to continue it or choose another --out")
    if missing:
        raise train.UsageError(f"--resume: run directory not found: {run_dir}")
    if eval_lib.is_main():
        train.check_writable(run_dir, "--out")
    data_dir = os.path.join(run_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    args.out = run_dir
    train.write_run_json(run_dir, args, {"stage": "all"})
    stages = {}

    def stage(name, what, fn):
        return run_stage(stages, name, what, fn)

    # Under torchrun rank 0 makes the data; the other ranks then find every file there (each stage reuses its files)
    kb_dirs = kernelbench_dirs(args)
    with eval_lib.main_first():
        sft_path, rl_path, eval_path = stage(
            "synth", f"{args.pipeline_tasks} level-1 programs of op pool '{args.pipeline_ops}' "
                     f"({args.pipeline_eval_tasks} held out for eval) + "
                     f"{args.pipeline_rl_tasks} RL programs per level in --levels {args.levels}"
                     + (" (level 1's drawn apart from the SFT tasks)" if args.pipeline_rl_level1 == "apart"
                        else " above 1 (level 1's RL tasks are the SFT tasks)"),
            lambda: synth_pipeline_tasks(args, data_dir, kb_dirs))
        if eval_lib.is_main():  # a copy fails the run on rank 0, and main_first fails the others with it
            stage("decontaminate", "no training task may share a normalised source with a KernelBench L1/L2 file "
                                   f"({', '.join(kb_dirs) if kb_dirs else 'KernelBench not found: skipped'})",
                  lambda: check_decontaminated([sft_path, rl_path], kb_dirs,
                                               record=os.path.join(data_dir, "decontaminated.json")))
        pairs_path = os.path.join(data_dir, "pairs.jsonl")
        stage("teacher", "teacher.py compiles every SFT task and keeps the judge-verified solutions",
              lambda: teacher_pairs(args, sft_path, pairs_path, os.path.join(run_dir, "teacher.log")))
    n_pairs = len(train.read_jsonl(pairs_path, "pairs"))
    stages["teacher"]["what"] += f": {n_pairs} pairs"
    if args.pipeline_data_only:
        train.write_run_json(run_dir, args, {"stage": "all", "data_only": stages})
        print(f"\n--pipeline-data-only: {n_pairs} verified pairs in {data_dir}; continue with the same flags "
              f"and --out {run_dir} --resume", flush=True)
        return {"stages": stages, "n_pairs": n_pairs}

    sft_args = copy.deepcopy(args)
    sft_args.stage, sft_args.out, sft_args.pairs, sft_args.tasks = "sft", os.path.join(run_dir, "sft"), pairs_path, sft_path
    sft_args.max_steps = args.pipeline_sft_steps or args.max_steps
    sft_args.max_seq_len = args.pipeline_max_seq_len
    sft_args.gen_every = args.pipeline_sft_gen_every or args.gen_every
    sft_args.resume = eval_lib.broadcast_object(bool(policy_lib.checkpoint_dirs(sft_args.out)))  # rank 0's view, on every rank
    sft = stage("sft", f"tokenizer + tiny model ({args.tiny_layers} layers x {args.tiny_hidden}), full fine-tuning "
                       f"on the pairs (max {args.pipeline_max_seq_len} tokens), lr {args.lr:g}",
                lambda: train.run_sft(sft_args))
    del sft["policy"]
    # the policy handed to RL (and evaluated as SFT): the best by --sft-best-by (train.py --sft-keep-best), else the last
    best = train.read_best(sft_args.out) if args.sft_keep_best else None
    sft_policy = best["dir"] if best else sft_args.out

    # KernelBench (--pipeline-kernelbench-eval): each checkpoint right after its held-out eval, and the
    # teacher once, on the same first --pipeline-kernelbench-limit files of each level
    kb_levels = kernelbench_eval_dirs(args, kb_dirs) if args.pipeline_kernelbench_eval else {}
    pipe = Pipeline(args, run_dir, eval_path, kb_levels, stages)
    evals, kb_evals = pipe.evals, pipe.kernelbench
    if not args.pipeline_kernelbench_eval:
        kb_note = None
    elif not kb_levels:
        kb_note = (f"Not evaluated: no KernelBench level {args.pipeline_kernelbench_eval} folder "
                   f"(--kernelbench {args.kernelbench or 'default ../shared/KernelBench'}).")
    else:
        teacher = {"auto": "eval.py --policy teacher in eval_teacher_kb<level>", "none": "not run"}.get(
            args.pipeline_kernelbench_teacher, f"read from {args.pipeline_kernelbench_teacher}")
        kb_note = (f"eval.py (greedy, judged by reward.py, speed vs eager PyTorch) on {pipe.kb_files()} of "
                   + ", ".join(kb_levels.values()) + "; outputs in eval_<policy>_kb<level>. Acc is at the judge's "
                   "tolerance (fp32 1e-2), Acc at 1e-4 at KernelBench's own; fast_1 = share of all tasks correct "
                   f"and faster than eager; geomean over the correct tasks. Teacher: {teacher}.")

    pipe.evaluate("sft", sft_policy)
    pipe.evaluate_kernelbench("sft", sft_policy)
    if kb_levels and args.pipeline_kernelbench_teacher == "auto":
        pipe.evaluate_kernelbench("teacher", "teacher")
    elif kb_levels and args.pipeline_kernelbench_teacher != "none":
        kb_evals["teacher"] = stage("kb-teacher", f"the teacher's KernelBench rows read from "
                                                  f"{args.pipeline_kernelbench_teacher}",
                                    lambda: kernelbench_teacher(args, kb_levels, run_dir))
    if args.pipeline_sft_only:
        train.write_run_json(run_dir, args, {"stage": "all", "sft_only": stages, "eval": evals, "kernelbench": kb_evals})
        acc = (evals["sft"].get("overall") or evals["sft"]).get("acc")
        print(f"\n--pipeline-sft-only: SFT checkpoint {sft_args.out}, held-out acc {_pct(acc)}"
              + (f"; KernelBench acc: {_kb_accs(kb_evals)}" if kb_evals else ""), flush=True)
        return {"stages": stages, "eval": evals, "kernelbench": kb_evals}
    # the main loss under --pipeline-rl-seeds seeds (rl, rl_seed1, ...), then the ablation's loss (one seed)
    seed_runs = ["rl"] + [f"rl_seed{k}" for k in range(1, args.pipeline_rl_seeds)]
    pipe.seeds = {name: args.seed + k for k, name in enumerate(seed_runs)}
    rl_runs = [(name, args.loss) for name in seed_runs] + (
        [] if args.pipeline_ablation_loss == "none" else [(f"rl_{args.pipeline_ablation_loss}",
                                                           args.pipeline_ablation_loss)])
    rl_dirs = {name: os.path.join(run_dir, name) for name, _ in rl_runs}
    side = None
    if args.pipeline_parallel_ablation and len(rl_runs) > 1:
        if eval_lib.world_size() > 1:
            print("note: --pipeline-parallel-ablation is for one process; under torchrun the ablation runs after "
                  "the main RL stage", flush=True)
        else:  # the ablation (train, evals) in a process of its own, beside the main RL stage
            side = SideStage(pipe, *rl_runs.pop(), sft_policy, rl_path)
    rl = None
    for name, loss in rl_runs:
        result = pipe.rl(name, loss, sft_policy, rl_path)
        rl = rl if rl is not None else result
    side_error = side.join() if side is not None else None
    if not eval_lib.is_main():  # rank 0 alone writes the curves and the report
        return {"stages": stages, "eval": evals, "kernelbench": kb_evals}

    sft_rows = [json.loads(line) for line in open(os.path.join(sft_args.out, "metrics.jsonl"))]
    rl_rows = {name: [json.loads(line) for line in open(os.path.join(d, "metrics.jsonl"))] for name, d in rl_dirs.items()
               if os.path.isfile(os.path.join(d, "metrics.jsonl"))}
    plots = plot_curves(run_dir, sft_rows, rl_rows, best_step=best["step"] if best else None)
    acc = (evals["rl"].get("overall") or evals["rl"]).get("acc") or 0.0
    if acc > 0:
        on_cpu = policy_lib.resolve_device(args.device).type != "cuda"
        note = (f"The RL policy wrote judge-verified solutions for {100 * acc:.1f}% of the held-out tasks"
                + (" (speed is not measured on CPU)." if on_cpu else "."))
    else:
        from collections import Counter

        with open(os.path.join(run_dir, "eval_rl", "samples.jsonl")) as f:
            verdicts = [json.loads(line)["verdict"] for line in f if line.strip()]
        errors = Counter(v["error_type"] for v in verdicts).most_common(3)
        example = next((v["error_msg"][:160] for v in verdicts if v["error_type"] == errors[0][0]), "") if errors else ""
        note = ("No held-out task was solved (0%). The judge's reasons: "
                + ", ".join(f"{e} {n}" for e, n in errors) + (f" (e.g. `{example}`)" if example else "")
                + ". A few-million-parameter model trained from scratch for minutes writes the template but drops or "
                  "misnames pieces of it; RL cannot help while no rollout is correct (every group all-wrong, "
                  "dropped by --zero-spread drop-all-wrong). More SFT (--pipeline-sft-steps) or --preset gpu-small "
                  "on a GPU is the fix; see eval_*/samples.jsonl.")
    held = [r["heldout_loss"] for r in sft_rows if r.get("heldout_loss") is not None]
    last_held = next((r for r in reversed(sft_rows) if r.get("heldout_loss") is not None), None)
    if best and "gen_correct_frac" in best:
        last_gen = next((r for r in reversed(sft_rows) if r.get("gen_correct_frac") is not None), None)
        sft_selection = (f"SFT handed RL its step-{best['step']} policy (`{best['dir']}`), the highest judged pass@1 "
                         f"on its held-out SFT tasks ({_pct(best['gen_correct_frac'])}) of its evaluations"
                         + (f"; its last step ({last_gen['step']}) had {_pct(last_gen['gen_correct_frac'])}."
                            if last_gen else "."))
    elif best:
        sft_selection = (f"SFT handed RL its step-{best['step']} policy (`{best['dir']}`), the lowest held-out loss "
                         f"({best['heldout_loss']:.4f}) of its evaluations; its last step ({sft_rows[-1]['step']}) had "
                         + (f"{last_held['heldout_loss']:.4f}." if last_held else "no held-out loss."))
    else:
        sft_selection = f"SFT handed RL its last checkpoint (step {sft_rows[-1]['step'] if sft_rows else '-'})."
    summary_rl = rl_vs_sft_lines(evals, rl_rows, [n for n in seed_runs if n in evals])
    summary = {"argv": args.argv, "stages": stages, "eval": evals, "wall_s": time.time() - t_all,
               "sft_selection": sft_selection, "rl_vs_sft": summary_rl,
               "next_steps": next_steps_lines(run_dir, sft_policy, rl_dirs),
               "device": str(policy_lib.resolve_device(args.device)), "verdict_note": note, "n_pairs": n_pairs,
               "heldout_loss": held, "rl_curriculum": rl["curriculum"], "kernelbench": kb_evals,
               "kernelbench_note": kb_note}
    write_pipeline_report(run_dir, summary, plots)
    record = train.write_run_json(run_dir, args, {"stage": "all", "summary": summary})
    if "summary" not in record:  # a resumed pipeline appended to `resumes`; the summary also goes on top
        record["summary"] = summary
        write_json_atomic(os.path.join(run_dir, "run.json"), record)
    print(f"\npipeline done in {summary['wall_s']:.0f} s: held-out loss {' -> '.join(f'{x:.3f}' for x in held)}; "
          + "; ".join(f"{n} acc {_pct((a.get('overall') or a).get('acc'))}"
                      + "".join(f" (L{lv} {_pct(r.get('acc'))})" for lv, r in sorted((a.get("levels") or {}).items())
                                if len(a.get("levels") or {}) > 1) for n, a in evals.items())
          + (f"\nKernelBench acc: {_kb_accs(kb_evals)}" if kb_evals else "")
          + f"\n{note}\nreport: {os.path.join(run_dir, 'report.md')}", flush=True)
    if side_error:  # the report holds everything else; the exit code says a stage is missing
        raise train.RunError(side_error)
    return summary


# ----------------------------------------------------------------------------------------------------
# The command line: train.py's flags and the --pipeline-* group, which only --stage all reads

# The KernelBench levels the pipeline evaluates on: the folders kernelbench_dirs finds (and decontaminates against).
KERNELBENCH_LEVELS = ("1", "2")


def add_flags(p):
    """The --pipeline-* group (and --kernelbench) on train.py's parser (train.build_parser's add_flags)."""
    g = p.add_argument_group("pipeline (--stage all: python train.py with no arguments)")
    g.add_argument("--pipeline-tasks", type=int, default=260, help="level-1 programs for SFT pairs and eval")
    g.add_argument("--pipeline-teacher-style", choices=["varied", "fixed"], default="varied",
                   help="teacher.py --style for the pipeline's SFT pairs (the tiny preset uses fixed)")
    g.add_argument("--pipeline-teacher-heavy", choices=["triton", "torch"], default="triton",
                   help="teacher.py --heavy for the pipeline's SFT pairs: torch writes the programs with a GEMM or "
                        "convolution and ops after it as hybrids (the heavy op stays the task's torch call, the rest "
                        "one fused Triton kernel: the shape eval.py --search picks on KernelBench level 2), the "
                        "others all-Triton (gpu-small); triton compiles every op")
    g.add_argument("--pipeline-teacher-cache", default=None, metavar="JSONL",
                   help="teacher.py --verdict-cache for the pipeline's SFT pairs: correct verdicts kept across runs, "
                        "so a data step run again after a change to how tasks are written judges only the pairs "
                        "that changed (default $XDG_CACHE_HOME/drtriton-lite/teacher_verdicts.jsonl, ~/.cache/... "
                        "when unset; 'none' judges every pair)")
    g.add_argument("--pipeline-teacher-sizes", choices=["literal", "symbolic"], default="literal",
                   help="teacher.py --sizes for the pipeline's SFT pairs: symbolic kernels name their sizes (read "
                        "from the tensors' shapes) instead of writing products such as 156 = 13 * 12 (gpu-small)")
    g.add_argument("--pipeline-ops", default="all",
                   help="op pool of the pipeline's programs (synth.op_pool: all, a kind such as unary, elementwise, "
                        "or a comma list; a part ending in *N is drawn N times as often, e.g. all,conv*4); the tiny "
                        "preset uses unary so a from-scratch model sees each op often, gpu-small weights "
                        "convolutions and GEMMs toward KernelBench level 1's mix")
    g.add_argument("--pipeline-style", choices=["plain", "kernelbench"], default="plain",
                   help="surface of the pipeline's task sources (synth render style): plain is one fixed "
                        "form, kernelbench KernelBench's variety (docstrings, names, functional/method/module "
                        "spellings, constructor arguments, size constants); gpu-small uses kernelbench so the model "
                        "sees sources like the benchmark's")
    g.add_argument("--pipeline-eval-tasks", type=int, default=30, help="of those, held out for the final eval")
    g.add_argument("--pipeline-anchored", type=float, default=0.0,
                   help="share of the programs of levels above 1 drawn anchored (synth: a GEMM or convolution "
                        "first, an epilogue of elementwise, reduction, norm and pool ops after it: KernelBench "
                        "level 2's shape; gpu-small 0.8)")
    g.add_argument("--pipeline-rl-tasks", type=int, default=40,
                   help="RL programs per level of --levels: above 1 always, level 1 with --pipeline-rl-level1 apart")
    g.add_argument("--pipeline-rl-level1", choices=["apart", "sft"], default="apart",
                   help="level-1 RL tasks: apart = --pipeline-rl-tasks programs drawn apart from the SFT and eval "
                        "tasks (same op pool and style, another seed), so RL learns where SFT has not seen the "
                        "answer, as the held-out eval measures; sft (and apart with --pipeline-rl-tasks 0) = the "
                        "SFT tasks themselves (greedy-solved after SFT: most groups all correct, little for RL to "
                        "learn)")
    g.add_argument("--pipeline-rl-size", choices=["cpu", "gpu", "kernelbench"], default="cpu",
                   help="synth size preset of the RL tasks: cpu = the SFT tasks' sizes (the tiny default, judged on "
                        "the interpreter); gpu and kernelbench = the same programs rendered larger (synth twins), so "
                        "on a GPU a rollout's time is its memory traffic and math rather than its launch and the "
                        "speed reward can rank tile sizes (gpu-small: gpu; kernelbench is the benchmark's own sizes, "
                        "GBs a task)")
    g.add_argument("--pipeline-sft-levels", default="1",
                   help="levels whose programs become SFT pairs: 1 = the level-1 programs; a level above 1 adds the "
                        "RL programs of that level (--pipeline-rl-tasks, synthesized for the levels in --levels)")
    g.add_argument("--pipeline-eval-higher", type=int, default=0,
                   help="held-out programs per level of --levels above 1 added to the final eval (0 = level 1 only)")
    g.add_argument("--pipeline-teacher-device", choices=["cpu", "cuda"], default="cpu",
                   help="judge device for the teacher's SFT pairs: cpu (Triton interpreter) checks correctness, "
                        "all a pair needs, and spares the GPU one Triton compile per pair")
    g.add_argument("--kernelbench", default=None,
                   help="KernelBench root (with level1/, level2/) that every training set the pipeline writes is "
                        "checked against (the run fails on a copy); default ../shared/KernelBench when present, "
                        "'none' skips the check")
    g.add_argument("--pipeline-kernelbench-eval", default="", metavar="LEVELS",
                   help="KernelBench levels (comma list of 1, 2; '' = off, the tiny default) on which eval.py also "
                        "judges each checkpoint (SFT, every RL run) after its held-out eval, into "
                        "<run>/eval_<name>_kb<level>: the level folders of --kernelbench (skipped with a line when "
                        "there is none), speed vs eager, eval.py's own per-candidate timeout (or --judge-timeout-s "
                        "where larger) and baseline cache")
    g.add_argument("--pipeline-kernelbench-search", default="", metavar="LEVELS",
                   help="KernelBench levels (of --pipeline-kernelbench-eval) on which each checkpoint is also "
                        "evaluated with the paper's test-time search (eval.py --search: the whole task first, as the "
                        "single-shot answer, then the checkpoint's kernels for its fragments, epilogue first, and "
                        "the fastest correct hybrid), into <run>/eval_<name>_kb<level>_search, its row 'L<level>+"
                        "search'; gpu-small: 2; '' = off")
    g.add_argument("--pipeline-kernelbench-search-budget", type=int, default=4, metavar="N",
                   help="--pipeline-kernelbench-search: most candidates the search judges per task (the whole "
                        "task's and its fragments'; eval.py --search-budget); 4 is the whole task and three "
                        "epilogue fragments, one round (8 left a 64-task chunk unfinished after 10 min)")
    g.add_argument("--pipeline-kernelbench-search-checkpoints", choices=("all", "sft", "rl"), default="all",
                   help="--pipeline-kernelbench-search: every checkpoint's search (all), the SFT checkpoint's only "
                        "(sft) or the main RL checkpoint's only (rl; gpu-small: the checkpoint the pipeline ends with, "
                        "so one checkpoint has both KernelBench numbers), where device time is short")
    g.add_argument("--pipeline-kernelbench-teacher", default="auto", metavar="auto|none|DIR",
                   help="the teacher's KernelBench row beside the checkpoints': auto = eval.py --policy teacher per "
                        "level into <run>/eval_teacher_kb<level> (resumable); a pattern of eval.py --out folders with "
                        "{level} (e.g. results/kb-teacher/level{level}) whose results.jsonl is read instead, limited "
                        "to the tasks the checkpoints are judged on; none = no teacher row")
    g.add_argument("--pipeline-kernelbench-workers", type=int, default=4, metavar="N",
                   help="judge workers of the KernelBench evals (at most --judge-workers): fewer workers get larger "
                        "GPU shares, so more of KernelBench's references (up to 30 GB over level 1's trials) fit "
                        "without the exclusive retry that holds the whole GPU (41 of 100 level-1 "
                        "answers needed it with 8)")
    g.add_argument("--pipeline-kernelbench-time-s", type=float, default=None, metavar="S",
                   help="each KernelBench eval (a checkpoint's or the teacher's, per level) stops starting new "
                        "chunks after S seconds (eval.py --stop-after-s), so a boxed run still ends with its report; "
                        "the table then shows the files judged of the level's ('partial': not a KernelBench "
                        "result) and --resume judges the rest; default no limit")
    g.add_argument("--pipeline-kernelbench-max-new-tokens", type=int, default=None, metavar="N",
                   help="new tokens a KernelBench answer may take (default --rollout-max-new-tokens; gpu-small 3072): "
                        "a spelled-out 3-D convolution's answer runs past gpu-small's 1,536 (5 of level "
                        "1's first 64 files cut before the launcher's end)")
    g.add_argument("--pipeline-kernelbench-limit", type=int, default=None, metavar="N",
                   help="KernelBench files per level judged (eval.py --limit: the first N by name; default all)")
    g.add_argument("--pipeline-data-only", action="store_true",
                   help="stop after the synth and teacher stages (make the data on a CPU box; a later run with "
                        "--resume on the GPU reuses it)")
    g.add_argument("--pipeline-sft-only", action="store_true",
                   help="stop after the SFT checkpoint's held-out eval (compare SFT recipes; RL can follow with "
                        "--stage rl --init RUN/sft)")
    g.add_argument("--pipeline-rl-seeds", type=int, default=1, metavar="N",
                   help="RL runs of the main loss from the same SFT checkpoint, seeds --seed, --seed + 1, ... (rl, "
                        "rl_seed1, ...), each evaluated; report.md gives RL's held-out Acc as the mean and 95%% "
                        "interval over them beside SFT's")
    g.add_argument("--pipeline-ablation-loss", choices=["none", "drpo", "grpo"], default="none",
                   help="after the main RL stage, a second one from the same SFT checkpoint with this --loss and the "
                        "same budget, evaluated alongside (the DRPO vs GRPO comparison)")
    g.add_argument("--pipeline-parallel-ablation", action=argparse.BooleanOptionalAction, default=False,
                   help="run the --pipeline-ablation-loss stage (its RL and evals) in a process of its own beside the "
                        "main RL stage instead of after it (gpu-small: on; one GPU barely used by a small model and "
                        "its judge). Both take the same time box side by side; timings stay clean (the trainers' GPU "
                        "work and the judges' timing share one lock) and KernelBench level-1 evals run one at a time")
    g.add_argument("--pipeline-sft-steps", type=int, default=0, help="SFT optimizer steps (0 = from --epochs)")
    g.add_argument("--pipeline-sft-gen-every", type=int, default=0, metavar="N",
                   help="SFT's --gen-every in the pipeline: judged pass@1 on the SFT split's held-out tasks every N "
                        "steps, which (--sft-best-by auto) picks the policy handed to RL (tiny: 100; 0 = off)")
    g.add_argument("--pipeline-max-seq-len", type=int, default=768,
                   help="SFT --max-seq-len in the pipeline (tokens); 768 drops the longest ~30%% of level-1 pairs "
                        "(convs, pools, attention) and roughly halves SFT time on CPU")


def check_flags(parser, args):
    """Values of the pipeline's flags that cannot work (after train.check_args); parser.error exits with code 2."""
    import synth

    levels = [int(v) for v in args.levels.split(",")]  # train.check_args has checked them
    if not 0 <= args.pipeline_anchored <= 1:
        parser.error(f"--pipeline-anchored must be in [0, 1] (got {args.pipeline_anchored})")
    try:
        synth.op_pool(args.pipeline_ops)
    except ValueError as e:
        parser.error(f"--pipeline-ops: {e}")
    for name in ["pipeline_rl_seeds", "pipeline_tasks", "pipeline_eval_tasks", "pipeline_max_seq_len"]:
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be > 0 (got {getattr(args, name)})")
    for name in ["pipeline_rl_tasks", "pipeline_sft_steps", "pipeline_eval_higher", "pipeline_sft_gen_every"]:
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0 (got {getattr(args, name)})")
    if args.pipeline_eval_tasks >= args.pipeline_tasks:
        parser.error("--pipeline-eval-tasks must be < --pipeline-tasks")
    try:
        sft_levels = [int(v) for v in args.pipeline_sft_levels.split(",")]
    except ValueError:
        sft_levels = []
    if not sft_levels or any(lv != 1 and lv not in levels for lv in sft_levels):
        parser.error(f"--pipeline-sft-levels must be a comma list of 1 and levels in --levels {args.levels} "
                     f"(got {args.pipeline_sft_levels!r})")
    kb_levels = [v.strip() for v in args.pipeline_kernelbench_eval.split(",") if v.strip()]
    if any(v not in KERNELBENCH_LEVELS for v in kb_levels) or len(set(kb_levels)) != len(kb_levels):
        parser.error(f"--pipeline-kernelbench-eval must be '' (off) or a comma list of the KernelBench levels "
                     f"{', '.join(KERNELBENCH_LEVELS)}, e.g. 1,2 (got {args.pipeline_kernelbench_eval!r})")
    args.pipeline_kernelbench_eval = ",".join(kb_levels)
    search_levels = [v.strip() for v in args.pipeline_kernelbench_search.split(",") if v.strip()]
    if any(lv not in kb_levels for lv in search_levels):
        parser.error(f"--pipeline-kernelbench-search must be '' (off) or a comma list of levels that "
                     f"--pipeline-kernelbench-eval also judges ({args.pipeline_kernelbench_eval or 'none'}); got "
                     f"{args.pipeline_kernelbench_search!r}")
    args.pipeline_kernelbench_search = ",".join(search_levels)
    if args.pipeline_kernelbench_search_budget < 1:
        parser.error(f"--pipeline-kernelbench-search-budget must be >= 1 (got {args.pipeline_kernelbench_search_budget})")
    if args.pipeline_kernelbench_limit is not None and args.pipeline_kernelbench_limit <= 0:
        parser.error(f"--pipeline-kernelbench-limit must be > 0 (got {args.pipeline_kernelbench_limit})")
    if args.pipeline_kernelbench_time_s is not None and args.pipeline_kernelbench_time_s <= 0:
        parser.error(f"--pipeline-kernelbench-time-s must be > 0 (got {args.pipeline_kernelbench_time_s:g})")
    if args.pipeline_kernelbench_max_new_tokens is not None and args.pipeline_kernelbench_max_new_tokens < 1:
        parser.error(f"--pipeline-kernelbench-max-new-tokens must be >= 1 "
                     f"(got {args.pipeline_kernelbench_max_new_tokens})")
    if args.pipeline_kernelbench_workers < 1:
        parser.error(f"--pipeline-kernelbench-workers must be >= 1 (got {args.pipeline_kernelbench_workers})")
    teacher = args.pipeline_kernelbench_teacher
    if teacher not in ("auto", "none"):
        if "{level}" not in teacher:
            parser.error(f"--pipeline-kernelbench-teacher must be auto, none or a folder pattern with {{level}}, "
                         f"e.g. results/kb-teacher/level{{level}} (got {teacher!r})")
        args.pipeline_kernelbench_teacher = teacher = os.path.abspath(teacher)  # run.json is read from anywhere
        for level in kb_levels:  # a missing sweep fails now, not after hours of SFT and RL
            path = os.path.join(teacher.replace("{level}", level), "results.jsonl")
            if not os.path.isfile(path):
                parser.error(f"--pipeline-kernelbench-teacher: no eval.py results for level {level} ({path})")


def parse_args(argv):
    """train.parse_args with the pipeline's flags: what `python train.py` and `python pipeline.py` parse."""
    return train.parse_args(argv, add_flags=add_flags, check_flags=check_flags)


def main(argv=None) -> int:
    """train.py's command line with the pipeline as its `--stage all`."""
    return train.main(argv, run_pipeline=run_all, parse=parse_args)


if __name__ == "__main__":
    eval_lib.exit_process(main())
