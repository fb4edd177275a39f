"""eval.py: run a policy over a task set, judge every answer with reward.py, report Acc, fast_p and speedups.

    python eval.py --tasks tests/eval_data/tasks --policy solutions:tests/eval_data/solutions --out runs/eval-smoke
    python synth.py --num-programs 100 --levels 2 --seed 0 --out data/l2.jsonl
    python eval.py --tasks data/l2.jsonl --policy teacher --baseline eager,compile --device cuda --workers 4 \\
        --out runs/eval-teacher-l2
    python eval.py --tasks data/l2.jsonl --policy runs/sft-7b --samples 8 --device cuda --out runs/eval-sft-l2
    python eval.py --tasks ../shared/KernelBench/level2 --policy teacher --search --search-budget 8 --device cuda \\
        --baseline eager,compile --out runs/eval-teacher-kb2-search
    python eval.py --tasks ../shared/KernelBench/level2 --policy teacher --teacher-plans all --device cuda \\
        --baseline eager,compile --out runs/eval-teacher-kb2-plans

--tasks is a synthetic JSONL (synth.py), a directory of KernelBench-format .py files, or one such file. A task's
level is --level if given, else its directory's "levelN" (KernelBench/level2 -> 2), else the record's own, else
"-"; never the file name's number (KernelBench's 16_*.py is task 16 of its level). --policy is one of:
  CKPT_DIR          a train.py run dir (its last checkpoint), one checkpoints/step_N dir, or a dir written by
                    policy.save_policy (base + adapter); answers sampled through policy.py with the shared prompt
  model:ID_OR_PATH  any causal LM without an adapter (the zero-shot base model baseline)
  teacher           teacher.compile_program (the deterministic DAG -> Triton compiler; no LLM). With
                    --teacher-plans one candidate per teacher plan it can build (teacher.plans:
                    triton, triton-tf32x3, triton-tf32 (convolutions only), hybrid = GEMMs/convs kept in
                    torch, the rest fused in Triton); the judge measures them all and the row is the fastest
                    correct, its plan in the row's "plan" (one answer: n_samples 1, n_plans beside it);
                    --teacher-fallback PLAN is built where none of them applies and judged where none passes
  solutions:DIR     DIR/<task id>.py per task; a missing file is a failed task ("missing_solution")
  samples:FILE      an earlier run's answers replayed: its samples.jsonl (or the --out folder holding it), each
                    task's recorded completions judged again (e.g. under a new judge); none: "missing_solution"
  reference         the task's own Model renamed ModelNew. The judge has no reference mode: it requires a
                    @triton.jit kernel, so every such answer fails with "no_triton_kernel". It checks that the
                    judge rejects plain PyTorch, not the eager-vs-eager timing noise.

Metrics (KernelBench's definitions; pure functions below, tested against hand-computed tables):
  Acc        share of tasks whose answer is correct (at the judge's tolerance, fp32 atol = rtol = 1e-2).
  acc_kb_tol Acc at KernelBench's own fp32 tolerance, 1e-4: correct and without the judge's flag fails_kb_tol.
  fast_p     share of ALL tasks (failed and missing ones included) that are correct AND have speedup > p,
             for p in 0, 1, 1.5, 2; speedup = eager reference time / candidate time. fast_0 = Acc.
  geomean    geometric-mean speedup over the correct tasks (tasks whose speed was measured).
  pass@k     Chen et al.'s unbiased estimator 1 - C(n-c, k) / C(n, k), averaged over tasks (--samples n > 1).
  vs compile the same fast_p / geomean against torch.compile of the reference (--baseline eager,compile), and
  vs max-autotune against torch.compile(mode="max-autotune") (--baseline eager,compile,max-autotune).
Choices to know about:
  * With --samples N > 1 a task's row is the best of its N samples (the fastest correct one; else the first
    that compiled; else the first), so Acc = pass@N there; pass@k for k < N are the unbiased estimates.
  * On CPU (Triton interpreter) correctness is real but speed is not measured: speed columns say "not
    measured" and fast_p for p > 0 is absent from the aggregates (not 0). No plots are drawn then.
  * --search hands each judging chunk's tasks to search.search_tasks(records, proposer, judge, samples=N,
    seed=S, sample_budget=, time_budget_s=, logs=, order=, beam=, progress=), which searches them
    together (one judge call a round for all), with the policy as proposer (`propose(records, n_samples,
    seed)`, policy.py), --samples as samples per fragment, --search-budget as the most fragment candidates judged
    per task and --search-time-budget-s as its fragment phase's wall-clock limit, --search-order as its fragment
    order (shortest first, or epilogue-first: fragments without a GEMM/convolution first), --search-beam as the
    covers judged end to end a round; it prints a line when each task's search starts and ends, and one per
    proposer call and judge round. The search judges its answer end to end on the task with this same judge; that
    verdict is the row's (not judged a second time). It is the fastest of the correct candidates it measured, so its time
    is a best-of-few (a small optimistic bias where candidates are close).
  * One task's failure of any kind is that task's failed row and the run goes on; error_type says
    where: import_error (the file cannot be read or traced by synth.load_task), teacher_error (a program the
    teacher does not support), teacher_bug (any other exception in the teacher), search_failed (no correct
    hybrid), search_error (a task the search cannot handle), search_bug (any other exception in the search),
    judge_error (the judge's workers could not start even after a fresh judge), or the judge's own verdict
    types. The message is the exception's type and text; samples.jsonl keeps its traceback. A judge that
    closes itself (workers failing to start) is started afresh.
  * --baseline-cache (default $XDG_CACHE_HOME/drtriton-lite/baselines.json, ~/.cache/... when unset; "none"
    disables it) is handed to the judge, which reuses eager and torch.compile reference times per task (keyed by
    task hash, GPU and versions) across runs, where reward.Judge takes the keyword.

Outputs in --out: run.json (args, argv, git commit, versions, GPU), results.jsonl (one line per task,
appended as each judging chunk finishes, so a crash loses at most one chunk), samples.jsonl (model text and
every sample's verdict; a failure's traceback; a search's kind, cover and stats), solutions/<task id>.py (the
answer judged for each task), report.md (per-level table, failures by error type and one line per failed task
with its message) and, when speed was measured, speedup_hist.png and fast_p_curve.png. Paths in run.json are
absolute, so a run resumes from any working directory. Rerunning with the same --out skips the finished tasks
(the identity flags must match). The last line of stdout is one JSON object with the aggregates.
--propose-only writes run.json and samples.jsonl alone (answers, verdict null) and starts no judge: bench.py kb-ab
judges and times only the answers that differ between such runs.
Not bit-reproducible: model samples are seeded per generation batch, so a resumed run, which batches the
remaining tasks differently, draws different samples than an uninterrupted one.

Several GPUs: the same command under torchrun shares the tasks out over N processes, one per GPU:
    torchrun --nproc-per-node 2 eval.py --tasks ../shared/KernelBench/level2 --policy teacher --device cuda \
        --baseline eager,compile --out runs/eval-teacher-kb2
    torchrun --nproc-per-node 2 eval.py --tasks data/l2.jsonl --policy runs/sft-7b --device cuda --out runs/eval-sft-l2
Rank k judges the unfinished tasks k, k + N, k + 2N, ... (round-robin: neighbouring tasks, often of similar size,
go to different ranks) on cuda:k with its own judge of --workers workers (N x --workers in all) and, for a model
policy, its own copy of the model; it writes results.rank<k>.jsonl and samples.rank<k>.jsonl, and when every rank is
done rank 0 merges them into results.jsonl and samples.jsonl in task order and writes run.json (with "ranks"),
report.md and the plots; the last line of stdout comes from rank 0. Resume as before, with any number of processes
(leftover rank files of a killed run are merged first). reward.Judge takes no GPU index: each rank narrows
CUDA_VISIBLE_DEVICES to its own GPU after its CUDA context is up, so its judge workers (which inherit it) use that
GPU (init_distributed). Model samples are seeded per rank and chunk, so N processes draw other samples than one.
On CPU the same works with gloo (`torchrun --nproc-per-node 2 eval.py ... --device cpu`), each rank with its judge.
"""
import contextlib
import json
import math
import os
import re
import sys
import time

import synth
from reward import KB_TOL_FLAG  # the judge's flag on a correct verdict outside KernelBench's 1e-4 (no torch import)

FAST_PS = (0.0, 1.0, 1.5, 2.0)
PASS_KS = (1, 2, 4, 5, 8, 10, 16, 32, 64, 100)
IDENTITY_FLAGS = ("tasks", "policy", "samples", "device", "judge_policy", "baseline", "search", "seed", "trials",
                  "level", "search_budget", "search_time_budget_s", "search_order", "search_beam", "teacher_plans",
                  "teacher_dot_precision", "teacher_fallback", "shrink_to", "precision")
ERROR_MSG_CHARS = 500  # error_msg kept per row in results.jsonl (the full verdict sits next to it)


UsageError = synth.UsageError  # a bad flag or input found before any judging: one line on stderr, exit code 2


# ----------------------------------------------------------------------------------------------------
# Metrics: small pure functions of per-task rows ({"correct", "speedup", ...}) or plain numbers.


def fast_p(rows, p, key="speedup"):
    """KernelBench fast_p: share of ALL rows that are correct with row[key] > p. p = 0 counts every correct
    row (any measured speedup is > 0), so fast_0 = Acc even where speed was not measured."""
    if not rows:
        return None
    hits = sum(1 for r in rows if r.get("correct") and (p == 0 or (r.get(key) is not None and r[key] > p)))
    return hits / len(rows)


def acc_kb_tol(rows):
    """Acc at KernelBench's own fp32 tolerance (atol = rtol = 1e-4): share of ALL rows that are correct and
    whose flags lack "fails_kb_tol" (the judge's mark on an answer within its default tolerance, 1e-2, but not
    within 1e-4)."""
    if not rows:
        return None
    return sum(1 for r in rows if r.get("correct") and KB_TOL_FLAG not in (r.get("flags") or [])) / len(rows)


def geomean(xs):
    """Geometric mean of positive numbers; None for an empty list."""
    xs = list(xs)
    if not xs:
        return None
    if any(x <= 0 for x in xs):
        raise ValueError(f"geomean needs positive numbers, got {min(xs)}")
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def pass_at_k(n, c, k):
    """Unbiased pass@k from n samples of which c are correct (Chen et al. 2021): 1 - C(n-c, k) / C(n, k),
    computed as a stable product."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


# Student's t 0.975 quantiles for 1-30 degrees of freedom (then the normal's 1.96): 95% intervals of a mean of few seeds
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def mean_ci95(xs) -> tuple:
    """(mean, half-width of its 95% interval) of independent runs' values (Student's t, sample std); half-width None
    for a single value."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None
    mu = sum(xs) / len(xs)
    if len(xs) < 2:
        return mu, None
    sd = math.sqrt(sum((x - mu) ** 2 for x in xs) / (len(xs) - 1))
    t = T975[len(xs) - 2] if len(xs) - 1 <= len(T975) else 1.96
    return mu, t * sd / math.sqrt(len(xs))


def aggregate(rows, speed_measured=None, compile_measured=None, ps=FAST_PS):
    """Aggregates of per-task rows. Row keys used: correct, compiled, speedup, speedup_vs_compile,
    speedup_vs_max_autotune (measured where some correct row has it), n_samples, n_correct. speed_measured None means "some correct row has a speedup". Keys that cannot be computed are
    absent (fast_p for p > 0 and geomeans without measured speed, pass@k for k above the samples per task)."""
    n = len(rows)
    if speed_measured is None:
        speed_measured = any(r.get("correct") and r.get("speedup") is not None for r in rows)
    if compile_measured is None:
        compile_measured = any(r.get("correct") and r.get("speedup_vs_compile") is not None for r in rows)
    out = {"n_tasks": n, "n_correct": sum(bool(r.get("correct")) for r in rows),
           "compiled": sum(bool(r.get("compiled")) for r in rows) / n if n else None,
           "acc": fast_p(rows, 0.0), "acc_kb_tol": acc_kb_tol(rows), "speed_measured": bool(speed_measured)}
    for p in ps:
        if p == 0 or speed_measured:  # fast_0 = Acc is defined without timing; the rest is not
            out[f"fast_{p:g}"] = fast_p(rows, p)
    if speed_measured:
        out["geomean_speedup"] = geomean(r["speedup"] for r in rows if r.get("correct") and r.get("speedup"))
    autotune_measured = any(r.get("correct") and r.get("speedup_vs_max_autotune") is not None for r in rows)
    for suffix, measured in (("_vs_compile", compile_measured), ("_vs_max_autotune", autotune_measured)):
        if measured:
            for p in ps:
                if p > 0:
                    out[f"fast_{p:g}{suffix}"] = fast_p(rows, p, f"speedup{suffix}")
            out[f"geomean_speedup{suffix}"] = geomean(r[f"speedup{suffix}"] for r in rows
                                                      if r.get("correct") and r.get(f"speedup{suffix}"))
    n_samples = min((r.get("n_samples", 1) for r in rows), default=1)
    if n_samples > 1:
        for k in sorted({k for k in PASS_KS if k <= n_samples} | {n_samples}):
            out[f"pass@{k}"] = sum(pass_at_k(r["n_samples"], r["n_correct"], k) for r in rows) / n
    return out


def level_key(level):
    """Sort order of levels: numbers first (numerically), then the rest ("-") by name."""
    s = str(level)
    return (0, float(s), "") if re.fullmatch(r"\d+(\.\d+)?", s) else (1, 0.0, s)


def aggregate_by_level(rows, speed_measured=None, compile_measured=None):
    """{"levels": {level: aggregates}, "overall": aggregates}; levels are strings."""
    levels = {}
    for r in rows:
        levels.setdefault(str(r.get("level", "-")), []).append(r)
    return {"levels": {lv: aggregate(levels[lv], speed_measured, compile_measured)
                       for lv in sorted(levels, key=level_key)},
            "overall": aggregate(rows, speed_measured, compile_measured)}


# ----------------------------------------------------------------------------------------------------
# Tasks and per-task rows


def task_level(record):
    """The record's level as a string, "-" when it has none. load_tasks sets it: --level, else the task
    directory's "levelN" (search.level_of_path), else the record's own; never the file name's number
    (KernelBench's "16_Matmul_with_transposed_A.py" is task 16 of level 1)."""
    return "-" if record.get("level") is None else str(record["level"])


def pick_best(verdicts, precision="any"):
    """Index of the sample that represents a task: fastest correct (under --precision fp32, fastest correct within
    KernelBench's 1e-4 where one is: search.preferred), else first compiled, else first."""
    from search import preferred

    correct = preferred(verdicts, [i for i, v in enumerate(verdicts) if v.correct], precision)
    if correct:
        return max(correct, key=lambda i: (verdicts[i].speedup or 0.0, -i))
    return next((i for i, v in enumerate(verdicts) if v.compiled), 0)


def task_row(record, verdicts, precision="any"):
    """One results.jsonl line from a task's sample verdicts (reward.Verdict)."""
    best = pick_best(verdicts, precision)
    v = verdicts[best]
    return {"task_id": str(record["id"]), "level": task_level(record), "compiled": bool(v.compiled),
            "correct": bool(v.correct), "speedup": v.speedup, "speedup_vs_compile": v.timings.get("speedup_vs_compile"),
            "speedup_vs_max_autotune": v.timings.get("speedup_vs_max_autotune"),
            "max_autotune_ref_ms": v.timings.get("max_autotune_ref_ms"),
            "runtime_ms": v.runtime_ms, "ref_ms": v.ref_ms, "compile_ref_ms": v.timings.get("compile_ref_ms"),
            "max_abs_err": v.max_abs_err, "error_type": v.error_type, "error_msg": v.error_msg[:ERROR_MSG_CHARS],
            "flags": v.flags, "n_samples": len(verdicts), "n_correct": sum(bool(x.correct) for x in verdicts),
            "n_compiled": sum(bool(x.compiled) for x in verdicts), "best_sample": best, "verdict": v.to_dict()}


def plan_of(candidates, verdicts, row):
    """Which teacher plan won a task: {"plan": the best candidate's plan, or the plans of a search's
    winning cover joined by ",", "plans": {plan: runtime_ms, or the error type of a failed plan}}; {} when no
    candidate names a plan (a model, a plain teacher). The plans of one task are one answer, not samples:
    such a row counts one sample (so no pass@k over plans) and keeps n_plans and n_plans_correct."""
    best = candidates[row["best_sample"]]
    search = best.get("search") or {}
    tags = [p for p in search.get("plans") or [] if p]
    plan = best.get("plan") or (",".join(tags) if tags else None)
    tried = {c["plan"]: (v.runtime_ms if v.correct else v.error_type) for c, v in zip(candidates, verdicts)
             if c.get("plan")}
    out = {"plan": plan, "plans": tried or (search.get("stats") or {}).get("whole_plans") or {}} \
        if plan or tried else {}
    if tried:
        out.update(n_plans=row["n_samples"], n_plans_correct=row["n_correct"], n_samples=1,
                   n_correct=int(row["correct"]))
    return out


def read_rows(path):
    """Finished rows of a results.jsonl; a torn last line (a crash mid-write) is ignored."""
    rows = {}
    if not os.path.isfile(path):
        return rows
    with open(path) as f:
        for line in f:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and "task_id" in row:
                rows[row["task_id"]] = row
    return rows


def append_jsonl(path, rows):
    with open(path, "a") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _repair_tail(path):
    """A crash can leave a torn line without a newline; end it so the next append starts a fresh line."""
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        with open(path, "rb+") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")


# ----------------------------------------------------------------------------------------------------
# Proposers: policy.py's (--policy: solutions, reference, teacher, model, checkpoint), or search.py's search
# over one of them (--search). policy.py loads torch, so it is imported where a proposer is needed.


def search_answers(records, proposer, judge, args):
    """--search: one answer per task from search.py, which samples fragments through `proposer`
    and verifies them with `judge`; the chunk's tasks are searched together (search.search_tasks: one judge
    call a round serves all of them). Contract: search_tasks(records, proposer, judge, samples=, seed=,
    sample_budget=, time_budget_s=, logs=) returns per record a result dict ("kind" "hybrid" with "solution"
    and the judge's end-to-end "verdict" of it on the task, or "failed") or the exception that ended its
    search. The found solution's verdict is the row's (candidate key "verdict", which reward.judge_candidates
    takes as it is: not judged twice); the winner is
    the fastest correct of the candidates the search measured, so its time is the best of a few measurements
    (a small optimistic bias, where plans are close). An exception is that task's failure: SearchError (a task
    the search cannot handle) is "search_error", anything else "search_bug". Prints one line when a
    task's search starts and one when it ends (a KernelBench level-2 task can take minutes)."""
    import policy
    import search
    from reward import Verdict

    t0, results = time.time(), [{} for _ in records]

    def logger(rec, result):
        def log(event):
            if event.get("event") == "start":
                print(f"search | {rec['id']} | ops {event['n_ops']} | fragments {event['fragments']} "
                      f"(skipped {event['skipped']}) | budget {args.search_budget or '-'} samples, "
                      f"{args.search_time_budget_s or '-'} s", flush=True)
            elif event.get("event") == "result":
                result.update(event)
        return log
    got = search.search_tasks(records, proposer, judge, samples=args.samples, seed=args.seed,
                              sample_budget=args.search_budget, time_budget_s=args.search_time_budget_s,
                              order=args.search_order, beam=args.search_beam or search.BEAM, precision=args.precision,
                              progress=lambda line: print(f"search | {line}", flush=True),
                              logs=[logger(rec, res) for rec, res in zip(records, results)])
    out = []
    for rec, res, result in zip(records, got, results):
        if isinstance(res, search.SearchError):
            answer = policy.failure("search_error", res)
        elif isinstance(res, Exception):  # a search bug: this task's failed row, the run goes on
            answer = policy.failure("search_bug", res)
        elif res.get("kind") == "hybrid" and res.get("solution"):
            answer = dict(policy.answer(res["solution"]), verdict=Verdict.from_dict(res["verdict"]))
        else:
            answer = policy.no_answer("search_failed", "search found no correct program")
        stats = result.get("stats") or {}
        answer["search"] = {k: result.get(k) for k in ("kind", "cover", "stats", "plans")} if result else None
        print(f"search | {rec['id']} | {result.get('kind') or answer['error_type']} | kernels {stats.get('kernels', '-')} "
              f"| cover {search._cover_str(result.get('cover'))} | plans {','.join(map(str, result.get('plans') or [])) or '-'} "
              f"| samples {stats.get('samples', '-')} | "
              f"{'stopped: ' + stats['stopped'] + ' | ' if stats.get('stopped') else ''}{stats.get('wall_s', '-')} s",
              flush=True)
        out.append([answer])
    print(f"search | {len(records)} tasks searched together in {time.time() - t0:.1f} s", flush=True)
    return out


# ----------------------------------------------------------------------------------------------------
# Progress lines (judging itself is reward.judge_candidates, shared with search.py)


def fmt_speed(x, measured):
    if not measured:
        return "not measured"
    return "-" if x is None else f"{x:.2f}x"


def progress_line(done, total, row, speed_measured):
    return (f"task {done:04d}/{total:04d} | {row['task_id']} | level {row['level']} | "
            f"compiled {int(row['compiled'])} | "
            f"correct {row['n_correct']}/{row['n_samples']} | speedup {fmt_speed(row['speedup'], speed_measured)} | "
            f"error {row['error_type'] or '-'}")


# ----------------------------------------------------------------------------------------------------
# Report and plots


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def level_table(agg, speed_measured, compile_measured, autotune=None):
    """Markdown rows: one per level and one for all tasks. autotune: whether max-autotune was asked for (its
    columns then show "-" where it failed everywhere); None: where some row measured it."""
    head = ["level", "tasks", "compiled", "Acc", "Acc at 1e-4"] + [f"fast_{p:g}" for p in FAST_PS[1:]] + \
        ["geomean speedup"]
    autotune = "geomean_speedup_vs_max_autotune" in agg["overall"] if autotune is None else autotune
    if compile_measured:
        head += [f"fast_{p:g} vs compile" for p in FAST_PS[1:]] + ["geomean vs compile"]
    if autotune:
        head += [f"fast_{p:g} vs max-autotune" for p in FAST_PS[1:]] + ["geomean vs max-autotune"]
    ks = sorted({k for a in [agg["overall"]] for k in a if k.startswith("pass@")}, key=lambda k: int(k[5:]))
    head += ks
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, a in list(agg["levels"].items()) + [("all", agg["overall"])]:
        cells = [f"**{name}**" if name == "all" else name, str(a["n_tasks"]), _pct(a["compiled"]), _pct(a["acc"]),
                 _pct(a.get("acc_kb_tol"))]
        for suffix, measured in [("", speed_measured)] + ([("_vs_compile", True)] if compile_measured else []) \
                + ([("_vs_max_autotune", True)] if autotune else []):
            for p in FAST_PS[1:]:
                cells.append(_pct(a.get(f"fast_{p:g}{suffix}")) if measured else "not measured")
            g = a.get(f"geomean_speedup{suffix}")
            cells.append(("-" if g is None else f"{g:.3f}x") if measured else "not measured")
        cells += [_pct(a.get(k)) for k in ks]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def short_message(row, chars=160):
    """A row's error message on one line, fit for a markdown table cell."""
    msg = " ".join(str(row.get("error_msg") or "").split())
    msg = msg if len(msg) <= chars else msg[:chars - 3] + "..."
    return msg.replace("|", "\\|") or "-"


def write_report(out_dir, rows, agg, run, speed_measured, compile_measured, plots):
    a = run["args"]
    gpus = ", ".join(g["name"] for g in run.get("gpus", [])) or "none (CPU)"
    errors = {}
    for r in rows:
        if not r["correct"]:
            errors.setdefault(r["error_type"] or "unknown", []).append(r)
    lines = [f"# Evaluation: {a['policy']} on {a['tasks']}", "",
             f"Command: `{' '.join(run['argv'])}`", "",
             f"{run['time']} | git {run.get('git_commit')} | code {run.get('code_sha256')} | GPU {gpus} | "
             + (f"{run['ranks']} processes (torchrun) | " if run.get("ranks") else "") + f"python {run['python']} | "
             + " | ".join(f"{k} {v}" for k, v in run["versions"].items() if v), "",
             f"Judge: reward.py, device {a['device']}, policy {a['judge_policy']}, {a['trials']} correctness trials, "
             f"tolerance table fp32 atol = rtol = 1e-2 (reward.TOLERANCES), timeout {a['timeout_s']:g} s, "
             f"{a['workers']} workers, samples per task {a['samples']}, search {a['search']}"
             + (f", {a['time_trials']} timed runs per model (median; L2 flushed; CUDA events; fewer, >= 20 "
                f"(>= 5 for 0.1 s rounds), past {a.get('time_budget_s') or 'the default'} s a candidate), "
                f"baselines {a['baseline']}."
                if speed_measured else "."), ""]
    if a.get("precision") == "fp32":
        lines += ["**Precision-faithful** (--precision fp32): no fp16 plan; of each task's answers those within "
                  "KernelBench's fp32 1e-4 won over faster ones outside it.", ""]
    if a.get("shrink_to"):
        lines += [f"**Judged at small sizes** (--shrink-to {a['shrink_to']}: each task's module-level size constants "
                  f"halved until no tensor holds more than {a['shrink_to']} elements, synth.shrink_sizes). A proxy "
                  "for a machine too small for the tasks, **not a result at the benchmark's sizes**; "
                  + ("with --search the policy saw the shrunk tasks and their fragments." if a.get("search") else
                     "the policy saw the tasks as written."), ""]
    if not speed_measured:
        lines += ["Speed was not measured (CPU: the Triton interpreter); speed columns say so and fast_p for "
                  "p > 0 is absent, not zero.", ""]
    if a["samples"] > 1:
        lines += [f"Each task's row is the best of {a['samples']} samples (Acc = pass@{a['samples']}); "
                  "pass@k is the unbiased estimator.", ""]
    capped = [str(r["task_id"]) for r in rows if r["correct"] and "speedup_above_cap" in (r.get("flags") or [])]
    if run.get("unfinished"):
        lines += [f"**Unfinished: {run['unfinished']} tasks not judged yet** (--stop-after-s); the tables cover the "
                  f"{len(rows)} finished ones. Rerun with the same --out to go on.", ""]
    if capped:  # implausible speedups (reward.SPEEDUP_CAP) are reported as measured but deserve a look
        lines += [f"{len(capped)} correct tasks have speedup above the judge's cap (flag speedup_above_cap), "
                  f"worth checking by hand: {', '.join(capped[:10])}.", ""]
    asked = speed_measured and "max-autotune" in str(a.get("baseline", "")).split(",")
    lines += ["## Per level", "", level_table(agg, speed_measured, compile_measured, asked or None), "",
              "Acc at 1e-4: share of all tasks correct within KernelBench's own fp32 tolerance (atol = rtol = "
              "1e-4): correct and without the judge's flag fails_kb_tol. "
              "fast_p: share of all tasks that are correct and faster than the baseline by more than p "
              "(KernelBench). geomean: over correct tasks.", "", "## Failures by error type", ""]
    if errors:
        lines += ["| error type | tasks | examples |", "|---|---|---|"]
        for et, rs in sorted(errors.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"| {et} | {len(rs)} | {', '.join(str(r['task_id']) for r in rs[:5])} |")
    else:
        lines.append("none")
    failed = [r for r in rows if not r["correct"]]
    if failed:  # every failure named with its cause
        lines += ["", "## Failures", "", "| task | level | error type | message |", "|---|---|---|---|"]
        lines += [f"| {r['task_id']} | {r['level']} | {r['error_type'] or 'unknown'} | {short_message(r)} |"
                  for r in failed]
    autotune = asked or any(r.get("speedup_vs_max_autotune") is not None for r in rows)
    lines += ["", "## Tasks", "", "| task | level | compiled | correct | speedup | "
              + ("vs compile | " if compile_measured else "") + ("vs max-autotune | " if autotune else "")
              + "error |", "|---|---|---|---|---|" + ("---|" if compile_measured else "")
              + ("---|" if autotune else "") + "---|"]
    for r in rows:
        svc = f"{fmt_speed(r.get('speedup_vs_compile'), True)} | " if compile_measured else ""
        svc += f"{fmt_speed(r.get('speedup_vs_max_autotune'), True)} | " if autotune else ""
        lines.append(f"| {r['task_id']} | {r['level']} | {int(r['compiled'])} | {r['n_correct']}/{r['n_samples']} | "
                     f"{fmt_speed(r['speedup'], speed_measured)} | {svc}{r['error_type'] or '-'} |")
    if plots:
        lines += ["", "## Plots", ""] + [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in plots]
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_plots(out_dir, rows, compile_measured):
    """speedup_hist.png (correct tasks, log-x) and fast_p_curve.png (fast_p vs p). Returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [("vs eager", "speedup")] + ([("vs torch.compile", "speedup_vs_compile")] if compile_measured else []) \
        + ([("vs max-autotune", "speedup_vs_max_autotune")]
           if any(r.get("speedup_vs_max_autotune") for r in rows) else [])
    paths = []
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, key in series:
        xs = [r[key] for r in rows if r["correct"] and r.get(key)]
        if xs:
            lo, hi = min(xs + [0.5]), max(xs + [2.0])
            bins = [lo * (hi / lo) ** (i / 30) for i in range(31)]
            ax.hist(xs, bins=bins, alpha=0.6, label=f"{label} (n={len(xs)})")
    ax.set_xscale("log")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("speedup (log scale)")
    ax.set_ylabel("correct tasks")
    ax.legend()
    fig.tight_layout()
    paths.append(os.path.join(out_dir, "speedup_hist.png"))
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    top = max([r.get(k) or 0.0 for r in rows for _, k in series] + [3.0])
    ps = [top * i / 200 for i in range(201)]
    for label, key in series:
        ax.plot(ps, [fast_p(rows, p, key) for p in ps], label=label)
    ax.set_xlabel("speedup threshold p")
    ax.set_ylabel("fast_p (share of all tasks)")
    ax.set_ylim(0, 1)
    ax.legend()
    fig.tight_layout()
    paths.append(os.path.join(out_dir, "fast_p_curve.png"))
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths


# ----------------------------------------------------------------------------------------------------
# CLI


def build_parser():
    import teacher  # its plan flags (teacher imports no torch)

    p = synth.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", required=True,
                   help="synthetic task JSONL, a directory of KernelBench-format .py files (KernelBench/level2), or one")
    p.add_argument("--policy", required=True,
                   help="checkpoint dir | model:ID_OR_PATH | teacher | solutions:DIR | samples:FILE | reference "
                        "(see the docstring)")
    p.add_argument("--out", required=True, help="output directory; rerunning with the same one skips finished tasks")
    p.add_argument("--baseline", default="eager",
                   help="comma list of eager,compile,max-autotune: torch.compile of the reference in its default mode "
                        "and in mode='max-autotune' (compiled once per task and GPU, then cached: "
                        "--baseline-cache), timed like eager; speedup is always vs eager")
    p.add_argument("--search", action="store_true", help="test-time search (search.py) per task")
    p.add_argument("--samples", type=int, default=1, help="samples per task (model policies); pass@k when > 1")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="judge and model device; speed needs cuda")
    p.add_argument("--workers", type=int, default=2, help="judge worker processes")
    p.add_argument("--timeout-s", type=float, default=120.0, help="wall-clock limit per candidate, seconds")
    p.add_argument("--judge-policy", choices=["hybrid", "strict", "partial"], default="hybrid",
                   help="hybrid: torch may run GEMMs, convolutions and dropout beside faithful kernels, Triton does "
                        "the rest (paper); strict: torch only allocates, views and copies; partial: any torch op "
                        "that does not already compute the answer (programs with unreplaced ops, as a search keeps "
                        "them; not what a verdict under hybrid means)")
    p.add_argument("--precision", choices=["any", "fp32"], default="any",
                   help="any: the fastest answer correct at the judge's tolerance (fp32 1e-2, KernelBench v0.1) wins; "
                        "fp32: precision-faithful: no fp16 teacher plan (teacher.FP16_PLANS), and of a task's "
                        "answers (plans, a search's kernels and covers) those also within KernelBench's fp32 1e-4 "
                        "win over faster ones outside it. Reports give Acc at both tolerances either way")
    p.add_argument("--trials", type=int, default=5, help="correctness trials with fresh seeded inputs")
    p.add_argument("--time-trials", type=int, default=100, help="timed runs per model (cuda only)")
    p.add_argument("--stop-after-s", type=float, default=None,
                   help="start no new judging chunk after this many seconds, nor one the last chunk's time says "
                        "would end past it (near the end a smaller chunk that fits goes instead); the report covers "
                        "the finished tasks, and a rerun with the same --out goes on (one level over several device "
                        "calls)")
    p.add_argument("--chunk-size", type=int, default=None,
                   help="tasks judged per chunk (rows are written as each chunk ends); default 2 x --workers, or "
                        "--gen-batch-size for a model. Smaller chunks lose less to a kill and stop nearer "
                        "--stop-after-s")
    p.add_argument("--time-budget-s", type=float, default=None,
                   help="about how long one candidate's timed runs may take, seconds: fewer runs (>= 20; >= 5 "
                        "where one run of candidate and reference takes 0.1 s) for slow programs; default "
                        "reward.TIME_BUDGET_S (2 s). Timing holds the GPU alone, so in a whole-level sweep this sets "
                        "the pace")
    p.add_argument("--seed", type=int, default=0, help="seed of trial inputs, sampling and the teacher")
    teacher.add_plan_flags(p, "each task's plans are all judged and the fastest correct is its row")
    p.add_argument("--teacher-fallback", default=None, choices=teacher.PLANS,
                   help="with --teacher-plans: a plan built only for a task none of whose plans applies or is judged "
                        "correct (e.g. --teacher-plans triton-tf32 --teacher-fallback triton: one-pass TF32 "
                        "convolutions, the ieee kernels for every other task and for a convolution whose TF32 answer "
                        "misses the tolerance)")
    p.add_argument("--reuse-verdicts", default=None, metavar="DIR",
                   help="an earlier eval.py --out on the same tasks, judge settings and reward.py: an answer "
                        "identical to one it recorded for the same task takes that verdict (flag verdict_reused) "
                        "instead of being judged again (train.py's KernelBench evals of RL checkpoints against the "
                        "SFT checkpoint's)")
    p.add_argument("--propose-only", action="store_true",
                   help="write each task's answers to samples.jsonl (verdict null) and judge nothing: no judge "
                        "starts and no results.jsonl is written. bench.py kb-ab then judges and times only the "
                        "answers that differ between such runs (an RL checkpoint against its SFT checkpoint "
                        "without judging the answers they share)")
    p.add_argument("--max-new-tokens", type=int, default=2048, help="generation length limit, tokens")
    p.add_argument("--temperature", type=float, default=None,
                   help="sampling temperature; default 0 (greedy) for --samples 1, else 0.8")
    p.add_argument("--top-p", type=float, default=0.95, help="nucleus sampling mass")
    p.add_argument("--gen-batch-size", type=int, default=16, help="prompts per generation call (model policies)")
    p.add_argument("--engine", default="auto",
                   help="policy.generate engine for model policies (policy.ENGINES); auto = the fast engine on CUDA "
                        "(plain generate made the first gpu-small eval take 211 s), plain generate on CPU")
    p.add_argument("--limit", type=int, default=None, help="evaluate only the first N tasks")
    p.add_argument("--shrink-to", type=int, default=0, metavar="N",
                   help="judge each task at small sizes (synth.shrink_sizes: its module-level size constants halved "
                        "until no tensor holds more than N elements), a CPU proxy of a benchmark too large for the "
                        "machine; a model policy still sees the task as written (the teacher and --search see the "
                        "shrunk task: they compile and run the program at the judge's sizes). Not a KernelBench "
                        "result: its report says so. 0 = the task's own sizes")
    p.add_argument("--level", default=None,
                   help="level recorded for every task; default: the task directory's levelN (KernelBench/level2 -> "
                        "2), else the record's own, else '-'")
    p.add_argument("--search-budget", type=int, default=None,
                   help="--search: most policy samples (fragment candidates) judged per task; the whole program is "
                        "tried first, then fragments shortest first (unbounded: every fragment of <= 5 ops, 15 for "
                        "5 ops, then up to 8 hybrids end to end)")
    p.add_argument("--search-order", choices=("shortest", "epilogue-first"), default="shortest",
                   help="--search: fragment order after the whole program: shortest first, or the fragments "
                        "without a GEMM/convolution first (a policy's KernelBench-sized conv kernel is slow to "
                        "judge and rarely beats cuDNN)")
    p.add_argument("--search-beam", type=int, default=None, metavar="B",
                   help="--search: covers judged end to end a round per task (default 4, search.py's --beam); a "
                        "second round of B follows only if none is correct")
    p.add_argument("--search-time-budget-s", type=float, default=None,
                   help="--search: wall-clock limit of a task's fragment phase, seconds (checked between batches)")
    p.add_argument("--baseline-cache", default=default_baseline_cache(),
                   help="JSON cache of eager/torch.compile reference times per task (keyed by task hash, GPU and "
                        "versions), reused across runs; 'none' disables it")
    return p


def cache_file(name: str) -> str:
    """$XDG_CACHE_HOME/drtriton-lite/<name> (~/.cache/... when XDG_CACHE_HOME is unset): where the caches kept across
    runs live (the baselines here, the teacher's verdicts for train.py's pipeline)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "drtriton-lite", name)


def default_baseline_cache():
    """$XDG_CACHE_HOME/drtriton-lite/baselines.json (cache_file)."""
    return cache_file("baselines.json")


def check_args(args):
    """Validate flags and compute derived values; raises UsageError."""
    baselines = [b.strip() for b in args.baseline.split(",") if b.strip()]
    known = ["eager", "compile", "max-autotune"]
    bad = [b for b in baselines if b not in known]
    if bad or not baselines:
        raise UsageError(f"--baseline takes a comma list of {','.join(known)}; got {args.baseline!r}")
    args.baseline = ",".join(sorted(set(baselines) | {"eager"}, key=known.index))
    for name, lo in [("samples", 1), ("workers", 1), ("trials", 1), ("time_trials", 0), ("gen_batch_size", 1),
                     ("max_new_tokens", 1)]:
        if getattr(args, name) < lo:
            raise UsageError(f"--{name.replace('_', '-')} must be >= {lo}, got {getattr(args, name)}")
    if args.timeout_s <= 0:
        raise UsageError(f"--timeout-s must be > 0, got {args.timeout_s}")
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UsageError(f"--chunk-size must be >= 1, got {args.chunk_size}")
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be >= 1, got {args.limit}")
    if args.shrink_to < 0:
        raise UsageError(f"--shrink-to must be >= 0 (0: the tasks' own sizes), got {args.shrink_to}")
    if args.search_budget is not None and args.search_budget < 1:
        raise UsageError(f"--search-budget must be >= 1, got {args.search_budget}")
    if args.search_beam is not None and args.search_beam < 1:
        raise UsageError(f"--search-beam must be >= 1, got {args.search_beam}")
    for name in ("stop_after_s", "time_budget_s", "search_time_budget_s"):
        if getattr(args, name) is not None and getattr(args, name) < 0:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if (args.search_budget is not None or args.search_time_budget_s is not None or args.search_beam is not None
            or args.search_order != "shortest") and not args.search:
        raise UsageError("--search-budget / --search-time-budget-s / --search-order / --search-beam need --search")
    args.baseline_cache = None if str(args.baseline_cache).lower() in ("none", "") else \
        os.path.abspath(os.path.expanduser(args.baseline_cache))
    import policy

    try:
        # stored expanded ("all" names the plans of this version), so a resume compares the same names
        if args.teacher_plans is not None:
            every = args.teacher_plans.strip() == "all"
            plans = policy.teacher_plans(args.teacher_plans)
            if args.precision == "fp32":
                import teacher

                if every:
                    plans = tuple(p for p in plans if p not in teacher.FP16_PLANS)
                low = [p for p in plans + (args.teacher_fallback,) if p in teacher.FP16_PLANS]
                if low:
                    raise UsageError(f"--precision fp32 keeps fp16 plans out; drop {', '.join(low)} from "
                                     "--teacher-plans/--teacher-fallback (or use --precision any)")
            args.teacher_plans = ",".join(plans)
        args.policy_kind = policy.check_policy_spec(args.policy)
    except policy.PolicySpecError as e:
        raise UsageError(str(e)) from None
    if args.teacher_plans is not None and args.policy != "teacher":
        raise UsageError("--teacher-plans needs --policy teacher")
    if args.teacher_fallback is not None and args.teacher_plans is None:
        raise UsageError("--teacher-fallback needs --teacher-plans")
    if args.propose_only and (args.search or args.reuse_verdicts or args.teacher_fallback):
        raise UsageError("--propose-only judges nothing, so it takes no --search, --reuse-verdicts or "
                         "--teacher-fallback (each needs the judge)")
    if args.reuse_verdicts is not None:
        args.reuse_verdicts = os.path.abspath(os.path.expanduser(args.reuse_verdicts))
        check_reuse_dir(args)  # a missing or mismatched folder is a usage error now, not after a model loads
    if args.samples > 1 and args.policy_kind not in ("model", "checkpoint", "samples") and not args.search:
        raise UsageError(f"--samples {args.samples} needs a model policy; {args.policy!r} gives one answer per task")
    if args.temperature is None:
        args.temperature = 0.0 if args.samples == 1 else 0.8
    if args.samples > 1 and args.temperature == 0 and not args.search and args.policy_kind != "samples":
        raise UsageError("--samples > 1 with --temperature 0 would repeat one greedy answer")
    if not os.path.exists(args.tasks):
        raise UsageError(f"--tasks {args.tasks!r} does not exist")
    synth.check_out_path(args.out, "--out", is_dir=True)  # before a model loads or a task is judged
    if args.policy_kind == "checkpoint":  # a torn policy.json is named now, before --out is made
        policy.read_policy_json(policy.resolve_checkpoint(args.policy))
    if args.policy_kind == "model" and not os.path.isdir(args.policy[len("model:"):]):
        try:  # a hub id: fails in seconds when it is not cached and the hub cannot be reached
            policy.check_model_source(args.policy[len("model:"):])
        except policy.ModelNotFoundError as e:
            raise UsageError(f"--policy {args.policy}: {e}") from None
    # Absolute paths: run.json is re-read on resume, maybe from another working directory.
    args.tasks, args.out = os.path.abspath(args.tasks), os.path.abspath(args.out)
    if args.policy_kind in ("solutions", "samples"):
        kind = args.policy_kind + ":"
        args.policy = kind + os.path.abspath(args.policy[len(kind):])
    elif args.policy_kind == "checkpoint":
        args.policy = os.path.abspath(args.policy)
    elif args.policy_kind == "model" and os.path.isdir(args.policy[len("model:"):]):  # a local path, not a hub id
        args.policy = "model:" + os.path.abspath(args.policy[len("model:"):])
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise UsageError("--device cuda but torch sees no CUDA device")
    if args.search:
        try:
            import search
        except ImportError as e:
            raise UsageError(f"--search needs search.py, which cannot be imported: {e}") from None
        if not hasattr(search, "search_tasks"):
            raise UsageError("--search: search.py has no search_tasks(records, proposer, judge, samples=, seed=)")
    args.speed_measured = args.device == "cuda" and args.time_trials > 0
    args.compile_measured = args.speed_measured and "compile" in args.baseline.split(",")
    args.autotune_measured = args.speed_measured and "max-autotune" in args.baseline.split(",")
    return args


def load_tasks(path, limit, level=None):
    """Task records (search.read_task_set: a directory's levelN or --level sets the level; an unreadable .py
    file is one failed task, "import_error"). Raises UsageError for a task set that cannot be read at all."""
    from search import read_task_set

    try:
        records = read_task_set(path, level)
    except (OSError, ValueError) as e:
        raise UsageError(f"--tasks: {e}") from None
    ids = [str(r["id"]) for r in records]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise UsageError(f"--tasks: duplicate task ids {dup[:5]}")
    return records[:limit] if limit else records


# what --reuse-verdicts must share
REUSE_SAME = ("tasks", "device", "judge_policy", "baseline", "trials", "seed", "shrink_to")


def check_reuse_dir(args) -> None:
    """--reuse-verdicts DIR must be an eval.py --out (run.json and samples.jsonl) that judged the same tasks with
    the same judge settings (REUSE_SAME; --workers may differ) and the same reward.py (run.json's judge_sha256);
    UsageError otherwise."""
    d = args.reuse_verdicts
    run_path = os.path.join(d, "run.json")
    if not (os.path.isfile(run_path) and os.path.isfile(os.path.join(d, "samples.jsonl"))):
        raise UsageError(f"--reuse-verdicts {d}: not an eval.py --out folder (no run.json and samples.jsonl)")
    from search import code_digest
    with open(run_path) as f:
        run = json.load(f)
    old, new = _identity(run["args"]), _identity(vars(args))
    diff = [k for k in REUSE_SAME if old.get(k) != new.get(k)]
    if diff:
        raise UsageError(f"--reuse-verdicts {d} judged with other settings ("
                         + ", ".join(f"{k}: {old.get(k)!r} vs {new.get(k)!r}" for k in diff) + ")")
    judge = code_digest(names=("reward.py",))
    if run.get("judge_sha256") != judge:
        raise UsageError(f"--reuse-verdicts {d} was judged by another version of reward.py (judge_sha256 "
                         f"{run.get('judge_sha256')} vs {judge}): its verdicts may not hold")


def earlier_verdicts(d) -> dict:
    """{(task id, completion text): verdict dict} of the answers the samples.jsonl of eval.py --out `d` recorded
    (--reuse-verdicts, checked by check_reuse_dir)."""
    out = {}
    with open(os.path.join(d, "samples.jsonl")) as f:
        for line in f:
            try:
                s = json.loads(line)
            except json.JSONDecodeError:  # a torn last line
                continue
            if isinstance(s, dict) and s.get("completion") is not None and isinstance(s.get("verdict"), dict):
                out[(str(s.get("task_id")), s["completion"])] = s["verdict"]
    return out


def reuse_verdicts(chunk, candidates, earlier: dict) -> int:
    """Attach to each model answer identical to one `earlier` recorded for its task that verdict (flag
    verdict_reused), so judge_candidates does not judge it again; returns how many."""
    from reward import Verdict

    n = 0
    for rec, cands in zip(chunk, candidates):
        for c in cands:
            v = earlier.get((str(rec["id"]), c["text"])) if c.get("completion") and c.get("verdict") is None else None
            if v is not None:
                c["verdict"] = Verdict.from_dict(dict(v, flags=list(v.get("flags") or []) + ["verdict_reused"]))
                n += 1
    return n


def open_out_dir(args):
    """Create --out and write run.json; with finished rows already there, the identity flags must match."""
    from search import run_info, write_json_atomic

    was_proposed = answers_only(args.out) if os.path.isfile(os.path.join(args.out, "samples.jsonl")) else None
    if was_proposed is not None and was_proposed != args.propose_only:  # the two kinds of rows must not mix
        raise UsageError(f"--out {args.out} holds " + ("answers only (--propose-only): judge them with --policy "
                         f"samples:{args.out} and another --out" if was_proposed else
                         "judged answers; --propose-only needs another --out"))
    os.makedirs(os.path.join(args.out, "solutions"), exist_ok=True)
    path = os.path.join(args.out, "run.json")
    if os.path.isfile(path) and os.path.isfile(os.path.join(args.out, "results.jsonl")):
        with open(path) as f:
            previous = json.load(f)
        old, new = _identity(previous["args"]), _identity(vars(args))
        diff = [k for k in IDENTITY_FLAGS if old.get(k) != new[k]]
        if diff:
            raise UsageError(f"--out {args.out} holds results of a different run (differs in "
                             + ", ".join(f"{k}: {old.get(k)!r} vs {new[k]!r}" for k in diff)
                             + "); choose another --out")
    else:
        previous = None
    run = {"args": vars(args), "argv": ["python", "eval.py"] + args.argv, **run_info()}
    if world_size() > 1:  # torchrun: the tasks were shared out over this many processes, one judge each
        run["ranks"] = world_size()
    if previous is not None:  # a resumed evaluation: keep what produced the first part too
        run["earlier_runs"] = previous.pop("earlier_runs", []) + [previous]
    write_json_atomic(path, run)
    return run


def _identity(args_dict):
    """The identity flags of a run's args, paths made absolute (a run.json written before paths were stored
    absolute is read relative to the working directory)."""
    from search import BEAM

    out = {k: args_dict.get(k) for k in IDENTITY_FLAGS}
    out["teacher_dot_precision"] = out["teacher_dot_precision"] or "ieee"  # run.json files from before the flag
    out["search_order"] = out["search_order"] or "shortest"  # ... and before this one
    out["search_beam"] = out["search_beam"] or BEAM  # ... and this one (search.py's default beam)
    out["shrink_to"] = out["shrink_to"] or 0  # ... and --shrink-to
    out["precision"] = out["precision"] or "any"  # ... and --precision
    out["tasks"] = os.path.abspath(out["tasks"])
    policy = str(out["policy"])
    if policy.startswith("solutions:"):
        out["policy"] = "solutions:" + os.path.abspath(policy[len("solutions:"):])
    elif policy.startswith("model:"):
        if os.path.isdir(policy[len("model:"):]):
            out["policy"] = "model:" + os.path.abspath(policy[len("model:"):])
    elif policy not in ("teacher", "reference"):
        out["policy"] = os.path.abspath(policy)
    return out


def judge_kwargs(args):
    """Judge keyword arguments for the flags; baseline_cache only where the judge takes it (reward.py's cache of
    reference times is landing separately)."""
    import inspect

    from reward import Judge

    kw = dict(workers=args.workers, device=args.device, timeout_s=args.timeout_s, policy=args.judge_policy,
              trials=args.trials, time_trials=args.time_trials if args.speed_measured else 0,
              compile_baseline=args.compile_measured, seed=args.seed)
    if getattr(args, "autotune_measured", False):
        kw["autotune_baseline"] = True
    if args.time_budget_s is not None:
        kw["time_budget_s"] = args.time_budget_s
    if "baseline_cache" in inspect.signature(Judge.__init__).parameters:
        kw["baseline_cache"] = args.baseline_cache
    return kw


class RestartingJudge:
    """A reward.Judge that is started again when it has closed itself. The judge closes after three failed
    worker starts in a row (reward.Judge._startup_failed), e.g. on a CPU box overloaded for a while; in a
    100-task KernelBench run (hours on the interpreter) that must not end the run. A call that finds
    the judge closed, or that fails because it just closed, gets one fresh judge and one retry; a second failure
    raises (judge_candidates then records the chunk's tasks as "judge_error"). Everything else is the judge's."""

    def __init__(self, make_judge):
        self._make, self._judge, self.restarts = make_judge, make_judge(), 0

    def __getattr__(self, name):  # device, workers, time_trials, ... of the current judge
        return getattr(self._judge, name)

    def _restart(self, why):
        print(f"note: the judge closed ({why}); starting a fresh one", file=sys.stderr, flush=True)
        self._judge.close()
        self._judge = self._make()
        self.restarts += 1

    def verify_many(self, pairs, **kw):
        pairs = list(pairs)
        for attempt in range(2):
            if getattr(self._judge, "closed", False):
                self._restart("found closed")
            try:
                return self._judge.verify_many(pairs, **kw)
            except RuntimeError as e:
                if attempt or not getattr(self._judge, "closed", False):
                    raise
                self._restart(str(e).splitlines()[0][:200])

    def verify(self, task_source, solution_source):
        return self.verify_many([(task_source, solution_source)], progress=False)[0]

    def close(self):
        self._judge.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def prepare_chunk(chunk, needs_program, shrink_to=0, shrink_prompt=False):
    """Per task, None when it is ready to propose for, else its failure answer ([candidate]): an unreadable
    file, or (teacher and search, which work on the traced program) a source synth.load_task cannot trace, or
    (--shrink-to) a task that cannot run at small sizes. Traced programs are kept in record["program"], so teacher
    and search trace each task once; shrunk sources in record["judge_source"] (judge_records). shrink_prompt
    (--search or the teacher with --shrink-to): the shrunk source also replaces the task's own before it is
    traced, since the search runs the program and builds its fragments, and the teacher writes its kernels, at the
    sizes the judge will use (a CPU proxy of a KernelBench level)."""
    import synth
    from policy import failure, no_answer
    from search import trace_task

    out = []
    for rec in chunk:
        if rec.get("import_error"):
            out.append([no_answer("import_error", rec["import_error"])])
            continue
        if shrink_to and "judge_source" not in rec:
            try:
                rec["judge_source"], rec["shrunk"] = synth.shrink_sizes(rec["source"], shrink_to)
            except Exception as e:  # noqa: BLE001 -- the task's reference fails on 'meta' or at the smaller sizes
                out.append([failure("shrink_error", e)])
                continue
            if shrink_prompt:
                rec["source"] = rec["judge_source"]
                rec.pop("program", None)   # traced below from the shrunk source
        if needs_program and not (rec.get("program") and "nodes" in rec["program"]):
            try:
                trace_task(rec)
            except Exception as e:  # noqa: BLE001 -- a task the importer cannot read: its failed row
                out.append([failure("import_error", e)])
                continue
        out.append(None)
    return out


def judge_records(chunk):
    """The records the judge sees: with --shrink-to, each task's shrunk source (prepare_chunk) in place of its own."""
    return [dict(rec, source=rec["judge_source"]) if "judge_source" in rec else rec for rec in chunk]


def make_proposer(args):
    """(--policy's proposer, tasks a chunk: --chunk-size, else --gen-batch-size for a model, else 2 x --workers,
    whether the proposer or the search works on the traced program)."""
    import policy

    try:
        proposer = policy.make_policy(args.policy, args)
    except policy.PolicySpecError as e:  # --engine, checked when the model loads
        raise UsageError(str(e)) from None
    except policy.ModelNotFoundError as e:
        raise UsageError(f"--policy {args.policy}: {e}") from None
    chunk_size = args.chunk_size or (args.gen_batch_size if isinstance(proposer, policy.ModelPolicy)
                                     else 2 * args.workers)
    return proposer, chunk_size, args.search or isinstance(proposer, policy.TeacherPolicy)


def chunk_candidates(chunk, needs_program, args, answer):
    """Per task of `chunk`, its candidates: prepare_chunk's failure answer, else what `answer(records)` gives for
    the tasks ready to propose for (one list of candidates a task, in order)."""
    candidates = prepare_chunk(chunk, needs_program, args.shrink_to,
                               shrink_prompt=args.search or args.policy == "teacher")
    live = [i for i, c in enumerate(candidates) if c is None]
    if live:
        for i, cands in zip(live, answer([chunk[i] for i in live])):
            candidates[i] = cands
    return candidates


def sample_rows(chunk, candidates, verdicts=None):
    """samples.jsonl rows of a chunk: one per candidate, its completion's text, its verdict (None and the
    proposer's error type where nothing was judged: --propose-only), its traceback and search record if any."""
    rows = []
    for i, (rec, cands) in enumerate(zip(chunk, candidates)):
        for j, c in enumerate(cands):
            row = {"task_id": str(rec["id"]), "sample": j, "completion": c["text"] if c["completion"] else None}
            row.update({"verdict": verdicts[i][j].to_dict()} if verdicts is not None
                       else {"verdict": None, "error_type": c.get("error_type")})
            row.update({k: c[k] for k in ("traceback", "search") if c.get(k) is not None})
            rows.append(row)
    return rows


def answers_only(out_dir):
    """Whether an eval.py --out holds answers that were never judged (its run.json says --propose-only); None
    where it has no readable run.json."""
    try:
        with open(os.path.join(out_dir, "run.json")) as f:
            return bool((json.load(f).get("args") or {}).get("propose_only"))
    except (OSError, ValueError, AttributeError):
        return None


def chunks(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def fitting_chunk(size, workers, left_s, last_s=0.0, last_n=0):
    """How many tasks the next chunk takes under --stop-after-s: `size`, or fewer where the time `left_s` cannot
    hold a chunk of `size`; 0: start none. A chunk of n tasks on w workers is taken to cost about (n + w) task
    times (n tasks' share of the pool, plus its tail: the last tasks run with idle workers beside them and the
    exclusive retries run alone), one task time being what the last chunk (last_s for last_n tasks) gave. Before
    any chunk has run nothing is known: one task per worker (at most `size`) if there is any time left, so the
    estimate comes early: 12 level-2 tasks at KernelBench's sizes can outlast a whole device call."""
    if left_s <= 0:
        return 0
    if last_n <= 0 or last_s <= 0:
        return max(1, min(size, workers))
    task_s = last_s / (last_n + workers)
    return max(0, min(size, int(left_s / task_s) - workers))


# ----------------------------------------------------------------------------------------------------
# Measuring a policy in training (train.py's RL, whose curriculum these rates drive): greedy pass@1 and pass@N of
# each level's held-out tasks, each rank answering its share (`args` holds train.py's flags); and TensorBoardLog,
# the optional TensorBoard copy of train.py's metrics rows, these held-out columns among them.


def heldout_eval(pol, judge, heldout_by_level, args, step) -> dict:
    """Held-out measures of every level at once: pass1 {level: greedy pass@1} (heldout_pass1), and with
    --heldout-samples N also pass_k {level: pass@N} of N samples a task at --rollout-temperature."""
    out = {"pass1": {str(lv): heldout_pass1(pol, judge, recs, args, step) for lv, recs in heldout_by_level.items()
                     if recs}}
    if args.heldout_samples:
        out["pass_k"] = {str(lv): heldout_pass_k(pol, judge, recs, args, step) for lv, recs in heldout_by_level.items()
                         if recs}
    return out


def heldout_pass1(pol, judge, records, args, step) -> float | None:
    """pass@1 (greedy at --gen-temperature 0) of the held-out tasks of one level. Under torchrun each rank answers
    its share (rank_share) with its own judge and the counts are reduced, so every rank gets the same."""
    import policy
    from reward import earns

    if not records:
        return None
    mine, correct = rank_share(records), 0
    if mine:
        prompts = [policy.render_prompt(pol.tokenizer, r["source"], pol.source_form) for r in mine]
        samples = policy.generate(pol, prompts, args.rollout_max_new_tokens, args.gen_temperature, args.gen_top_p,
                                  seed=args.seed + step, batch_size=args.gen_batch_size, engine=args.engine,
                                  logprob_chunk_tokens=args.logprob_chunk_tokens)
        verdicts = judge.verify_many([(r["source"], s.text) for r, s in zip(mine, samples)], completions=True,
                                     progress=False)
        correct = sum(earns(v) for v in verdicts)
    sums = all_reduce_dict({"correct": correct, "n": len(mine)})
    return sums["correct"] / sums["n"]


def heldout_pass_k(pol, judge, records, args, step) -> float | None:
    """Mean over the tasks of pass@N (pass_at_k), N = --heldout-samples samples a task at --rollout-temperature.
    Under torchrun each rank samples its share of the tasks and the sums are reduced."""
    import policy
    from reward import rollout_classes

    if not records:
        return None
    n, mine, total = args.heldout_samples, rank_share(records), 0.0
    if mine:
        prompts = [policy.render_prompt(pol.tokenizer, r["source"], pol.source_form) for r in mine for _ in range(n)]
        samples = policy.generate(pol, prompts, args.rollout_max_new_tokens, args.rollout_temperature,
                                  args.rollout_top_p, seed=args.seed * 7 + step, batch_size=args.gen_batch_size,
                                  engine=args.engine, logprob_chunk_tokens=args.logprob_chunk_tokens)
        verdicts = judge.verify_many([(mine[i // n]["source"], s.text) for i, s in enumerate(samples)],
                                     completions=True, progress=False)
        classes = rollout_classes(verdicts, args)
        total = sum(pass_at_k(n, classes[t * n:(t + 1) * n].count("correct"), n) for t in range(len(mine)))
    sums = all_reduce_dict({"total": total, "n": len(mine)})
    return sums["total"] / sums["n"]


def heldout_row(pol, judge, heldout_by_level, level, args, step) -> dict:
    """The held-out columns of a train.py RL metrics row (heldout_eval): heldout_level, heldout_pass1 (`level`'s
    greedy pass@1, or with the mixed curriculum, level "mixed", the rate over every held-out task), the per-level
    rates, and with --heldout-samples N pass@N per level and heldout_k = N."""
    held = heldout_eval(pol, judge, heldout_by_level, args, step)
    pass1 = held["pass1"].get(str(level)) if level != "mixed" else heldout_mean(held["pass1"], heldout_by_level)
    row = {"heldout_level": level, "heldout_pass1": pass1, "heldout_pass1_by_level": held["pass1"]}
    if "pass_k" in held:
        row.update(heldout_pass_k_by_level=held["pass_k"], heldout_k=args.heldout_samples)
    return row


def heldout_mean(by_level, heldout_by_level) -> float | None:
    """The pass rate over every held-out task: per-level rates weighted by their task counts."""
    pairs = [(x, len(heldout_by_level[int(lv)])) for lv, x in by_level.items() if x is not None]
    n = sum(c for _, c in pairs)
    return sum(x * c for x, c in pairs) / n if n else None


class TensorBoardLog:
    """train.py --tensorboard: every numeric metric of a row as a scalar under <run>/tensorboard (per-level held-out
    rates as heldout/pass1_L<level>); a no-op without the flag. tensorboard is optional: imported only here."""

    def __init__(self, run_dir, enabled):
        self.writer = None
        if enabled and is_main():
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError as e:
                raise UsageError(f"--tensorboard needs the tensorboard package (pip install tensorboard): {e}") from None
            self.writer = SummaryWriter(os.path.join(run_dir, "tensorboard"))

    def log(self, row):
        if self.writer is None:
            return
        for key, value in row.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "step":
                self.writer.add_scalar(f"rl/{key}", value, row["step"])

    def log_eval(self, row):
        if self.writer is None:
            return
        for name in ("heldout_pass1_by_level", "heldout_pass_k_by_level"):
            for lv, value in (row.get(name) or {}).items():
                if value is not None:
                    self.writer.add_scalar(f"heldout/{name[len('heldout_'):-len('_by_level')]}_L{lv}", value,
                                           row["step"])

    def close(self):
        if self.writer is not None:
            self.writer.close()


# ----------------------------------------------------------------------------------------------------
# Several processes: torchrun's process group, shared with train.py. Without torchrun's env vars
# (WORLD_SIZE unset or 1) no group is made, every helper below is a no-op, and torch is not even imported here.

# How long a rank waits in a collective. Ranks wait for each other at barriers: while rank 0 alone builds the
# pipeline's data or writes a checkpoint, and while one rank still judges its share of an evaluation (a KernelBench
# level can take hours on a slow share), so torch's default (10 min for NCCL) would kill healthy runs.
DIST_TIMEOUT_S = 6 * 3600


def _group():
    """torch.distributed when a process group is up, else None."""
    if "torch" not in sys.modules:  # nothing has imported torch, so no group can exist
        return None
    import torch.distributed as dist

    return dist if dist.is_available() and dist.is_initialized() else None


def init_distributed(device_type):
    """Join the process group torchrun describes (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK): NCCL
    when device_type is "cuda", gloo on the CPU. A no-op without WORLD_SIZE > 1, and when a group is already up.
    Returns this rank's device (cuda:LOCAL_RANK, or cpu), or None for a single process.

    On CUDA the process is pinned to cuda:LOCAL_RANK (torch.cuda.set_device, so a bare "cuda" means that GPU too).
    reward.Judge takes "cuda" without an index and its workers inherit CUDA_VISIBLE_DEVICES, so once this process's
    own CUDA context exists, CUDA_VISIBLE_DEVICES is narrowed to this rank's GPU: every judge worker, and any
    subprocess started later (teacher.py), runs on the rank's GPU, while this process keeps its view of all GPUs
    (CUDA read the variable when it started; the GPU count is read before the change, for torch's cache)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1 or _group() is not None:
        return None
    import datetime

    import torch
    import torch.distributed as dist

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    timeout = datetime.timedelta(seconds=DIST_TIMEOUT_S)
    if device_type != "cuda":
        dist.init_process_group("gloo", timeout=timeout)
        return torch.device("cpu")
    visible = [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    torch.cuda.init()
    n_gpus = torch.cuda.device_count()
    if local_rank >= n_gpus:
        raise UsageError(f"LOCAL_RANK {local_rank} but this machine shows {n_gpus} GPUs: run torchrun with "
                         f"--nproc-per-node <= {n_gpus}")
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", timeout=timeout, device_id=device)
    dist.barrier()  # the communicator exists before the environment changes
    os.environ["CUDA_VISIBLE_DEVICES"] = visible[local_rank].strip() if visible else str(local_rank)
    return device


def cleanup_distributed(finished: bool = False):
    """Leave the process group (the end of a torchrun script); a no-op for a single process. finished: the run
    ended normally on this rank, so every rank meets at a barrier first and none tears its connections down while
    a peer is still using them (a rank of the gloo tests once aborted at exit, "terminate called without an active
    exception"); after an error there is no barrier, which a failed peer would never reach."""
    dist = _group()
    if dist is not None:
        if finished:
            dist.barrier()
        dist.destroy_process_group()


def rank():
    dist = _group()
    return dist.get_rank() if dist else 0


def world_size():
    dist = _group()
    return dist.get_world_size() if dist else 1


def local_rank():
    return int(os.environ.get("LOCAL_RANK", "0")) if _group() else 0


def is_main():
    """Rank 0, the one that writes shared files (run.json, checkpoints, merged results, reports) and logs."""
    return rank() == 0


def exit_process(code: int):
    """The end of a script that torchrun may have started (train.py, eval.py): a rank of a group of several flushes
    its streams and leaves by os._exit, past the interpreter's teardown; a single process exits as usual. In two CI
    runs a rank that had finished, met its peers at cleanup_distributed's barrier and left the gloo group still
    aborted in that teardown ("terminate called without an active exception", exit -6), and the test failed."""
    if int(os.environ.get("WORLD_SIZE", "1") or 1) > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def barrier():
    dist = _group()
    if dist is not None:
        dist.barrier()


def _comm_device():
    """Where the tensors of a collective live: this rank's GPU for NCCL, the CPU for gloo."""
    import torch

    dist = _group()
    return torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else torch.device("cpu")


def all_reduce_dict(values, op="sum"):
    """{name: number} reduced over the ranks ("sum" or "max"), the same dict of floats on every rank; a single
    process gets `values` back as given (ints stay ints). A name missing on a rank counts 0 there for "sum"
    (-inf for "max"), so ranks may pass different names (e.g. the static-check rules their verdicts hit)."""
    dist = _group()
    if dist is None:
        return dict(values)
    import torch

    names = set()
    for keys in all_gather_object(sorted(values)):
        names.update(keys)
    names = sorted(names)
    missing = 0.0 if op == "sum" else float("-inf")
    t = torch.tensor([float(values.get(k, missing)) for k in names], dtype=torch.float64, device=_comm_device())
    dist.all_reduce(t, op={"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX}[op])
    return dict(zip(names, t.tolist()))


def all_gather_object(obj):
    """[obj of rank 0, obj of rank 1, ...] on every rank (picklable objects); [obj] for a single process."""
    dist = _group()
    if dist is None:
        return [obj]
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def broadcast_object(obj):
    """Rank 0's obj on every rank (what the others pass is ignored); obj itself for a single process."""
    dist = _group()
    if dist is None:
        return obj
    box = [obj if dist.get_rank() == 0 else None]
    dist.broadcast_object_list(box, src=0)
    return box[0]


class FailedOnMain(RuntimeError):
    """Raised on the other ranks when rank 0 failed inside main_first with an exception that cannot be pickled."""


@contextlib.contextmanager
def main_first():
    """Rank 0 runs the block, then the other ranks run it: rank 0 writes what they then read (a run directory,
    the tiny tokenizer, run.json, merged rows). An exception on rank 0 is raised on every rank (the same exception,
    so a UsageError still ends each rank with its one line and exit code 2) instead of leaving them at a barrier.
    Plain `yield` for a single process."""
    if _group() is None:
        yield
        return
    if is_main():
        try:
            yield
        except BaseException as e:
            import pickle

            try:
                pickle.loads(pickle.dumps(e))
                sent = e
            except Exception:  # noqa: BLE001 -- any pickling failure: send its text instead
                sent = FailedOnMain(f"rank 0: {type(e).__name__}: {e}")
            broadcast_object(sent)
            raise
        broadcast_object(None)
        return
    failure = broadcast_object(None)
    if failure is not None:
        raise failure
    yield


def shard(items):
    """This rank's share of a list, round-robin by index (items[rank::world]): neighbouring tasks, often of
    similar size, land on different ranks. The whole list for a single process."""
    return items[rank()::world_size()]


def rank_share(items) -> list:
    """This rank's contiguous share of a list (sizes differ by at most one): ranks 0, 1, ... in order hold the
    single-process list in order, so rank 0's share is its head (train.py's RL groups). The whole list for a single
    process."""
    n, world, r = len(items), world_size(), rank()
    return items[r * n // world:(r + 1) * n // world]


def broadcast_params(params):
    """Rank 0's values of `params` (a policy's trainable parameters) on every rank, so all start equal (what DDP
    does when it wraps a model); the frozen base comes from the same files everywhere. A no-op for a single
    process."""
    if world_size() == 1:
        return
    import torch
    import torch.distributed as dist

    with torch.no_grad():
        for p in params:
            dist.broadcast(p.data, src=0)


def all_reduce_gradients(params):
    """Sum the gradients of `params` over the ranks, one flat all-reduce per dtype, after the last micro-batch's
    backward (so gradient accumulation needs no no_sync: nothing is reduced before). train.py normalises its losses
    by global counts (tokens, rollouts, groups), so the sum is the gradient of the global batch's loss, and clipping
    and the optimizer step then agree on every rank. A gradient that is None on a rank counts as zeros (and becomes
    zeros there). A no-op for a single process."""
    if world_size() == 1:
        return
    import torch
    import torch.distributed as dist

    by_dtype = {}
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
        by_dtype.setdefault(p.grad.dtype, []).append(p.grad)
    for grads in by_dtype.values():
        flat = torch.cat([g.reshape(-1) for g in grads])
        dist.all_reduce(flat)
        for g, part in zip(grads, flat.split([g.numel() for g in grads])):
            g.copy_(part.view_as(g))


def merge_rank_files(out_dir, records):
    """Fold the per-rank files of a several-process evaluation (results.rank<k>.jsonl, samples.rank<k>.jsonl) into
    results.jsonl and samples.jsonl, the new rows in task order (`records`' order; unknown ids last), then delete
    them. Rank 0 runs it when every rank has finished, and at the start too: a killed several-process run then
    resumes in any number of processes. Rows already in results.jsonl are kept as they are. Returns rows merged."""
    import glob

    rank_results = sorted(glob.glob(os.path.join(out_dir, "results.rank*.jsonl")))
    rank_samples = sorted(glob.glob(os.path.join(out_dir, "samples.rank*.jsonl")))
    if not rank_results and not rank_samples:
        return 0
    results_path, samples_path = os.path.join(out_dir, "results.jsonl"), os.path.join(out_dir, "samples.jsonl")
    _repair_tail(results_path)
    _repair_tail(samples_path)
    have = read_rows(results_path)
    new = {}
    for path in rank_results:
        new.update({k: v for k, v in read_rows(path).items() if k not in have})
    order = {str(r["id"]): i for i, r in enumerate(records)}
    ids = sorted(new, key=lambda t: (order.get(t, len(order)), t))
    samples = {}
    for path in rank_samples:
        with open(path) as f:
            for line in f:
                try:
                    sample = json.loads(line)
                except json.JSONDecodeError:  # a torn last line: its task has no row either
                    continue
                if isinstance(sample, dict) and sample.get("task_id") in new:
                    samples.setdefault(sample["task_id"], []).append(sample)
    append_jsonl(samples_path, [s for t in ids for s in samples.get(t, [])])
    append_jsonl(results_path, [new[t] for t in ids])  # last, as in a single process
    for path in rank_results + rank_samples:
        os.remove(path)
    return len(ids)


def run_eval(args):
    """Propose, judge and record every unfinished task; returns (rows in task order, aggregates). Under torchrun
    (init_distributed) each rank judges its share of the unfinished tasks (`shard`) with its own judge into
    results.rank<k>.jsonl and samples.rank<k>.jsonl; rank 0 merges them and writes the report; every rank returns
    the same rows and aggregates."""
    records = load_tasks(args.tasks, args.limit, args.level)
    results_path = os.path.join(args.out, "results.jsonl")
    with main_first():  # rank 0 checks and writes run.json (the others wait, then read the finished rows)
        run = None
        if is_main():
            if os.path.isdir(args.out):
                merge_rank_files(args.out, records)  # a killed several-process run's rows
            run = open_out_dir(args)
            _repair_tail(results_path)
    done = read_rows(results_path)
    todo_all = [r for r in records if str(r["id"]) not in done]
    todo = shard(todo_all)
    world, prefix = world_size(), (f"rank {rank()} | " if world_size() > 1 else "")
    if world > 1:  # each rank appends to its own files; rank 0 merges them at the end
        results_path = os.path.join(args.out, f"results.rank{rank()}.jsonl")
    samples_path = os.path.join(args.out, "samples.jsonl" if world == 1 else f"samples.rank{rank()}.jsonl")
    if is_main():
        print(f"tasks {len(records)} | finished before {len(records) - len(todo_all)} | to judge {len(todo_all)} | "
              f"policy {args.policy} | device {args.device} | samples {args.samples} | "
              f"temperature {args.temperature:g} | baseline {args.baseline} | "
              f"speed {'measured' if args.speed_measured else 'not measured'}"
              + (f" | sizes shrunk to <= {args.shrink_to} elements a tensor (a proxy, not the benchmark's sizes)"
                 if args.shrink_to else "")
              + (f" | ranks {world}" if world > 1 else ""), flush=True)
    if todo:
        import policy
        from reward import Judge, judge_candidates, solution_text

        proposer, chunk_size, needs_program = make_proposer(args)
        t0, n_done, t_propose = time.time(), len(records) - len(todo), 0.0
        n_total = len(records)
        if world > 1:  # a rank counts its own share (its lines start with "rank k |")
            n_done, n_total = 0, len(todo)
        last_chunk_s = 0.0
        earlier = earlier_verdicts(args.reuse_verdicts) if args.reuse_verdicts else None
        n_reused = 0
        with RestartingJudge(lambda: Judge(**judge_kwargs(args))) as judge:
            start, chunk_index, last_n = 0, 0, 0
            while start < len(todo):
                size = chunk_size
                if args.stop_after_s is not None:
                    # a chunk that would not finish in time is not started (a kill would lose all of it); near the
                    # end a smaller one that fits goes instead
                    size = fitting_chunk(chunk_size, args.workers, args.stop_after_s - (time.time() - t0),
                                         last_chunk_s, last_n)
                    if size == 0:
                        print(f"--stop-after-s {args.stop_after_s:g}: stopping before chunk {chunk_index} (the last "
                              f"took {last_chunk_s:.0f} s for {last_n} tasks); rerun with the same --out to go on",
                              flush=True)
                        break
                chunk = todo[start:start + size]
                start, last_n = start + len(chunk), len(chunk)
                seed = args.seed + chunk_index * world + rank()  # distinct per rank; args.seed + chunk_index for one
                t_chunk = time.time()
                # One task's failure of any kind (import, teacher, search) is its failed row.
                candidates = chunk_candidates(
                    chunk, needs_program, args,
                    lambda recs: search_answers(recs, proposer, judge, args) if args.search else
                    proposer.propose(recs, args.samples, seed))
                t_propose += time.time() - t_chunk
                if earlier is not None:
                    n_reused += reuse_verdicts(chunk, candidates, earlier)
                policy.release_gpu_cache()  # the judge's workers share this GPU
                verdicts = judge_candidates(judge, judge_records(chunk), candidates)
                if getattr(proposer, "fallback", None):  # --teacher-fallback: a second round for the tasks failed
                    again = [(i, proposer.fallback_answers(chunk[i], cands)) for i, (cands, vs)
                             in enumerate(zip(candidates, verdicts)) if not any(v.correct for v in vs)]
                    again = [(i, extra) for i, extra in again if extra]
                    if again:
                        more = judge_candidates(judge, judge_records([chunk[i] for i, _ in again]),
                                                [extra for _, extra in again])
                        for (i, extra), vs in zip(again, more):
                            candidates[i] = candidates[i] + extra
                            verdicts[i] = verdicts[i] + vs
                rows = [task_row(rec, vs, args.precision) for rec, vs in zip(chunk, verdicts)]
                for cands, vs, row in zip(candidates, verdicts, rows):
                    row.update(plan_of(cands, vs, row))
                for rec, cands, row in zip(chunk, candidates, rows):
                    source = solution_text(cands[row["best_sample"]])
                    if source is not None:
                        with open(os.path.join(args.out, "solutions", f"{policy.safe_name(rec['id'])}.py"), "w") as f:
                            f.write(source)
                append_jsonl(samples_path, sample_rows(chunk, candidates, verdicts))
                append_jsonl(results_path, rows)  # last: a row on disk means everything else for it is there too
                for row in rows:
                    n_done += 1
                    done[row["task_id"]] = row
                    print(prefix + progress_line(n_done, n_total, row, args.speed_measured), flush=True)
                last_chunk_s = time.time() - t_chunk
                chunk_index += 1
        n_judged = sum(str(r["id"]) in done for r in todo)
        print(f"{prefix}judged {n_judged} of {len(todo)} tasks in {time.time() - t0:.1f} s ({t_propose:.1f} s proposing"
              f"{' and searching' if args.search else ''}, the rest judging)"
              + (f"; {n_reused} answers took their verdict from {args.reuse_verdicts}" if earlier is not None
                 else ""),
              flush=True)
    rows = agg = None
    barrier()  # every rank's rows are on disk
    if is_main():
        if world > 1:
            merge_rank_files(args.out, records)
            done = read_rows(os.path.join(args.out, "results.jsonl"))
        rows = [done[str(r["id"])] for r in records if str(r["id"]) in done]
        unfinished = len(records) - len(rows)  # only after --stop-after-s: the aggregates cover finished tasks
        agg = aggregate_by_level(rows, args.speed_measured, args.compile_measured)
        plots = write_plots(args.out, rows, args.compile_measured) if args.speed_measured else []
        run["unfinished"] = unfinished
        write_report(args.out, rows, agg, run, args.speed_measured, args.compile_measured, plots)
        agg.update(out=args.out, judged=len(todo_all) - unfinished, skipped=len(records) - len(todo_all),
                   unfinished=unfinished)
    return broadcast_object((rows, agg))


def propose_answers(args):
    """--propose-only: the policy's answers to every task not yet in --out's samples.jsonl, appended there one
    chunk at a time (rows as a judged run writes them, verdict null), and run.json; nothing is judged. Returns
    {"proposed", "tasks", "out", "propose_only"}. One process only."""
    if world_size() > 1:
        raise UsageError("--propose-only runs in one process (no torchrun)")
    records = load_tasks(args.tasks, args.limit, args.level)
    open_out_dir(args)  # refuses a folder of judged answers
    samples_path = os.path.join(args.out, "samples.jsonl")
    _repair_tail(samples_path)
    done = read_rows(samples_path)  # a torn line's task is proposed again
    todo = [r for r in records if str(r["id"]) not in done]
    print(f"tasks {len(records)} | answered before {len(records) - len(todo)} | to propose {len(todo)} | "
          f"policy {args.policy} | samples {args.samples} | temperature {args.temperature:g} | not judged",
          flush=True)
    t0 = time.time()
    if todo:
        proposer, chunk_size, needs_program = make_proposer(args)
        for chunk_index, chunk in enumerate(chunks(todo, chunk_size)):
            candidates = chunk_candidates(chunk, needs_program, args,
                                          lambda recs: proposer.propose(recs, args.samples, args.seed + chunk_index))
            append_jsonl(samples_path, sample_rows(chunk, candidates))
            print(f"proposed {min(len(todo), (chunk_index + 1) * chunk_size)} of {len(todo)}", flush=True)
    print(f"proposed answers to {len(todo)} tasks in {time.time() - t0:.1f} s; judged none (--propose-only)",
          flush=True)
    return {"proposed": len(todo), "tasks": len(records), "out": args.out, "propose_only": True}


def main(argv=None):
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    args.argv = argv
    finished = False
    try:
        check_args(args)
        init_distributed(args.device)  # torchrun: join its process group (a no-op for a single process)
        agg = propose_answers(args) if args.propose_only else run_eval(args)[1]
        main = is_main()
        finished = True
    except UsageError as e:
        parser.error(synth.one_line(e))  # one line on stderr, exit code 2
    finally:
        cleanup_distributed(finished)
    if main:
        print(json.dumps(agg))
    return 0


def interrupted_line(argv) -> str:
    """What Ctrl-C prints: rows on disk are whole (results.jsonl is appended a chunk at a time, last), so the same
    command goes on from the finished tasks."""
    return f"interrupted; the finished tasks are kept: `{synth.command_line('eval.py', argv)}` goes on"


if __name__ == "__main__":
    exit_process(synth.run_main(main, on_interrupt=lambda: interrupted_line(sys.argv[1:])))
