"""search.py: fragment extraction, the beam DP on hand-made times, autotune edits, and searches on CPU with the
single-op stand-in policy (the teacher on one-op fragments only) and the reference policy.

tests/search_data/tasks.jsonl holds three synthetic tasks (synth.py --seed 0, CPU sizes): two of level 5 and
one of level 20. tests/search_data/linear_gate.py is a hand-written KernelBench task with an nn.Parameter, a
Linear module, a flatten view and a skip connection (mul(v, sigmoid(v))).
"""
import json
import os

import pytest
import torch

import search
import synth
import teacher

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TASKS = os.path.join(HERE, "search_data", "tasks.jsonl")
GATE = os.path.join(HERE, "search_data", "linear_gate.py")
KB_SHAPES = os.path.join(HERE, "search_data", "clamp_max_leaky.py")


def gate_record():
    return {"id": "linear_gate", "level": None, "source": open(GATE).read()}


def fragment_model_output(frag, full_model, env):
    """Run a fragment task's own Model on the full program's tensors, with the full model's module weights."""
    ns = synth.exec_source(frag["source"], "frag")
    model = ns["Model"](*ns["get_init_inputs"]())
    for flat, path in frag["modules"].items():
        getattr(model, flat).load_state_dict(full_model.get_submodule(path).state_dict())
    with torch.no_grad():
        return model(*[env[x] for x in frag["inputs"]])


# ----------------------------------------------------------------------------------------------------
# The task's own run (specs, in-process timing)


def test_task_model_is_built_on_the_device_and_on_the_cpu_where_it_must():
    """search.task_model builds the task's Model with the device as torch's default device, so its weights are
    drawn there and no CPU generator is used ('meta' stands in for the GPU); a Model that cannot be built that way
    is built on the CPU under the same seed and moved. On the CPU it is the seeded Model as the judge builds it."""
    ns = synth.exec_source(open(GATE).read(), "gate")
    m = search.task_model(ns, "meta")
    assert all(p.device.type == "meta" for p in m.parameters())
    state = torch.random.get_rng_state()
    torch.manual_seed(42)
    assert torch.equal(state, torch.random.get_rng_state())  # seeded, then nothing drawn on the CPU
    torch.manual_seed(42)
    expected = ns["Model"](*ns["get_init_inputs"]()).state_dict()
    got = search.task_model(ns, "cpu").state_dict()
    assert expected.keys() == got.keys() and all(torch.equal(expected[k], got[k]) for k in got)

    class HostOnly(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(3))
            self.scale = float(self.w.sum())  # reads a value: impossible on 'meta'

    built = search.task_model({"Model": HostOnly, "get_init_inputs": lambda: []}, "meta")
    assert built.w.device.type == "meta"


# ----------------------------------------------------------------------------------------------------
# Fragment extraction


def test_fragments_of_hand_written_task():
    rec = gate_record()
    program = search.program_of(rec)
    model, _, env = search.run_program(program, rec["source"])
    specs = {k: search.tensor_spec(v) for k, v in env.items()}
    frags, skipped = search.all_fragments(program, specs, 5, "gate")
    spans = {tuple(f["span"]): f for f in frags}
    # 5 ops: linear, mul(scale), sigmoid, mul(skip), tanh. Fragments ending at sigmoid (1..2, 0..2) let two
    # tensors out (mul is reused by the skip), so they are skipped; every single op is a fragment.
    assert {(a, b) for a, b, _ in skipped} == {(0, 2), (1, 2)}
    assert all((i, i) in spans for i in range(5)) and len(frags) == 15 - 2
    mul = spans[(1, 1)]  # the parameter becomes a forward input with its shape
    assert mul["inputs"] == ["linear", "scale"] and mul["program"]["params"] == []
    assert [t["shape"] for t in mul["program"]["inputs"]] == [[4, 16], [16]]
    assert "def forward(self, x, y)" in mul["source"] and "nn.Parameter" not in mul["source"]
    lin = spans[(0, 0)]  # the view before the first op runs outside; the module stays a module
    assert lin["inputs"] == ["flatten"] and lin["program"]["inputs"][0]["shape"] == [4, 24]
    assert lin["modules"] == {"linear": "linear"} and "nn.Linear(in_features=24, out_features=16, bias=True)" in lin["source"]
    assert spans[(2, 2)]["program"]["inputs"][0]["shape"] == [4, 16]
    # value domains: sigmoid's output is positive, so a fragment reading it gets positive inputs
    assert specs["sigmoid"]["dom"] == "pos" and "torch.rand(4, 16) + 0.5" in spans[(3, 4)]["source"]
    for f in frags:  # every fragment's own reference equals the slice of the full computation
        torch.testing.assert_close(fragment_model_output(f, model, env), env[f["output"]])
        ns = synth.exec_source(f["source"], "frag")
        shapes = [list(x.shape) for x in ns["get_inputs"]()]
        assert shapes == [specs[x]["shape"] for x in f["inputs"]]


def test_kernelbench_failures_render_and_fragment():
    """Found on KernelBench level 2: clamp(x, min=m) with no max (task 100: SearchError), an
    nn.LeakyReLU module (task 12: its single-op fragment was skipped, then StopIteration timing it on CUDA),
    torch.max(x, dim, keepdim=True)[0] (task 18: amax's tensor was indexed by [0], IndexError later). The
    program as search runs it equals the task's Model, and every op has its one-op fragment."""
    rec = {"id": "kb", "level": None, "source": open(KB_SHAPES).read()}
    program = search.program_of(rec)
    assert program["ops"] == ["linear", "clamp", "leaky_relu", "amax", "logsumexp"]
    model, inputs, env = search.run_program(program, rec["source"])
    with torch.no_grad():
        want = model(*inputs)
    torch.testing.assert_close(env[program["output"]], want, rtol=0, atol=0)
    specs = {k: search.tensor_spec(v) for k, v in env.items() if hasattr(v, "shape")}
    frags, skipped = search.all_fragments(program, specs, 5, "kb")
    spans = {tuple(f["span"]): f for f in frags}
    assert not skipped and all((i, i) in spans for i in range(5)) and len(frags) == 15
    assert spans[(2, 2)]["modules"] == {} and "negative_slope=0.1" in spans[(2, 2)]["source"]
    for frag in frags:  # each fragment's own Model reproduces the full program's tensor
        torch.testing.assert_close(fragment_model_output(frag, model, env), env[frag["output"]], rtol=0, atol=0)
    # the hybrid with every op in PyTorch except one kernel slot assembles and names torch.max's tuple
    src = search.assemble(program, rec["source"], [(0, 0, "torch"), (1, 1, "torch"), (2, 2, "torch"),
                                                   (3, 3, "torch"), (4, 4, "torch")], {})
    assert "torch.max(" in src and "max_val=None" not in src and "max=None" in src


def test_node_rendering_defaults_and_clear_errors():
    """x.mean(dim=[1, 2]) is imported without keepdim (KernelBench L2 tasks 23, 27): PyTorch's default renders;
    a module op imported without a module or its settings is a SearchError, not an AttributeError on '__MOD__';
    with the settings (a functional pool, L2 task 67) it renders as the F call."""
    mean = {"name": "mean", "op": "mean", "inputs": ["x"], "attrs": {"dim": [1, 2]}}
    assert search.node_expr(mean, ["x"], None) == "torch.mean(x, dim=[1, 2], keepdim=False)"
    clamp = {"name": "c", "op": "clamp", "inputs": ["x"], "attrs": {"max": 2.0}}
    assert search.node_expr(clamp, ["x"], None) == "torch.clamp(x, min=None, max=2.0)"
    assert search.node_expr({"name": "m", "op": "mean", "inputs": ["x"], "attrs": {}}, ["x"], None) == \
        "torch.mean(x, dim=None, keepdim=False)"  # torch.mean(x): KernelBench L1 MSELoss, HingeLoss
    rsub = {"name": "s", "op": "sub_scalar", "inputs": ["x"], "attrs": {"value": 1, "reverse": True}}
    assert search.node_expr(rsub, ["x"], None) == "(1 - x)"  # 1 - x, not x - 1
    norm = {"name": "n", "op": "norm", "inputs": ["x"], "attrs": {"p": "fro"}}
    assert search.node_expr(norm, ["x"], None) == "torch.norm(x, p='fro', dim=None, keepdim=False)"
    pool = {"name": "p", "op": "adaptive_avg_pool2d", "inputs": ["x"], "attrs": {}}
    with pytest.raises(search.SearchError, match="no module"):
        search.node_expr(pool, ["x"], None)
    # a functional pool imported with its settings (L2 task 67) renders as the same F call, and computes it
    pool["module_args"] = {"output_size": 1}
    assert search.node_expr(pool, ["x"], None) == "F.adaptive_avg_pool2d(x, output_size=1)"
    mp = {"name": "q", "op": "max_pool2d", "inputs": ["x"], "attrs": {},
          "module_args": {"kernel_size": 2, "stride": 2, "padding": 0, "dilation": 1, "ceil_mode": False}}
    x = torch.randn(2, 3, 8, 8)
    got = eval(search.node_expr(mp, ["x"], None), {"F": torch.nn.functional, "x": x})
    torch.testing.assert_close(got, torch.nn.functional.max_pool2d(x, 2), rtol=0, atol=0)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="times ops on CUDA")
def test_time_ops_in_program_on_cuda():
    rec = {"id": "kb", "level": None, "source": open(KB_SHAPES).read()}
    program = search.program_of(rec)
    ms = search.time_ops_ms(program, rec["source"], [2, 3], "cuda", trials=3)
    assert set(ms) == {2, 3} and all(v > 0 for v in ms.values())


def test_fragments_of_synthetic_tasks_match_full_program():
    for rec in synth.read_tasks(TASKS):
        program = search.program_of(rec)
        model, _, env = search.run_program(program, rec["source"])
        # run_program's node-by-node evaluation reproduces the task's own forward
        ns = synth.exec_source(rec["source"])
        torch.manual_seed(42)
        ref_model = ns["Model"](*ns["get_init_inputs"]())
        torch.manual_seed(1)
        with torch.no_grad():
            ref = ref_model(*ns["get_inputs"]())
        torch.testing.assert_close(env[program["output"]], ref)
        specs = {k: search.tensor_spec(v) for k, v in env.items() if hasattr(v, "shape")}
        frags, _ = search.all_fragments(program, specs, 2 if rec["level"] == 20 else 5, rec["id"])
        n_ops = len(search.compute_index(program))
        assert sum(f["n_ops"] == 1 for f in frags) == n_ops == rec["level"]
        for f in frags:
            torch.testing.assert_close(fragment_model_output(f, model, env), env[f["output"]])


def test_fragment_of_synthetic_program_compiles_with_teacher():
    rec = synth.read_tasks(TASKS)[0]  # div_scalar -> conv_transpose3d -> elu -> flatten -> linear -> relu6
    program = search.program_of(rec)
    _, _, env = search.run_program(program, rec["source"])
    specs = {k: search.tensor_spec(v) for k, v in env.items()}
    frags, _ = search.all_fragments(program, specs, 5, rec["id"])
    span = {tuple(f["span"]): f for f in frags}
    assert "flatten" in span[(2, 3)]["source"]  # the view between elu and linear travels inside
    solution = teacher.compile_program(span[(2, 3)])
    assert "class ModelNew" in solution and "self.linear.weight" in solution


# ----------------------------------------------------------------------------------------------------
# Covers


def test_beam_dp_picks_cheaper_cover_on_hand_made_times():
    torch_ms = {0: 1.0, 1: 1.0, 2: 1.0}
    kernel_ms = {(0, 0): 1.2, (0, 1): 1.5, (0, 2): 2.5, (1, 2): 0.4}
    covers = search.beam_covers(3, torch_ms, kernel_ms, 3, speed_measured=True)
    # by hand: T0 + K1..2 = 1.4; K0 + K1..2 = 1.6; K0..1 + T2 = 2.5 and K0..2 = 2.5 (tie, 1 kernel each);
    # K0 + T1 + T2 = 3.2 and all-torch = 3.0 are not in the top 3
    assert covers[0] == ((pytest.approx(1.4), 1), [(0, 0, "torch"), (1, 2, "kernel")])
    assert [c[0][0] for c in covers] == pytest.approx([1.4, 1.6, 2.5])
    assert all(any(s[2] == "kernel" for s in segs) for _, segs in covers)
    # a kernel slower than the ops it replaces loses to PyTorch (the conv stays in PyTorch)
    covers = search.beam_covers(2, {0: 1.0, 1: 0.1}, {(0, 0): 3.0, (0, 1): 2.0, (1, 1): 0.05}, 1, True)
    assert covers[0][1] == [(0, 0, "torch"), (1, 1, "kernel")]
    covers = search.beam_covers(2, {0: 1.0, 1: 0.1}, {(0, 0): 3.0}, 1, True)
    assert covers[0][1] == [(0, 0, "torch"), (1, 1, "torch")]


def test_beam_dp_on_cpu_prefers_most_ops_in_fewest_kernels():
    kernel_ms = {(0, 0): None, (1, 1): None, (2, 2): None, (0, 1): None}
    covers = search.beam_covers(3, {}, kernel_ms, 4, speed_measured=False)
    assert covers[0] == ((-3, 2), [(0, 1, "kernel"), (2, 2, "kernel")])
    assert covers[1] == ((-3, 3), [(0, 0, "kernel"), (1, 1, "kernel"), (2, 2, "kernel")])
    assert covers[2][0] == (-2, 1)  # two ops in one kernel, one op in PyTorch


def test_autotune_edits_launch_keywords():
    rec = synth.read_tasks(TASKS)[0]
    solution = teacher.compile_program(rec)
    sites = search.launch_sites(solution)
    assert len(sites) == 2 and all("BLOCK_M" in kws for _, kws in sites)
    line, kws = sites[0]
    variants = search.site_variants(kws)
    assert len(variants) == 8 and all(v["num_warps"] in (2, 4, 8) for v in variants)
    tuned = search.tune_variant(solution, {line: {"BLOCK_M": 32, "num_warps": 2}})
    new_sites = dict(search.launch_sites(tuned))
    assert any(k.get("BLOCK_M") == 32 and k.get("num_warps") == 2 for k in new_sites.values())


# ----------------------------------------------------------------------------------------------------
# Searches on CPU (one shared judge)


@pytest.fixture(scope="module")
def judge():
    from reward import Judge

    with Judge(workers=2, device="cpu", timeout_s=120, trials=2, time_trials=0, policy="partial") as j:
        yield j


@pytest.mark.slow
def test_single_op_search_returns_correct_hybrids(judge):
    proposer = search.SingleOpPolicy("cpu", 0)
    records = synth.read_tasks(TASKS) + [gate_record()]
    for rec in records:
        rows = []
        res = search.search_program(rec, proposer, judge, max_fragment=5, beam=2, do_autotune=True,
                                    log=rows.append, progress=False)
        assert res["kind"] == "hybrid" and res["verdict"]["correct"], (rec["id"], res["stats"], rows[-3:])
        n_ops = res["stats"]["n_ops"]
        # the stand-in solves every single op and nothing longer: the best CPU cover is all one-op kernels
        assert res["cover"] == [[i, i, "kernel"] for i in range(n_ops)]
        assert res["verdict"]["triton_launches"] >= n_ops
        assert "class ModelNew" in res["solution"] and "\nclass Model(" not in res["solution"]
        fr = [r for r in rows if r.get("event") == "fragment"]
        assert sum(r["n_correct"] for r in fr if r["span"][0] == r["span"][1]) == n_ops
        assert all(r["n_correct"] == 0 for r in fr if r["span"][0] != r["span"][1])
        assert any(r.get("event") == "autotune" and "CPU" in r["skipped"] for r in rows)
    # the runner-up cover (last op in PyTorch) is a hybrid the judge accepts too
    covers = [r for r in rows if r.get("event") == "cover"]
    assert len(covers) == 2 and covers[1]["cover"][-1][2] == "torch" and covers[1]["correct"]


def test_hybrid_hands_fragments_contiguous_inputs(judge):
    """The matmul fragment reads weight.T, a strided view; its kernel indexes
    row-major, so without .contiguous() in the hybrid every cover with it was wrong (max_abs_err 11.5)."""
    rec = {"id": "wt", "level": None, "source": open(os.path.join(HERE, "search_data", "matmul_weight_t.py")).read()}
    rows = []
    res = search.search_program(rec, search.SingleOpPolicy("cpu", 0), judge, beam=2, log=rows.append, progress=False)
    covers = [r for r in rows if r.get("event") == "cover"]
    assert res["kind"] == "hybrid" and res["cover"] == [[0, 0, "kernel"], [1, 1, "kernel"]], covers
    assert all(c["correct"] for c in covers) and ".contiguous()" in res["solution"]


def test_budgets_stop_sampling(judge):
    rec = synth.read_tasks(TASKS)[0]
    rows = []
    # 3 samples: the whole program (tried first; the stand-in cannot solve it), then ops 0 and 1
    res = search.search_program(rec, search.SingleOpPolicy("cpu", 0), judge, sample_budget=3, beam=1,
                                log=rows.append, progress=False)
    assert res["stats"]["samples"] == 3 and "sample budget" in res["stats"]["stopped"]
    assert res["kind"] == "hybrid" and res["cover"][:2] == [[0, 0, "kernel"], [1, 1, "kernel"]]
    assert res["cover"][2:] == [[i, i, "torch"] for i in range(2, 5)]


def test_reference_policy_returns_the_program(judge):
    rec = gate_record()
    res = search.search_program(rec, None, judge, progress=False)
    assert res["kind"] == "reference" and res["verdict"]["correct"] and res["verdict"]["speedup"] == 1.0
    assert res["verdict"]["judged"] is False  # the judge needs a Triton launch; this path says so
    assert res["solution"] == rec["source"].replace("class Model(", "class ModelNew(")
    ns, sol = synth.exec_source(rec["source"]), {}
    exec(res["solution"], sol)
    torch.manual_seed(0)
    x = ns["get_inputs"]()
    torch.manual_seed(42)
    a = ns["Model"](*ns["get_init_inputs"]())(*x)
    torch.manual_seed(42)
    b = sol["ModelNew"](*ns["get_init_inputs"]())(*x)
    torch.testing.assert_close(a, b, rtol=0, atol=0)


@pytest.mark.slow
def test_cli_writes_solution_verdict_and_log(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "s"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "search.py"), "--task", f"{TASKS}:L5_0_00001",
                           "--policy", "single-op", "--beam", "1", "--workers", "1", "--trials", "1", "--out",
                           str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, TRITON_INTERPRET="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["hybrid_correct"] == 1.0
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["kind"] == "hybrid" and verdict["verdict"]["correct"]
    assert "class ModelNew" in (out / "solution.py").read_text()
    rows = [json.loads(line) for line in (out / "fragments.jsonl").read_text().splitlines()]
    assert sum(r["event"] == "fragment" for r in rows) == 15 and (out / "run.json").exists()


def test_time_budget_keeps_the_whole_program_single_shot(judge):
    """The whole program is tried first and the first batch always runs: a search whose time budget is spent
    before it starts still returns the policy's single-shot answer."""
    from policy import TeacherPolicy

    rec = synth.read_tasks(TASKS)[0]
    rows = []
    res = search.search_program(rec, TeacherPolicy("cpu", 0), judge, max_fragment=5, beam=1, time_budget_s=0.0,
                                log=rows.append, progress=False)
    frags = [r for r in rows if r.get("event") == "fragment"]
    n_ops = res["stats"]["n_ops"]
    assert frags and frags[0]["span"] == [0, n_ops - 1] and frags[0]["n_correct"] == 1
    assert res["verdict"]["correct"] and res["cover"] == [[0, n_ops - 1, "kernel"]]


def test_cli_one_task_failure_never_stops_the_run(tmp_path, monkeypatch, capsys):
    """Over a task set, an import failure, an unsupported task and a search bug are each that task's
    failed row (summary.jsonl, with the traceback in its fragments.jsonl); the other tasks run. The level comes
    from the directory (level2), not from the file names' numbers."""
    tasks = tmp_path / "level2"
    tasks.mkdir()
    gate = open(GATE).read()
    for name in ("1_gate", "2_gate", "3_gate"):
        (tasks / f"{name}.py").write_text(gate)
    (tasks / "4_unreadable.py").write_bytes(b"\xff\xfe not utf-8")
    (tasks / "5_untraceable.py").write_text(gate.replace("def forward(self, x):", "def forward(self, x):\n"
                                                         "        raise ValueError('no trace')\n\n    def _f(self, x):"))
    real = search.search_program

    def search_program(rec, *a, **kw):
        if rec["id"] == "2_gate":
            raise search.SearchError("op foo: unsupported")
        if rec["id"] == "3_gate":
            raise IndexError("list index out of range")
        return real(rec, *a, **kw)

    monkeypatch.setattr(search, "search_program", search_program)
    out = tmp_path / "s"
    assert search.main(["--task", str(tasks), "--policy", "reference", "--workers", "1", "--out", str(out)]) == 0
    rows = {r["task_id"]: r for r in map(json.loads, (out / "summary.jsonl").read_text().splitlines())}
    assert len(rows) == 5 and {r["level"] for r in rows.values()} == {"2"}
    assert rows["1_gate"]["kind"] == "reference" and rows["1_gate"]["correct"]
    assert {k: rows[k].get("error_type") for k in rows} == {
        "1_gate": None, "2_gate": "search_error", "3_gate": "search_bug", "4_unreadable": "import_error",
        "5_untraceable": "import_error"}
    assert rows["3_gate"]["error"] == "IndexError: list index out of range" and not rows["3_gate"]["correct"]
    log = [json.loads(line) for line in (out / "3_gate" / "fragments.jsonl").read_text().splitlines()]
    assert log[-1]["event"] == "error" and "search_program" in log[-1]["traceback"]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["correct"] == pytest.approx(1 / 5)


@pytest.mark.parametrize("extra, message", [([], "--policy model:/no/such/model"),
                                            (["--engine", "bogus"], "--engine must be one of")])
def test_cli_bad_model_policy_is_a_usage_error(tmp_path, capsys, extra, message):
    """A model policy that cannot load, or an unknown --engine, is one line and exit 2 (search.py had no --engine
    flag, and ModelPolicy read it: an AttributeError)."""
    task = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernelbench", "1_argmax_over_dim.py")
    with pytest.raises(SystemExit) as e:
        search.main(["--task", task, "--policy", "model:/no/such/model", "--out", str(tmp_path / "s")] + extra)
    assert e.value.code == 2 and message in capsys.readouterr().err


class CountingJudge:
    """A Judge seen through search.drive: counts judge calls and the (task, solution) pairs judged."""

    def __init__(self, judge):
        self.judge, self.calls, self.pairs = judge, 0, []
        self.device, self.time_trials, self.workers = judge.device, judge.time_trials, judge.workers

    def verify_many(self, pairs, completions=False, progress=False):
        self.calls += 1
        self.pairs += pairs
        return self.judge.verify_many(pairs, completions=completions, progress=progress)


def test_search_tasks_batches_tasks_and_reuses_the_whole_programs_verdict(judge):
    """Search_tasks runs several tasks' searches together, one judge call a round for all of them; with
    teacher plans each fragment gets one candidate per plan and the fastest correct keeps its plan's name; a
    search cut to the whole program returns its verdict without judging it again; a task whose search raises
    is that task's result, the others finish."""
    from policy import TeacherPolicy

    recs = [gate_record(), dict(gate_record(), id="gate_b"), dict(gate_record(), id="broken", source="not python")]
    counting = CountingJudge(judge)
    logs = [[], [], []]
    res = search.search_tasks(recs, TeacherPolicy("cpu", 0, plans=("triton", "hybrid")), counting,
                              time_budget_s=0.0, logs=[r.append for r in logs])
    assert isinstance(res[2], Exception)
    for r, log in zip(res[:2], logs):
        assert r["kind"] == "hybrid" and r["verdict"]["correct"] and r["cover"] == [[0, 4, "kernel"]]
        assert r["plans"][0] in ("triton", "hybrid") and log[-1]["event"] == "result"
        whole = next(e for e in log if e.get("event") == "fragment")
        assert whole["whole"] and [v["plan"] for v in whole["verdicts"]] == ["triton", "hybrid"]
        assert all(v["correct"] for v in whole["verdicts"]) and set(r["stats"]["whole_plans"]) == {"triton", "hybrid"}
    # Two judge calls for both tasks: their first batches (the whole program in 2 plans, the lone linear in 1: a
    # hybrid of it would leave Triton nothing to do), then their covers. The whole program is judged on the task
    # itself, once: its cover is not judged again; the other cover (linear kernel, the rest torch) is.
    assert counting.calls == 2 and len(counting.pairs) == 2 * 3 + 2
    assert res[0]["solution"] == res[1]["solution"]  # the two tasks share a source: once each, as a fragment
    assert sum(sol == res[0]["solution"] for _, sol in counting.pairs) == 2
    assert sum(src == recs[0]["source"] for src, _ in counting.pairs) == 2 * (2 + 1)


def test_search_tasks_proposes_all_tasks_fragments_in_one_call_and_epilogue_first(judge):
    """Drive answers the searches' Propose requests of a round with one proposer call (a model policy
    generates a chunk's fragments in full batches); with order epilogue-first a sample budget goes to the
    fragments without a GEMM or convolution before those with one, with "shortest" to the first op first."""
    class CountingProposer:
        def __init__(self):
            self.inner, self.calls = search.SingleOpPolicy("cpu", 0), []

        def propose(self, records, n_samples, seed):
            self.calls.append([r["ops"] for r in records])
            return self.inner.propose(records, n_samples, seed)

    rec = {"id": "wt", "level": None, "source": open(os.path.join(HERE, "search_data", "matmul_weight_t.py")).read()}
    for order, second, cover in [("epilogue-first", "sum", [[0, 0, "torch"], [1, 1, "kernel"]]),
                                 ("shortest", "matmul", [[0, 0, "kernel"], [1, 1, "torch"]])]:
        proposer, lines = CountingProposer(), []
        res = search.search_tasks([rec, dict(rec, id="wt_b")], proposer, judge, sample_budget=2, order=order,
                                  progress=lines.append)
        # one call: both tasks' first batch (the whole program, which the stand-in cannot solve, and one fragment)
        assert proposer.calls == [[["matmul", "sum"], [second]] * 2], (order, proposer.calls)
        assert lines[0].startswith("proposed 4 fragments x 1 samples for 2 searches in ")
        assert lines[1].startswith("judge round 1: 4 candidates of 2 searches in ") and lines[1].endswith("(2 correct)")
        assert [r["cover"] for r in res] == [cover, cover] and all(r["verdict"]["correct"] for r in res)
    assert [f["ops"] for f in search.heavy_last([{"ops": ["conv2d"]}, {"ops": ["relu"]}, {"ops": ["linear", "relu"]},
                                                 {"ops": ["relu", "sum"]}])] == \
        [["relu"], ["relu", "sum"], ["conv2d"], ["linear", "relu"]]


def test_uncovered_ops_cost_nothing_and_leave_the_cover_order_as_it_was():
    """An op no kernel covers (a level-2 task's convolution when only its epilogue was sampled) is not timed: the
    search costs it 0, which must rank the covers exactly as its real time does."""
    kernel_ms = {(1, 1): 0.5, (2, 3): 0.625, (1, 3): 1.5, (3, 3): 0.25}  # binary fractions: sums are exact
    assert search.uncovered_ops(5, kernel_ms) == [0, 4]
    real = {0: 9.0, 1: 0.75, 2: 0.375, 3: 0.3125, 4: 2.5}
    free = {a: 0.0 if a in search.uncovered_ops(5, kernel_ms) else ms for a, ms in real.items()}
    ranked = [segs for _, segs in search.beam_covers(5, real, kernel_ms, 6, True)]
    assert [segs for _, segs in search.beam_covers(5, free, kernel_ms, 6, True)] == ranked
    assert ranked[0] == [(0, 0, "torch"), (1, 1, "kernel"), (2, 2, "torch"), (3, 3, "kernel"), (4, 4, "torch")]


def test_drive_turns_a_judge_failure_into_each_searchs_result():
    """search.drive: a judge that raises (beyond the RuntimeError judge_candidates already turns into verdicts)
    ends every search of that round with the exception as its result, so eval.py records each task's failure
    instead of the whole run stopping; a request whose records and candidate lists differ is refused."""
    class BrokenJudge:
        def verify_many(self, pairs, completions=False, progress=False):
            raise OSError("lock directory is gone")

    def one_request():
        yield [{"source": "task"}], [[{"text": "solution", "completion": False, "error_type": None, "error_msg": ""}]]
        return "not reached"

    results = search.drive([one_request(), one_request()], BrokenJudge())
    assert all(isinstance(r, OSError) for r in results)

    def mismatched():
        yield [{"source": "task"}], []
    with pytest.raises(ValueError, match="1 records with 0 candidate lists"):
        search.drive([mismatched()], BrokenJudge())


def test_code_digest_names_the_code_that_ran(tmp_path):
    """run.json's code_sha256: the top-level .py files by name and content; any edit changes it, other files do
    not (git's commit can be stale or absent where a run happens)."""
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    first = search.code_digest(str(tmp_path))
    (tmp_path / "notes.md").write_text("not code")
    assert search.code_digest(str(tmp_path)) == first and len(first) == 16
    (tmp_path / "b.py").write_text("y = 3\n")
    assert search.code_digest(str(tmp_path)) != first
    assert search.run_info()["code_sha256"] == search.code_digest()
