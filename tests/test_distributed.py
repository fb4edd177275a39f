"""Train.py and eval.py under torchrun, data-parallel over N processes. CPU and gloo, loopback only: a test
starts 2 processes with the env vars torchrun sets (MASTER_ADDR=127.0.0.1, MASTER_PORT, RANK, WORLD_SIZE,
LOCAL_RANK) and checks them against one process on the same global batch (SFT, RL) or the same tasks (eval).

Run as a script, this file is one rank of a test: `helpers` exercises eval.py's process-group helpers and prints
what each returned; `rl ARGV...` is train.main with the stand-in rollouts and judge below (the same ones the
single-process run of the test uses).
"""
import json
import os
import socket
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import pytest  # noqa: E402
import torch  # noqa: E402

import eval as ev  # noqa: E402
import policy as P  # noqa: E402
import train  # noqa: E402
from reward import Verdict  # noqa: E402

PAIRS = os.path.join(HERE, "data_sft", "pairs.jsonl")
RL_TASKS = os.path.join(HERE, "data_rl", "tasks.jsonl")
EVAL_TASKS = os.path.join(HERE, "eval_data", "tasks")
SOLUTIONS = os.path.join(HERE, "eval_data", "solutions")
TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "2048"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(cmd, log_dir, world=2, timeout_s=180):
    """`cmd` as `torchrun --nproc-per-node world` would start it: one process per rank with torchrun's env vars
    (loopback only) and, as torchrun sets it, OMP_NUM_THREADS=1 (ranks whose idle threads spin while another
    rank computes made an RL step 15x slower on 2 cores). Returns per rank (exit code, stdout, stderr); a rank
    that outlives timeout_s fails the test."""
    port, procs = free_port(), []
    os.makedirs(log_dir, exist_ok=True)
    for r in range(world):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(r), WORLD_SIZE=str(world),
                   LOCAL_RANK=str(r), LOCAL_WORLD_SIZE=str(world), GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
        with open(os.path.join(log_dir, f"rank{r}.out"), "w") as out, \
                open(os.path.join(log_dir, f"rank{r}.err"), "w") as err:
            procs.append(subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=out, stderr=err))
    try:
        codes = [p.wait(timeout=timeout_s) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    logs = [(open(os.path.join(log_dir, f"rank{r}.out")).read(), open(os.path.join(log_dir, f"rank{r}.err")).read())
            for r in range(world)]
    return [(c, o, e) for c, (o, e) in zip(codes, logs)]


def assert_ok(ranks):
    for r, (code, out, err) in enumerate(ranks):
        assert code == 0, f"rank {r} exit {code}:\n{out[-2000:]}\n{err[-3000:]}"


def read_metrics(run_dir):
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f]


def trainable(run_dir):
    ckpt = P.checkpoint_dirs(str(run_dir))[-1]
    pol = P.load_policy(os.path.join(ckpt, "policy"), device="cpu")
    return {n: p.detach().clone() for n, p in pol.model.named_parameters() if p.requires_grad}


def assert_same_params(a, b):
    """Equal to fp32 rounding, as AdamW amplifies it: the sums differ in order (per rank, then over ranks), and an
    element whose gradient is rounding noise moves by up to lr * noise / (|noise| + eps); at lr 1e-2 a few elements
    of the SFT run differ by ~7e-6 while the bulk agrees to ~1e-7 (2 ranks or 1 process, on 1 or 2 threads)."""
    assert a.keys() == b.keys() and a
    for k in a:
        torch.testing.assert_close(a[k], b[k], atol=5e-5, rtol=1e-4, msg=k)
        assert (a[k] - b[k]).abs().mean() < 1e-6, k


# ----------------------------------------------------------------------------------------------------
# The helpers (eval.py): hand-computed results of 2 ranks


def helpers_rank():
    """One rank of test_process_group_helpers: prints a JSON dict of what the helpers returned."""
    ev.init_distributed("cpu")
    r = ev.rank()
    out = {"rank": r, "world": ev.world_size(), "is_main": ev.is_main(),
           "sum": ev.all_reduce_dict({"a": 1 + r, "b": 10.0 * r, f"only{r}": 5}),
           "max": ev.all_reduce_dict({"t": [3.5, 2.0][r]}, op="max"),
           "gathered": ev.all_gather_object({"r": r}), "broadcast": ev.broadcast_object(f"from {r}"),
           "shard": ev.shard(list(range(7))), "rank_share": ev.rank_share(list(range(7)))}
    order = []
    with ev.main_first():  # rank 0 writes a file, the others find it
        path = os.path.join(sys.argv[2], "made_by_main")
        if ev.is_main():
            with open(path, "w") as f:
                f.write("0")
        out["saw_file"] = open(path).read()
    try:
        with ev.main_first():
            order.append("block")
            if ev.is_main():
                raise ev.UsageError("a bad flag, found by rank 0")
    except ev.UsageError as e:
        out["error"] = str(e)
    out["ran_block"] = order
    ev.cleanup_distributed(finished=True)
    print(json.dumps(out))


def test_process_group_helpers(tmp_path):
    ranks = launch([sys.executable, __file__, "helpers", str(tmp_path)], tmp_path / "logs")
    assert_ok(ranks)
    got = [json.loads(out.strip().splitlines()[-1]) for _, out, _ in ranks]
    for r, g in enumerate(got):
        assert (g["rank"], g["world"], g["is_main"]) == (r, 2, r == 0)
        assert g["sum"] == {"a": 3.0, "b": 10.0, "only0": 5.0, "only1": 5.0}  # 1 + 2, 0 + 10, a name on one rank
        assert g["max"] == {"t": 3.5}
        assert g["gathered"] == [{"r": 0}, {"r": 1}] and g["broadcast"] == "from 0"
        assert g["shard"] == [[0, 2, 4, 6], [1, 3, 5]][r]               # round-robin
        assert g["rank_share"] == [[0, 1, 2], [3, 4, 5, 6]][r]          # contiguous: 7 * r // 2 .. 7 * (r + 1) // 2
        assert g["saw_file"] == "0"
        assert g["error"] == "a bad flag, found by rank 0"              # raised on rank 1 too, not a hang
        assert g["ran_block"] == (["block"] if r == 0 else [])         # rank 1 never ran the failed block
    # A single process: the helpers are no-ops and values come back as given.
    assert (ev.rank(), ev.world_size(), ev.is_main()) == (0, 1, True)
    assert ev.init_distributed("cpu") is None and ev.all_reduce_dict({"n": 3}) == {"n": 3}
    assert ev.shard([1, 2]) == [1, 2] and ev.rank_share([1, 2]) == [1, 2]


# ----------------------------------------------------------------------------------------------------
# SFT


def sft_argv(out, *extra):
    return ["--stage", "sft", "--pairs", PAIRS, "--out", str(out), "--device", "cpu", *TINY_FLAGS, "--micro-batch", "2",
            "--lr", "1e-2", "--warmup-steps", "2", "--eval-every", "2", "--save-every", "2", "--max-steps", "5",
            "--seed", "3", *extra]


@pytest.mark.slow
def test_sft_two_ranks_equal_one_process_and_resume(tmp_path):
    """2 ranks x --grad-accum 1 take the steps one process takes with --grad-accum 2 (the same 4 sequences a step,
    drawn from the same stream): losses, held-out losses and weights agree to fp32 rounding. The 2-rank run is
    "killed" after step 3 (last checkpoint: step 2) and resumed with 2 ranks: it continues the same data order."""
    one, two = tmp_path / "one", tmp_path / "two"
    assert train.main(sft_argv(one, "--grad-accum", "2")) == 0
    cmd = [sys.executable, os.path.join(ROOT, "train.py")]
    ranks = launch(cmd + sft_argv(two, "--grad-accum", "1", "--stop-after", "3"), tmp_path / "logs1")
    assert_ok(ranks)
    assert "step 0003/0005" in ranks[0][1] and ranks[1][1] == ""  # rank 0 logs; the others' stdout is dropped
    assert [os.path.basename(d) for d in P.checkpoint_dirs(str(two))] == ["step_000002"]
    state = P.load_trainer_state(P.checkpoint_dirs(str(two))[-1])
    assert len(state["rng_ranks"]) == 2 and state["data"] == {"epoch": 0, "index": 4}  # 2 steps x 2 ranks x 1
    ranks = launch(cmd + ["--stage", "sft", "--out", str(two), "--resume", "--device", "cpu"], tmp_path / "logs2")
    assert_ok(ranks)
    assert "resuming" in ranks[0][1]
    a, b = read_metrics(one), read_metrics(two)
    assert [r["step"] for r in b] == [1, 2, 3, 4, 5]
    assert [r["completion_tokens"] for r in a] == [r["completion_tokens"] for r in b]
    for key in ("loss", "heldout_loss", "grad_norm", "lr"):
        # heldout_loss is logged on eval steps only: the same steps must carry it, with the same values
        assert [key in r for r in a] == [key in r for r in b], key
        assert [r[key] for r in a if key in r] == pytest.approx([r[key] for r in b if key in r], rel=1e-5), key
    assert a[-1]["loss"] < a[0]["loss"]  # it learns
    assert_same_params(trainable(one), trainable(two))
    run = json.loads((two / "run.json").read_text())
    assert run["ranks"] == 2 and run["derived"]["sequences_per_step"] == 4 and len(run["resumes"]) == 1


# ----------------------------------------------------------------------------------------------------
# RL: stand-in rollouts and judge, the same in one process and in each rank


def task_seed(record, step):
    return zlib.crc32(f"{record['id']}:{step}".encode())


def stand_in_rollout(pol, records, args, step):
    """train.rollout, one generate call per group seeded by (task, step): a group's samples do not depend on which
    rank draws it or on its neighbours (the real rollout samples a rank's groups in one seeded batch)."""
    samples = []
    for rec in records:
        prompts = [P.render_prompt(pol.tokenizer, rec["source"])] * args.group_size
        samples += P.generate(pol, prompts, args.rollout_max_new_tokens, args.rollout_temperature, args.rollout_top_p,
                              seed=task_seed(rec, step), batch_size=args.group_size)
    return samples


def stand_in_verdict(task_id, g):
    """Mixed groups: rollout g of a task is correct when (g + crc32(id)) is even, with speedup 1 + g."""
    if (g + zlib.crc32(str(task_id).encode())) % 2 == 0:
        return Verdict(compiled=True, correct=True, speedup=1.0 + g)
    return Verdict(compiled=True, correct=False, error_type="mismatch")


def stand_in_judge_rollouts(judge, records, samples, group_size):
    return [stand_in_verdict(records[i // group_size]["id"], i % group_size) for i in range(len(samples))]


class StandInJudge:
    """What train.LazyJudge hands out: held-out verdicts are a function of the task alone (greedy answers may
    differ in the last bits between batchings; the verdicts, and so pass@1 and promotion, do not)."""

    def __init__(self, *args):
        pass

    def get(self):
        return self

    def close(self):
        pass

    def verify_many(self, pairs, **kw):
        return [Verdict(compiled=True, correct=zlib.crc32(src.encode()) % 3 != 0) for src, _ in pairs]


def use_stand_ins(target):
    for name, value in [("rollout", stand_in_rollout), ("judge_rollouts", stand_in_judge_rollouts),
                        ("LazyJudge", StandInJudge)]:
        target(train, name, value)


def rl_argv(out, loss):
    return ["--stage", "rl", "--tasks", RL_TASKS, "--out", str(out), "--device", "cpu", *TINY_FLAGS, "--levels", "1,2",
            "--rl-heldout-per-level", "2", "--prompts-per-step", "4", "--group-size", "4",
            "--rollout-max-new-tokens", "8", "--zero-spread", "keep", "--rl-lr", "1e-2", "--save-every", "2",
            "--eval-every", "100", "--rl-eval-every", "1", "--rl-steps", "2", "--replay-frac", "0.5",
            "--promote-at", "0.4", "--seed", "5", "--micro-batch", "3", "--loss", loss] + \
        (["--ppo-epochs", "2", "--kl-coef", "0.1"] if loss == "grpo" else [])


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["drpo", "grpo"])
def test_rl_two_ranks_equal_one_process(tmp_path, monkeypatch, loss):
    """Two RL steps over 4 tasks x G=4: each of 2 ranks generates, judges and scores its 2 whole groups; with the
    normalisers, KL, metrics and held-out pass@1 reduced and the gradients summed, the metrics and weights equal one
    process's on the same 4 groups (GRPO with 2 PPO epochs and a KL to the reference: the reduced KL and the
    second pass). Held-out pass@1 after step 1 (1 of 2 tasks, one a rank) promotes both to level 2 (replay
    draws included)."""
    one, two = tmp_path / "one", tmp_path / "two"
    use_stand_ins(monkeypatch.setattr)
    assert train.main(rl_argv(one, loss)) == 0
    ranks = launch([sys.executable, __file__, "rl"] + rl_argv(two, loss), tmp_path / "logs")
    assert_ok(ranks)
    a, b = read_metrics(one), read_metrics(two)
    assert [r["step"] for r in b] == [1, 2] and [r["level"] for r in a] == [1, 2] and a[0]["promoted"] is True
    assert a[0]["heldout_pass1"] == 0.5
    for key in ("level", "correct_frac", "compiled_frac", "frac_zero_std", "hack_flags", "judge_failures",
                "heldout_pass1", "promoted", "updated"):
        assert [r.get(key) for r in a] == [r.get(key) for r in b], key
    for key in ("reward_mean", "speedup_geomean", "loss", "kl", "grad_norm", "mean_completion_tokens"):
        # abs: GRPO's on-policy loss is a sum of terms that cancel to ~1e-8, where summation order shows
        assert [r[key] for r in a] == pytest.approx([r[key] for r in b], rel=1e-5, abs=1e-6), key
    assert 0 < a[0]["correct_frac"] < 1 and a[0]["loss"] != 0.0 and all(r["updated"] for r in a)
    assert_same_params(trainable(one), trainable(two))
    assert any(not torch.equal(p, torch.zeros_like(p)) for k, p in trainable(two).items() if "lora_B" in k)
    state = P.load_trainer_state(P.checkpoint_dirs(str(two))[-1])
    assert state["curriculum"] == P.load_trainer_state(P.checkpoint_dirs(str(one))[-1])["curriculum"]


# ----------------------------------------------------------------------------------------------------
# eval.py


def rows_without_timings(path):
    rows = [json.loads(line) for line in open(path)]
    for r in rows:
        r["verdict"].pop("timings")
    return rows


@pytest.mark.slow
def test_eval_two_ranks_equal_one_process_and_resume(tmp_path, capsys):
    """The 7 test tasks over 2 ranks (round-robin, a judge each) give one process's rows, in task order, and the
    same report; a rerun judges only the rows lost since, and rank files left by a killed run are merged."""
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    flags = ["--tasks", EVAL_TASKS, "--policy", f"solutions:{SOLUTIONS}", "--workers", "1", "--timeout-s", "60"]
    assert ev.main(flags + ["--out", one]) == 0
    capsys.readouterr()
    cmd = [sys.executable, os.path.join(ROOT, "eval.py")] + flags + ["--out", two]
    ranks = launch(cmd, tmp_path / "logs1")
    assert_ok(ranks)
    agg = json.loads(ranks[0][1].strip().splitlines()[-1])
    assert (agg["judged"], agg["skipped"], agg["overall"]["n_correct"]) == (7, 0, 3)
    assert sum(line.startswith("rank 0 | task ") for line in ranks[0][1].splitlines()) == 4  # tasks 0, 2, 4, 6
    assert sum(line.startswith("rank 1 | task ") for line in ranks[1][1].splitlines()) == 3
    assert not ranks[1][1].strip().splitlines()[-1].startswith("{")  # the aggregates are rank 0's line
    want = rows_without_timings(os.path.join(one, "results.jsonl"))
    assert rows_without_timings(os.path.join(two, "results.jsonl")) == want  # the same rows, in task order
    assert sorted(os.listdir(two)) == ["report.md", "results.jsonl", "run.json", "samples.jsonl", "solutions"]
    assert sorted(os.listdir(os.path.join(two, "solutions"))) == sorted(os.listdir(os.path.join(one, "solutions")))
    samples = [json.loads(line)["task_id"] for line in open(os.path.join(two, "samples.jsonl"))]
    assert samples == [r["task_id"] for r in want]
    report = lambda d: open(os.path.join(d, "report.md")).read().split("## Per level")[1]  # noqa: E731
    assert report(two) == report(one)
    assert json.load(open(os.path.join(two, "run.json")))["ranks"] == 2

    # Two rows lost (a crash): 2 ranks judge exactly those, one each, and the file is whole again.
    results = os.path.join(two, "results.jsonl")
    lines = open(results).read().splitlines(keepends=True)
    with open(results, "w") as f:
        f.writelines(lines[:5])
    ranks = launch(cmd, tmp_path / "logs2")
    assert_ok(ranks)
    agg = json.loads(ranks[0][1].strip().splitlines()[-1])
    assert (agg["judged"], agg["skipped"]) == (2, 5)
    assert rows_without_timings(results) == want

    # A several-process run killed before its merge: its rank files hold the last rows. One process merges them
    # (task order) and has nothing left to judge.
    with open(results, "w") as f:
        f.writelines(lines[:3])
    for r, picked in enumerate([lines[3:7:2], lines[4:7:2]]):
        with open(os.path.join(two, f"results.rank{r}.jsonl"), "w") as f:
            f.writelines(picked)
    assert ev.main(flags + ["--out", two]) == 0
    agg = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (agg["judged"], agg["skipped"]) == (0, 7)
    assert rows_without_timings(results) == want and not any(".rank" in n for n in os.listdir(two))


if __name__ == "__main__":
    if sys.argv[1] == "helpers":
        helpers_rank()
    elif sys.argv[1] == "rl":
        use_stand_ins(setattr)
        sys.exit(train.main(sys.argv[2:]))


def test_a_rank_exits_with_its_code_and_its_output_flushed():
    """eval.exit_process: a torchrun rank (WORLD_SIZE > 1) leaves by os._exit past the interpreter's teardown, where
    gloo once aborted a finished rank; its exit code and everything it printed (unflushed) still come out. A single
    process exits through sys.exit as before."""
    code = "import sys, eval; print('done', end=''); sys.stderr.write('note'); eval.exit_process(3)"
    for world in ("2", "1", ""):
        env = dict(os.environ, WORLD_SIZE=world)
        res = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert (res.returncode, res.stdout, res.stderr) == (3, "done", "note"), (world, res)
