"""Throughput benchmarks. One subcommand per thing measured; each prints a table and ends with one JSON line.

    python bench.py verify --device cpu --n 16          # laptop: judge pool vs one process per candidate
    python bench.py verify --device cuda --n 64         # H200: the issue-3 target (<= 30 s, >= 8x)
    python bench.py synth --n 10000 --levels 1,2,5      # synthesis rate with validation, op uniformity

verify: builds `--n` candidate solutions of mixed quality (known-good Triton kernels, cheats and faults
from tests/) for small KernelBench-like tasks (tests/judge_tasks/), then verifies them twice with the same
number of concurrent workers: with the pool (each worker imports torch/Triton once and serves many
candidates) and with one fresh worker process per candidate (recycle_every=1). Both times include starting
the workers. The verdicts of the two runs must agree on (compiled, correct, error_type, triton_launches).
"""
import argparse
import glob
import json
import os
import random
import sys
import time

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


def cmd_verify(args):
    from reward import Judge
    cands = verify_candidates(args.n, args.seed, args.include_hangs)
    pairs = [(t, s) for _, t, s in cands]
    kw = dict(workers=args.workers, device=args.device, timeout_s=args.timeout_s, time_trials=args.time_trials)
    print(f"verify | {len(pairs)} candidates | device {args.device} | workers {args.workers} | "
          f"timeout_s {args.timeout_s:g} | time_trials {args.time_trials}", file=sys.stderr)
    runs = {}
    for mode, recycle_every in (("pool", args.recycle_every), ("fresh_process", 1)):
        t = time.perf_counter()
        with Judge(recycle_every=recycle_every, **kw) as judge:
            verdicts = judge.verify_many(pairs, progress=True)
        runs[mode] = (time.perf_counter() - t, verdicts)
    key = lambda v: (v.compiled, v.correct, v.error_type, v.triton_launches)  # noqa: E731
    disagree = [name for (name, _, _), a, b in zip(cands, runs["pool"][1], runs["fresh_process"][1])
                if key(a) != key(b)]
    print(f"{'mode':<14} {'wall_s':>8} {'cand/s':>8} {'correct':>8}")
    for mode, (wall, vs) in runs.items():
        print(f"{mode:<14} {wall:8.2f} {len(vs) / wall:8.2f} {sum(v.correct for v in vs):8d}")
    speedups = [v.speedup for v in runs["pool"][1] if v.speedup is not None]
    ratio = runs["fresh_process"][0] / runs["pool"][0]
    print(f"pool is {ratio:.2f}x faster; verdicts disagree on {len(disagree)}: {disagree[:5]}")
    print(json.dumps({"bench": "verify", "n": len(pairs), "device": args.device, "workers": args.workers,
                      "pool_s": round(runs["pool"][0], 2), "fresh_process_s": round(runs["fresh_process"][0], 2),
                      "ratio": round(ratio, 2), "agree": not disagree, "n_correct": sum(v.correct for v in runs["pool"][1]),
                      "n_timed": len(speedups), "argv": sys.argv}))


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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("verify", help="judge throughput: worker pool vs one process per candidate",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    v.add_argument("--n", type=int, default=64, help="number of candidates")
    v.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where candidates run")
    v.add_argument("--workers", type=int, default=2, help="concurrent worker processes in both modes")
    v.add_argument("--timeout-s", type=float, default=60.0, help="wall-clock limit per candidate, seconds")
    v.add_argument("--time-trials", type=int, default=100, help="timed runs per model (CUDA only)")
    v.add_argument("--recycle-every", type=int, default=50, help="pool mode: candidates per worker before it is replaced")
    v.add_argument("--include-hangs", action="store_true", help="also include the infinite-loop and 12 GB faults")
    v.add_argument("--seed", type=int, default=0, help="seed of the candidate mix")
    v.set_defaults(fn=cmd_verify)
    s = sub.add_parser("synth", help="programs/s of synth.py including validation, and op uniformity",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    s.add_argument("--n", type=int, default=10000, help="validated programs")
    s.add_argument("--levels", default="1,2,5", help="comma-separated levels")
    s.add_argument("--size", default="cpu", help="synth size preset (cpu | paper)")
    s.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    s.add_argument("--seed", type=int, default=0, help="master seed")
    s.set_defaults(fn=cmd_synth)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
