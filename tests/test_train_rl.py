"""train.py --stage rl: DRPO and GRPO losses against hand computations, the direction of the
gradient, curriculum promotion, timeouts as failures, resume exactness on a very small stand-in model, and
bad flags. CPU, pinned to fp32 so exact comparisons hold on a CUDA machine too."""
import json
import math
import os
import types

import pytest
import torch

import eval as ev
import policy as P
import reward
import train
from reward import Verdict

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = os.path.join(HERE, "data_rl", "tasks.jsonl")
JUDGE_TASKS = os.path.join(HERE, "judge_tasks")
TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "2048"]


def rl_args(*extra):
    return train.parse_args(["--stage", "rl", "--tasks", TASKS, "--device", "cpu", *extra])


def ok(speedup=None):
    return Verdict(compiled=True, correct=True, speedup=speedup)


def bad(error_type="mismatch"):
    return Verdict(compiled=True, correct=False, error_type=error_type)


def lme(xs, tau):
    """tau * log mean exp(x / tau), by hand."""
    return tau * math.log(sum(math.exp(x / tau) for x in xs) / len(xs))


# ---------------------------------------------------------------------------------------------------- DRPO


@pytest.mark.parametrize("zero_spread", ["keep", "drop-all-wrong", "drop"])
def test_drpo_objective_and_coefficients_hand_computed(zero_spread):
    args = rl_args("--zero-spread", zero_spread, "--drpo-lambda", "0.5", "--drpo-tau", "2")
    scores = [-1.0, -2.0, -3.0,   -0.5, -1.5, -2.5,   -1.0, -4.0, -2.0]
    verdicts = [ok(2.0), ok(1.0), bad(),          # mixed: two correct (speedups 2 and 1), one wrong
                ok(), ok(), ok(),                 # all correct, speed unmeasured: equal weights
                bad(), bad("timeout"), bad()]     # all wrong
    coeffs, objective, kept, zero = train.drpo_coefficients(scores, verdicts, 3, args)
    # Mixed group: w = softmax(log(2)/0.5, 0) = (4/5, 1/5); J = 0.8*-1 + 0.2*-2 - (-3) (one wrong rollout).
    j_mixed = 0.8 * -1.0 + 0.2 * -2.0 - lme([-3.0], 2)
    j_all_correct = (-0.5 - 1.5 - 2.5) / 3
    j_all_wrong = -lme([-1.0, -4.0, -2.0], 2)
    e = [math.exp(x / 2) for x in [-1.0, -4.0, -2.0]]
    want_wrong = [-x / sum(e) for x in e]  # d/ds of -tau log mean exp(s / tau) = -softmax(s / tau)
    assert zero == 2
    assert coeffs[:3] == pytest.approx([0.8, 0.2, -1.0])
    if zero_spread == "keep":
        assert kept == 3 and objective == pytest.approx(j_mixed + j_all_correct + j_all_wrong)
        assert coeffs[3:6] == pytest.approx([1 / 3] * 3) and coeffs[6:] == pytest.approx(want_wrong)
    elif zero_spread == "drop-all-wrong":
        assert kept == 2 and objective == pytest.approx(j_mixed + j_all_correct)
        assert coeffs[3:6] == pytest.approx([1 / 3] * 3) and coeffs[6:] == [0.0] * 3
    else:
        assert kept == 1 and objective == pytest.approx(j_mixed) and coeffs[3:] == [0.0] * 6


def test_drpo_single_correct_group_and_objective_tensor():
    s = torch.tensor([-1.0, -2.0, -3.0, -4.0])
    correct = torch.tensor([False, True, False, False])
    w = torch.tensor([0.0, 1.0, 0.0, 0.0])
    j = train.drpo_objective(s, correct, w, tau=5.0)
    assert j.item() == pytest.approx(-2.0 - lme([-1.0, -3.0, -4.0], 5.0))
    # A large tau makes the S- term the plain mean; a small one the max (the best-scored wrong rollout).
    assert train.drpo_objective(s, correct, w, 1e4).item() == pytest.approx(-2.0 + 8 / 3, abs=1e-3)
    assert train.drpo_objective(s, correct, w, 1e-3).item() == pytest.approx(-2.0 + 1.0, abs=1e-2)


def test_k3_kl_estimate():
    x = torch.tensor([0.0, math.log(2.0), -0.5])
    assert train.k3(x).tolist() == pytest.approx([0.0, 2 - 1 - math.log(2.0), math.exp(-0.5) - 1 + 0.5])


# ---------------------------------------------------------------------------------------------------- GRPO


def test_grpo_advantages_coupled_decoupled_and_norms():
    verdicts = [ok(2.0), bad(), bad(), ok(1.0)]
    # --no-correct-first: the reference's coupled reward 1 + log s
    adv, zero = train.grpo_advantages(verdicts + [bad()] * 4, 4, rl_args("--reward", "coupled", "--no-correct-first"))
    r = [1 + math.log(2.0), 0.0, 0.0, 1.0]
    mu = sum(r) / 4
    sd = math.sqrt(sum((x - mu) ** 2 for x in r) / 4)
    assert adv[:4] == pytest.approx([(x - mu) / (sd + 1e-6) for x in r]) and adv[4:] == [0.0] * 4 and zero == 1
    adv, _ = train.grpo_advantages(verdicts, 4, rl_args("--adv-norm", "mean", "--no-correct-first"))
    assert adv == pytest.approx([x - mu for x in r])
    # default (--correct-first): the speed bonus is log s mapped from [log 0.1, log 10] onto [0, 1]
    r = [1 + (math.log(2.0) + math.log(10)) / (2 * math.log(10)), 0.0, 0.0, 1.5]
    mu = sum(r) / 4
    adv, _ = train.grpo_advantages(verdicts, 4, rl_args("--adv-norm", "mean"))
    assert adv == pytest.approx([x - mu for x in r])
    adv, _ = train.grpo_advantages(verdicts, 4, rl_args("--reward", "decoupled", "--adv-norm", "mean"))
    # correctness z-scored (+-1), speed z-scored within S+ (+-1, divided by sqrt(2 - 1) = 1): r = (2, -1, -1, 0).
    assert adv == pytest.approx([2.0, -1.0, -1.0, 0.0], abs=1e-5)


def test_grpo_sequence_loss_clipping_and_kl_hand_computed():
    old = torch.zeros(2)
    new = torch.full((2,), math.log(1.5))  # ratio 1.5, outside 1 +- 0.2
    assert train.grpo_sequence_loss(new, old, 1.0, 0.2).item() == pytest.approx(-1.2)   # clipped
    assert train.grpo_sequence_loss(new, old, -1.0, 0.2).item() == pytest.approx(1.5)   # not clipped (pessimistic)
    assert train.grpo_sequence_loss(old, old, 0.7, 0.2).item() == pytest.approx(-0.7)   # on-policy: -A
    ref = torch.full((2,), -1.0)
    want = -0.7 + 0.1 * (math.exp(-1.0) - 1 + 1.0)
    assert train.grpo_sequence_loss(old, old, 0.7, 0.2, ref, 0.1).item() == pytest.approx(want)


# ---------------------------------------------------------------------------------------------------- the update on a model


@pytest.fixture(scope="module")
def tiny():
    tasks = [json.loads(line) for line in open(TASKS)]
    sizes = dict(vocab_size=400, hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64,
                 max_positions=2048)
    pol = P.load_policy(None, corpus_texts=[t["source"] for t in tasks], tiny_sizes=sizes, lora_r=0, seed=0,
                        device="cpu")
    return P.attach_lora(pol, 4, 8, 0.0)


def fake_samples(pol, n, seed):
    """n sampled rollouts of one prompt (16 tokens each) with their log-probs, as policy.generate returns them."""
    task = json.loads(open(TASKS).readline())
    prompt = P.render_prompt(pol.tokenizer, task["source"])
    return P.generate(pol, [prompt] * n, 16, 1.0, 1.0, seed=seed, batch_size=n)


@pytest.mark.parametrize("loss", ["drpo", "grpo"])
def test_update_raises_fastest_correct_and_lowers_incorrect(tiny, loss):
    import copy

    pol = copy.deepcopy(tiny)
    samples = fake_samples(pol, 4, seed=1)
    verdicts = [bad(), ok(3.0), bad(), ok(1.0)]
    args = rl_args("--loss", loss, "--micro-batch", "3", "--rl-lr", "3e-3", "--grad-clip", "0")
    opt = torch.optim.AdamW(P.trainable_parameters(pol), lr=args.rl_lr)
    before = [lp.mean().item() for lp in train.batch_logprobs(pol, samples, 4, 512)]
    assert before == pytest.approx([sum(s.logprobs) / len(s.logprobs) for s in samples], abs=1e-4)
    for _ in range(3):
        out = train.update_policy(pol, opt, samples, verdicts, 4, args)
        assert out["updated"] and math.isfinite(out["loss"])
    after = [lp.mean().item() for lp in train.batch_logprobs(pol, samples, 4, 512)]
    assert after[1] > before[1]                       # the fastest correct rollout goes up
    assert after[0] < before[0] and after[2] < before[2]  # the incorrect ones go down


def test_update_is_micro_batch_invariant_and_kl_penalty_engages(tiny):
    import copy

    samples = fake_samples(tiny, 4, seed=2)
    verdicts = [bad(), ok(), bad(), ok()]
    params = []
    for mb in ["4", "1"]:
        pol = copy.deepcopy(tiny)
        args = rl_args("--micro-batch", mb, "--rl-lr", "1.0", "--ppo-epochs", "2", "--grad-clip", "0",
                       "--drpo-delta", "0")
        opt = torch.optim.SGD(P.trainable_parameters(pol), lr=args.rl_lr)
        out = train.update_policy(pol, opt, samples, verdicts, 4, args)
        params.append([p.detach().clone() for p in P.trainable_parameters(pol)])
        assert out["kl"] > 0  # the second epoch sees a moved policy: KL vs the rollout policy > 0
    for a, b in zip(*params):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-4)


def test_all_wrong_batch_with_default_flags_does_not_update(tiny):
    import copy

    pol = copy.deepcopy(tiny)
    samples = fake_samples(pol, 2, seed=3)
    args = rl_args()
    opt = torch.optim.AdamW(P.trainable_parameters(pol), lr=1e-2)
    before = [p.detach().clone() for p in P.trainable_parameters(pol)]
    out = train.update_policy(pol, opt, samples, [bad(), bad("timeout")], 2, args)
    assert not out["updated"] and out["zero_spread"] == 1 and out["loss"] == 0.0
    assert all(torch.equal(a, b) for a, b in zip(before, P.trainable_parameters(pol)))


# ---------------------------------------------------------------------------------------------------- curriculum


def test_curriculum_promotion_replay_and_order():
    by_level = {1: [{"id": f"a{i}", "level": 1} for i in range(5)], 2: [{"id": f"b{i}", "level": 2} for i in range(3)],
                5: []}
    cur = train.Curriculum(by_level, [1, 2, 5], replay_frac=0.5, seed=0)
    first = cur.next_batch(0, 5)
    assert sorted(r["id"] for r in first) == [f"a{i}" for i in range(5)]  # one pass over level 1, shuffled
    assert not cur.maybe_promote(1, 0.5, promote_at=0.5)                   # must exceed, not equal
    assert not cur.maybe_promote(2, None, promote_at=0.5) and cur.level == 1
    assert cur.maybe_promote(3, 0.75, promote_at=0.5) and cur.level == 2
    batch = cur.next_batch(4, 40)
    replayed = sum(r["level"] == 1 for r in batch)
    assert 10 <= replayed <= 30 and all(r["level"] in (1, 2) for r in batch)
    assert not cur.maybe_promote(5, 1.0, promote_at=0.5) and cur.level == 2  # level 5 has no tasks: stay
    # The state is all a resume needs: a copy continues identically.
    clone = train.Curriculum(by_level, [1, 2, 5], 0.5, 0, state=json.loads(json.dumps(cur.state())))
    assert [r["id"] for r in clone.next_batch(9, 7)] == [r["id"] for r in cur.next_batch(9, 7)]
    assert clone.state() == cur.state() and len(cur.history) == 4


def test_split_rl_tasks_holds_out_per_level():
    tasks = [json.loads(line) for line in open(TASKS)]
    train_by, held_by = train.split_rl_tasks(tasks, [1, 2, 5], 2, seed=0)
    for lv in (1, 2):
        assert len(held_by[lv]) == 2 and len(train_by[lv]) == 4
        assert not {r["id"] for r in held_by[lv]} & {r["id"] for r in train_by[lv]}
    assert train_by[5] == [] and held_by[5] == []
    assert held_by == train.split_rl_tasks(list(reversed(tasks)), [1, 2, 5], 2, seed=0)[1]


# ---------------------------------------------------------------------------------------------------- judge


def test_hack_counts():
    vs = [bad("unfaithful"), Verdict(correct=True, flags=["speedup_above_cap"]),
          Verdict(error_type="static_check", flags=["static:thread", "static:process"]), bad("timeout"),
          Verdict(error_type="syntax_error", flags=["static:syntax_error"])]  # broken code is not cheating
    counts = reward.hack_counts(vs)
    assert counts["unfaithful"] == 1 and counts["speedup_above_cap"] == 1 and counts["static_check"] == 1
    assert counts["static:thread"] == 1 and counts["static:process"] == 1 and sum(counts.values()) == 5


@pytest.mark.slow
def test_timed_out_candidate_gets_the_failure_reward():
    from reward import Judge

    task = open(os.path.join(JUDGE_TASKS, "relu_add.py")).read()
    hang = open(os.path.join(JUDGE_TASKS, "faults", "infinite_loop.py")).read()
    good = open(os.path.join(JUDGE_TASKS, "good", "relu_add.py")).read()
    samples = [types.SimpleNamespace(text=f"ok\n```python\n{src}\n```\n", completion_ids=[1]) for src in (hang, good)]
    with Judge(workers=2, device="cpu", timeout_s=4.0) as judge:
        verdicts = train.judge_rollouts(judge, [{"source": task}], samples, group_size=2)
    assert verdicts[0].error_type == "timeout" and not verdicts[0].correct and verdicts[1].correct
    # rewards (0, 1.5): a correct rollout at an unmeasured speed earns 1 + the middle of the speed bonus's [0, 1]
    assert train.grpo_advantages(verdicts, 2, rl_args("--reward", "coupled", "--adv-norm", "mean"))[0] == [-0.75, 0.75]
    coeffs, _, _, _ = train.drpo_coefficients([-1.0, -1.0], verdicts, 2, rl_args())
    assert coeffs == pytest.approx([-1.0, 1.0])  # the timed-out rollout is in S- and is pushed down
    assert train.rollout_metrics(verdicts, samples, 2, rl_args())["judge_failures"] == 1


# ---------------------------------------------------------------------------------------------------- runs


def rl_argv(out, *extra):
    return ["--stage", "rl", "--tasks", TASKS, "--out", str(out), "--device", "cpu", *TINY_FLAGS,
            "--levels", "1,2", "--rl-heldout-per-level", "2", "--prompts-per-step", "2", "--group-size", "2",
            "--rollout-max-new-tokens", "12", "--zero-spread", "keep", "--rl-lr", "1e-2", "--save-every", "2",
            "--eval-every", "100", "--rl-eval-every", "2", "--judge-workers", "1", "--rl-steps", "4", "--replay-frac", "0.5",
            "--seed", "5", "--rl-time-limit-s", "0", "--dump-every", "1", *extra]


def read_metrics(run_dir):
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f]


def test_resume_equals_uninterrupted_run(tmp_path, capsys, monkeypatch):
    """A random tiny model writes no code: every rollout fails and --zero-spread keep still pushes them down.
    Held-out pass@1 is stubbed to 0.75 so the first check (step 2) promotes: the curriculum state must survive
    the resume."""
    monkeypatch.setattr(ev, "heldout_pass1", lambda pol, judge, records, args, step: 0.75)
    full, part = tmp_path / "full", tmp_path / "part"
    assert train.main(rl_argv(full)) == 0
    out = capsys.readouterr().out
    assert "step 0001/0004 | level 1 | reward_mean 0.000 | correct_frac 0.000" in out
    assert train.main(rl_argv(part, "--stop-after", "3")) == 0
    assert [os.path.basename(d) for d in P.checkpoint_dirs(str(part))] == ["step_000002"]
    assert train.main(["--stage", "rl", "--out", str(part), "--resume", "--device", "cpu"]) == 0
    a, b = read_metrics(full), read_metrics(part)
    assert [r["step"] for r in b] == [1, 2, 3, 4]
    keys = ["step", "level", "reward_mean", "correct_frac", "compiled_frac", "speedup_geomean", "frac_zero_std",
            "informative_frac", "all_correct_frac", "all_wrong_frac", "entropy", "kl_ref", "clip_frac", "hack_frac",
            "kl", "loss", "hack_flags", "tokens_per_s", "t_generate_s", "t_verify_s", "t_update_s", "peak_mem_gb"]
    assert all(k in r for r in a for k in keys)
    assert [r["level"] for r in a] == [1, 1, 2, 2] and a[1]["promoted"] is True  # promoted after step 2
    # every level's held-out pass@1 at every evaluation (stubbed: 0.75 each)
    assert a[1]["heldout_pass1_by_level"] == {"1": 0.75, "2": 0.75} and "heldout_pass1_by_level" not in a[0]
    assert all(r["all_wrong_frac"] == 1.0 and r["informative_frac"] == 0.0 for r in a)
    for k in ["level", "correct_frac", "frac_zero_std", "mean_completion_tokens", "heldout_pass1", "promoted"]:
        assert [r.get(k) for r in a] == [r.get(k) for r in b], k
    # Not bitwise: policy.generate merges the adapter into the base and unmerges it, which rounds the base
    # weights a little each step; a resumed run reloads the unrounded base. Equal to fp32 rounding.
    assert [r["loss"] for r in a] == pytest.approx([r["loss"] for r in b], rel=1e-5)
    assert a[0]["loss"] != 0.0 and all(r["updated"] for r in a)
    pa, pb = (P.load_policy(os.path.join(P.checkpoint_dirs(str(d))[-1], "policy"), device="cpu") for d in (full, part))
    na = {n: p for n, p in pa.model.named_parameters() if p.requires_grad}
    nb = {n: p for n, p in pb.model.named_parameters() if p.requires_grad}
    assert na.keys() == nb.keys()
    for k in na:
        torch.testing.assert_close(na[k], nb[k], atol=1e-6, rtol=1e-4)
    assert any(not torch.equal(p, torch.zeros_like(p)) for k, p in na.items() if "lora_B" in k)  # it trained
    state = P.load_trainer_state(P.checkpoint_dirs(str(part))[-1])
    assert state["curriculum"]["level_index"] == 1 and state["stage"] == "rl"
    dumps = sorted(os.listdir(part / "samples"))
    assert dumps[0] == "rl_step_000001.jsonl"
    sample = json.loads(open(part / "samples" / dumps[0]).readline())
    assert sample["verdict"]["error_type"] and "completion" in sample
    # a finished run extended: --rl-steps on the command line wins over the checkpoint's
    assert train.main(["--stage", "rl", "--out", str(part), "--resume", "--device", "cpu", "--rl-steps", "5"]) == 0
    assert [r["step"] for r in read_metrics(part)] == [1, 2, 3, 4, 5]
    assert "rl_steps=5" in capsys.readouterr().out
    # --rl-time-limit-s counts the time spent before a resume: a checkpoint that spent 1000 s stops an extension
    # with a 500 s limit after its first step, where a fresh budget would run all the steps asked
    last = P.checkpoint_dirs(str(part))[-1]
    state = P.load_trainer_state(last)
    assert 0 < state["rl_elapsed_s"] < 500
    torch.save({**state, "rl_elapsed_s": 1000.0}, os.path.join(last, "trainer_state.pt"))
    assert train.main(["--stage", "rl", "--out", str(part), "--resume", "--device", "cpu", "--rl-steps", "8",
                       "--rl-time-limit-s", "500"]) == 0
    assert [r["step"] for r in read_metrics(part)] == [1, 2, 3, 4, 5, 6]


def test_rl_from_an_sft_run_starts_a_fresh_adapter(tmp_path):
    """--init merges the SFT policy into the RL base: with the fresh adapter off, RL's policy is the SFT one."""
    pairs = os.path.join(HERE, "data_sft", "pairs.jsonl")
    sft = tmp_path / "sft"
    assert train.main(["--stage", "sft", "--pairs", pairs, "--out", str(sft), "--device", "cpu", *TINY_FLAGS,
                       "--max-steps", "1", "--micro-batch", "2", "--eval-every", "0"]) == 0
    rl = tmp_path / "rl"
    assert train.main(rl_argv(rl, "--init", str(sft), "--rl-steps", "1")) == 0
    pol_sft = P.load_policy(os.path.join(P.checkpoint_dirs(str(sft))[-1], "policy"), device="cpu")
    pol_rl = P.load_policy(os.path.join(P.checkpoint_dirs(str(rl))[-1], "policy"), device="cpu")
    assert pol_rl.lora and os.path.isdir(rl / "base_model")
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad(), pol_rl.model.disable_adapter():
        off = pol_rl.model(input_ids=ids).logits
    torch.testing.assert_close(off, pol_sft.model(input_ids=ids).logits.detach())


@pytest.mark.parametrize("argv, code, message", [
    (["--stage", "rl"], 2, "needs --tasks"),
    (["--stage", "rl", "--tasks", "/nonexistent.jsonl"], 2, "tasks file not found"),
    (["--stage", "rl", "--tasks", TASKS, "--init", "/nonexistent"], 2, "--init"),
    (["--stage", "rl", "--tasks", TASKS, "--levels", "9"], 2, "no training task at level 9"),
])
def test_missing_inputs_exit_2(tmp_path, argv, code, message, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert train.main(argv) == code
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("flags", [
    ["--loss", "ppo"], ["--reward", "speed"], ["--adv-norm", "max"], ["--group-size", "0"],
    ["--drpo-lambda", "0"], ["--drpo-tau", "-1"], ["--levels", "1,x"], ["--levels", "2,2"], ["--replay-frac", "1"],
    ["--promote-at", "1.5"], ["--zero-spread", "sometimes"], ["--ppo-epochs", "0"], ["--engine", "warp"],
    ["--kl-coef", "-0.1"], ["--rl-lr", "0"],
])
def test_bad_flags_exit_2(flags):
    with pytest.raises(SystemExit) as e:
        train.main(["--stage", "rl", "--tasks", TASKS, *flags])
    assert e.value.code == 2


# ---------------------------------------------------------------------------------------------------- rewards: order, hacks, faults


def hacked(speedup=50.0, flag="speedup_above_cap"):
    """A verdict the judge called correct but flagged as a hack."""
    return Verdict(compiled=True, correct=True, speedup=speedup, flags=[flag])


@pytest.mark.parametrize("flags", [
    [], ["--adv-norm", "mean"], ["--reward", "decoupled"], ["--reward", "decoupled", "--adv-norm", "mean"],
    ["--speed-shape", "power", "--speed-alpha", "2"], ["--reward", "decoupled", "--speed-shape", "power"],
])
def test_every_correct_rollout_beats_every_wrong_one(flags):
    """Over speedups 0.05x-20x and group sizes 2-16 (random mixes, seeded): every correct rollout's advantage (GRPO)
    or DRPO coefficient is above every wrong rollout's, by default."""
    import random

    rng = random.Random(0)
    args = rl_args(*flags)
    speeds = [0.05, 0.1, 0.2, 0.37, 0.5, 1.0, 1.5, 3.0, 9.9, 20.0]
    cases = 0
    for g in [2, 3, 4, 8, 10, 12, 16]:
        for _ in range(40):
            n_ok = rng.randint(1, g - 1)
            group = [ok(rng.choice(speeds)) for _ in range(n_ok)] + [bad() for _ in range(g - n_ok)]
            rng.shuffle(group)
            adv, _ = train.grpo_advantages(group, g, args)
            coeffs, _, _, _ = train.drpo_coefficients([rng.uniform(-3, -0.1) for _ in group], group, g, args)
            for values in (adv, coeffs):
                worst_ok = min(a for a, v in zip(values, group) if v.correct)
                best_bad = max(a for a, v in zip(values, group) if not v.correct)
                assert worst_ok > best_bad, (g, [v.speedup for v in group], values)
            cases += 1
    assert cases == 7 * 40


def test_no_correct_first_gives_the_reference_inversions():
    """--no-correct-first: 1 + log s < 0 for a correct answer slower than 1/e (its advantage below a wrong one's),
    and the plain decoupled z-sum ranks a slow correct rollout below a wrong one at G = 10."""
    args = rl_args("--no-correct-first")
    group = [ok(0.2), bad(), ok(1.0), ok(1.0)]
    adv, _ = train.grpo_advantages(group, 4, args)
    assert 1 + math.log(0.2) < 0 and adv[0] < adv[1]
    adv, _ = train.grpo_advantages(group, 4, rl_args())
    assert adv[0] > adv[1]
    # G = 10, 5 correct (one slow, four fast), 5 wrong: z(c) = +-1, the slow one's speed z = -2
    group = [ok(0.5)] + [ok(2.0)] * 4 + [bad()] * 5
    r = reward.grpo_rewards(group, reward.rollout_classes(group, args),
                            rl_args("--no-correct-first", "--reward", "decoupled"))
    assert r[0] == pytest.approx(1 - 2, abs=1e-5) and r[5] == pytest.approx(-1, abs=1e-5) and r[0] < r[5]
    r = reward.grpo_rewards(group, reward.rollout_classes(group, args), rl_args("--reward", "decoupled"))
    assert r[0] == pytest.approx(1 - 2 / 2, abs=1e-5) and r[0] > r[5]  # scaled by 1/sqrt(5 - 1)


def test_hack_flagged_verdict_earns_what_a_wrong_one_earns():
    group = [hacked(), ok(1.5), bad()]
    args = rl_args()
    assert reward.rollout_classes(group, args) == ["wrong", "correct", "wrong"]
    assert reward.drpo_weights(group, reward.rollout_classes(group, args), args) == [0.0, 1.0, 0.0]
    coeffs, _, _, _ = train.drpo_coefficients([-1.0, -1.0, -1.0], group, 3, args)
    assert coeffs == pytest.approx([-0.5, 1.0, -0.5])  # the two S- rollouts share -softmax(s / tau) equally
    for kind in ("coupled", "decoupled"):
        r = reward.grpo_rewards(group, reward.rollout_classes(group, args), rl_args("--reward", kind))
        assert r[0] == r[2] < r[1]
    m = train.rollout_metrics(group, [types.SimpleNamespace(completion_ids=[1])] * 3, 3, args)
    assert m["hack_frac"] == pytest.approx(1 / 3) and m["correct_frac"] == pytest.approx(1 / 3)
    assert m["judged_correct_frac"] == pytest.approx(2 / 3) and m["hack_flags"]["speedup_above_cap"] == 1
    # coupled reward mean: (0 + 1 + bonus(1.5) + 0) / 3, bonus = (log 1.5 + log 10) / (2 log 10)
    assert m["reward_mean"] == pytest.approx((1 + (math.log(1.5) + math.log(10)) / (2 * math.log(10))) / 3)


def test_judge_fault_is_skipped_or_wrong_by_flag():
    lost = Verdict(error_type="worker_died", error_msg="worker exited with code 1 before reporting a verdict")
    hung = Verdict(error_type="timeout", error_msg="no verdict within 4 s; worker process group killed")
    group = [lost, ok(), bad(), hung]
    assert reward.rollout_classes(group, rl_args()) == ["skip", "correct", "wrong", "wrong"]
    assert reward.rollout_classes(group, rl_args("--judge-faults", "wrong")) == ["wrong", "correct", "wrong", "wrong"]
    coeffs, _, _, _ = train.drpo_coefficients([-1.0] * 4, group, 4, rl_args())
    assert coeffs == pytest.approx([0.0, 1.0, -0.5, -0.5])
    adv, _ = train.grpo_advantages(group, 4, rl_args("--adv-norm", "mean"))
    assert adv == pytest.approx([0.0, 1.5 - 0.5, -0.5, -0.5])  # rewards (1.5, 0, 0) over the three judged ones
    classes = reward.rollout_classes(group, rl_args())
    assert reward.group_split(classes, 2) == {"informative": 0, "all_correct": 1, "all_wrong": 1}  # (skip, ok) (bad, hung)
    assert reward.group_split(classes, 4) == {"informative": 1, "all_correct": 0, "all_wrong": 0}
    broke = Verdict(error_type="judge_error", error_msg="no answer process: the answer hatch is gone")
    assert reward.rollout_classes([broke, ok()], rl_args()) == ["skip", "correct"]


def test_speed_shape_power_weights_hand_computed():
    args = rl_args("--speed-shape", "power", "--speed-alpha", "0.5", "--drpo-lambda", "1")
    group = [ok(4.0), ok(1.0), bad(), ok(100.0)]  # 100 is clipped to the cap, 10
    w = reward.drpo_weights(group, reward.rollout_classes(group, args), args)
    e = [math.exp(2.0), math.exp(1.0), 0.0, math.exp(math.sqrt(10))]
    assert w == pytest.approx([x / sum(e) for x in e])


def test_kl_estimators_hand_computed():
    new = [torch.tensor([0.0, -1.0]), torch.tensor([-2.0])]
    old = [torch.tensor([-0.5, -1.0]), torch.tensor([-1.0])]
    x = [0.5, 0.0, -1.0]  # new - old per token
    k3 = [math.exp(v) - 1 - v for v in x]
    assert train.kl_estimate(new, old, rl_args()).item() == pytest.approx(((k3[0] + k3[1]) / 2 + k3[2]) / 2)
    assert train.kl_estimate(new, old, rl_args("--kl-estimator", "k1", "--kl-mean", "token")).item() == \
        pytest.approx(-sum(x) / 3)


def test_token_logprobs_at_the_rollout_temperature_match_tempered_softmax(tiny):
    """RL scores rollouts with policy.token_logprobs at --rollout-temperature (logprob_temperature)."""
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    mask = torch.ones_like(ids)
    target = torch.tensor([[0, 0, 1, 1, 1]])
    with torch.no_grad():
        logits = tiny.model(input_ids=ids).logits[0].float()                        # (T, V)
        got = P.token_logprobs(tiny.model, ids, mask, target, 2, temperature=0.5)
        plain = P.token_logprobs(tiny.model, ids, mask, target, 2, temperature=1.0)
    want = torch.log_softmax(logits / 0.5, -1)[[1, 2, 3], [7, 8, 9]]
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    with_grad = P.token_logprobs(tiny.model, ids, mask, target, 2, temperature=0.5)  # checkpointed chunks
    torch.testing.assert_close(with_grad.detach(), want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(plain, torch.log_softmax(logits, -1)[[1, 2, 3], [7, 8, 9]], atol=1e-5, rtol=1e-5)
    assert train.logprob_temperature(rl_args("--rollout-temperature", "0.7")) == 0.7
    assert train.logprob_temperature(rl_args("--rollout-temperature", "0.7", "--logprob-temperature", "1")) == 1.0


# ---------------------------------------------------------------------------------------------------- normalisation, empty batches, mini-batches


def two_group_batch(pol):
    """Two groups of 2 rollouts: one informative, one all wrong (dropped by the default --zero-spread)."""
    return fake_samples(pol, 4, seed=4), [ok(), bad(), bad(), bad()]


def test_drpo_loss_divides_by_questions_or_kept_groups(tiny):
    """One informative group of two: J = s_0 - s_1 (tau log mean exp of one score is the score); loss = -J / 2 under
    the reference's questions, -J / 1 under kept. With plain SGD (lr 1) the step is grad(loss) itself, so the
    questions step is half the kept one."""
    import copy

    steps = {}
    for norm, divisor in [("questions", 2), ("kept", 1)]:
        pol = copy.deepcopy(tiny)
        samples, verdicts = two_group_batch(pol)
        args = rl_args("--drpo-norm", norm, "--mini-batches", "1", "--grad-clip", "0", "--micro-batch", "4")
        s = [sum(x.logprobs) / len(x.logprobs) for x in samples]
        before = [p.detach().clone() for p in P.trainable_parameters(pol)]
        opt = torch.optim.SGD(P.trainable_parameters(pol), lr=1.0)
        out = train.update_policy(pol, opt, samples, verdicts, 2, args)
        assert out["loss"] == pytest.approx(-(s[0] - s[1]) / divisor, rel=1e-4)  # fp32 token means
        assert out["groups_informative"] == 1 and out["groups_all_wrong"] == 1 and out["optimizer_steps"] == 1
        steps[norm] = [(a - p.detach()) for a, p in zip(before, P.trainable_parameters(pol))]
    assert any(s.abs().max() > 0 for s in steps["kept"])
    for half, full in zip(steps["questions"], steps["kept"]):
        torch.testing.assert_close(2 * half, full, atol=1e-7, rtol=1e-4)


@pytest.mark.parametrize("loss", ["drpo", "grpo"])
def test_batch_without_signal_takes_no_step_on_either_loss(tiny, loss):
    """After one informative step (AdamW now has momentum), an all-wrong batch leaves the weights alone under the
    default --empty-batch skip; --empty-batch step lets AdamW's momentum move them."""
    import copy

    for mode in ["skip", "step"]:
        pol = copy.deepcopy(tiny)
        args = rl_args("--loss", loss, "--empty-batch", mode, "--mini-batches", "1")
        opt = torch.optim.AdamW(P.trainable_parameters(pol), lr=1e-2)
        samples = fake_samples(pol, 2, seed=6)
        train.update_policy(pol, opt, samples, [ok(), bad()], 2, args)
        before = [p.detach().clone() for p in P.trainable_parameters(pol)]
        out = train.update_policy(pol, opt, samples, [bad(), bad()], 2, args)
        same = all(torch.equal(a, b) for a, b in zip(before, P.trainable_parameters(pol)))
        assert out["updated"] == (mode == "step") and same == (mode == "skip"), mode


@pytest.mark.parametrize("loss", ["drpo", "grpo"])
def test_mini_batches_make_the_trust_region_act(tiny, loss):
    """Two slices of one batch: the first step is on-policy (ratio 1), the second sees a moved policy: its KL to the
    rollout policy is > 0 and some tokens leave 1 +- clip-eps. With one slice the KL stays 0 and nothing clips."""
    import copy

    samples = fake_samples(tiny, 4, seed=7)
    verdicts = [ok(), bad(), bad(), ok()]
    for k in [1, 2]:
        pol = copy.deepcopy(tiny)
        args = rl_args("--loss", loss, "--mini-batches", str(k), "--clip-eps", "0.01", "--rl-lr", "5e-2")
        opt = torch.optim.AdamW(P.trainable_parameters(pol), lr=args.rl_lr)
        out = train.update_policy(pol, opt, samples, verdicts, 2, args)
        assert out["optimizer_steps"] == k
        if k == 1:
            assert out["kl"] == pytest.approx(0.0, abs=1e-9) and out["clip_frac"] == 0.0
        else:
            assert out["kl"] > 0 and out["clip_frac"] > 0
        assert out["entropy"] == pytest.approx(-sum(sum(s.logprobs) for s in samples) /
                                               sum(len(s.logprobs) for s in samples), rel=1e-5)
        assert out["kl_ref"] == pytest.approx(0.0, abs=1e-5)  # a fresh adapter (B = 0) is the reference policy


def test_mini_batch_slices_follow_the_global_group_order():
    assert train.mini_batch_groups(4, 2) == [[0, 1], [2, 3]]
    assert train.mini_batch_groups(3, 2) == [[0], [1, 2]]
    assert train.mini_batch_groups(1, 3) == [[], [], [0]]
    # two ranks holding groups 0-1 and 2-3 of 4: the first step takes the first rank's, the second the other's
    assert train.mini_batch_groups(2, 2, total=4, offset=0) == [[0, 1], []]
    assert train.mini_batch_groups(2, 2, total=4, offset=2) == [[], [0, 1]]


def test_curriculum_mixed_draws_every_level_and_never_promotes():
    by_level = {1: [{"id": f"a{i}", "level": 1} for i in range(3)], 2: [{"id": f"b{i}", "level": 2} for i in range(3)]}
    cur = train.make_curriculum(rl_args("--curriculum", "mixed", "--levels", "1,2"), by_level, [1, 2])
    batch = cur.next_batch(0, 6)
    assert sorted(r["id"] for r in batch) == ["a0", "a1", "a2", "b0", "b1", "b2"] and cur.level == "mixed"
    assert not cur.maybe_promote(1, 1.0, 0.5) and cur.level == "mixed"


def test_tensorboard_flag_needs_the_package():
    import importlib.util

    if importlib.util.find_spec("tensorboard") is not None:
        pytest.skip("tensorboard is installed")
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--stage", "rl", "--tasks", TASKS, "--tensorboard"])
    assert e.value.code == 2


def test_tensorboard_log_writes_each_numeric_metric_and_level(tmp_path, monkeypatch):
    """TensorBoardLog against a stand-in SummaryWriter (tensorboard itself is optional and absent here): every
    numeric metric of a row under rl/<key> at its step (not the step, not a bool, not text), and each level's
    held-out pass@1 and pass@N as heldout/pass1_L<level> and heldout/pass_k_L<level> (a level not measured: none)."""
    import sys

    written, closed = [], []

    class Writer:
        def __init__(self, log_dir):
            self.log_dir = log_dir

        def add_scalar(self, tag, value, step):
            written.append((tag, value, step))

        def close(self):
            closed.append(self.log_dir)

    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", types.SimpleNamespace(SummaryWriter=Writer))
    tb = ev.TensorBoardLog(str(tmp_path), True)
    tb.log({"step": 3, "loss": 0.25, "acc": 1, "resumed": True, "level": "mixed", "kl_ref": 1e-4})
    tb.log_eval({"step": 3, "heldout_pass1_by_level": {"1": 0.7, "2": None},
                 "heldout_pass_k_by_level": {"1": 0.9}})
    tb.close()
    assert written == [("rl/loss", 0.25, 3), ("rl/acc", 1, 3), ("rl/kl_ref", 1e-4, 3),
                       ("heldout/pass1_L1", 0.7, 3), ("heldout/pass_k_L1", 0.9, 3)]
    assert closed == [os.path.join(str(tmp_path), "tensorboard")]
    off = ev.TensorBoardLog(str(tmp_path), False)   # without the flag: nothing written, nothing imported
    off.log({"step": 1, "loss": 1.0})
    off.close()
    assert len(written) == 5


def test_kl_to_the_sft_policy_hand_computed(tiny):
    """kl_ref = mean over the batch's tokens of k3(log p_SFT - log p_rollout): the RL adapter moved off zero, the
    reference log-probs taken with it switched off."""
    import copy

    pol = copy.deepcopy(tiny)
    torch.manual_seed(0)
    with torch.no_grad():
        for name, p in pol.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.05)
    samples = fake_samples(pol, 2, seed=8)
    ref = train.batch_logprobs(pol, samples, 2, 512, reference=True)
    old = [torch.tensor(s.logprobs) for s in samples]
    x = torch.cat([r - o for r, o in zip(ref, old)])
    want = (torch.exp(x) - 1 - x).mean().item()
    opt = torch.optim.SGD(P.trainable_parameters(pol), lr=0.0)
    out = train.update_policy(pol, opt, samples, [ok(), bad()], 2, rl_args())
    assert want > 1e-4 and out["kl_ref"] == pytest.approx(want, rel=1e-3)


def test_heldout_eval_pass1_and_pass_k_per_level(monkeypatch):
    """Every level's greedy pass@1, and pass@N from N samples a task (stub model and judge): task a0 has 1 correct
    sample of 2, a1 none, b0 both; pass@2 is then (1 + 0) / 2 at level 1 and 1 at level 2."""
    answers = {"a0": [True, False], "a1": [False, False], "b0": [True, True]}
    calls = []

    def generate(pol, prompts, *a, **k):
        calls.append(len(prompts))
        return [types.SimpleNamespace(text=p) for p in prompts]

    class Judge:
        def verify_many(self, pairs, **kw):
            seen = {}
            out = []
            for src, _ in pairs:
                i = seen.get(src, 0)
                seen[src] = i + 1
                n = len(answers[src])
                out.append(ok() if answers[src][i % n] else bad())
            return out

    monkeypatch.setattr(P, "generate", generate)
    monkeypatch.setattr(P, "render_prompt", lambda tok, src, form=None: src)
    pol = types.SimpleNamespace(tokenizer=None, source_form="raw")
    held = {1: [{"source": "a0"}, {"source": "a1"}], 2: [{"source": "b0"}]}
    out = ev.heldout_eval(pol, Judge(), held, rl_args("--heldout-samples", "2"), 3)
    assert out["pass1"] == {"1": 0.5, "2": 1.0}           # greedy: each task's first answer
    assert out["pass_k"] == {"1": 0.5, "2": 1.0} and calls == [2, 1, 4, 2]
    assert ev.heldout_mean(out["pass1"], held) == pytest.approx(2 / 3)
    assert "pass_k" not in ev.heldout_eval(pol, Judge(), held, rl_args(), 3)
