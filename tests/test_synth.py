"""Tests of the CSP-DAG generator: every op, the shape solver's constraints, determinism, validation, import."""
import json
import os
import re
import subprocess
import sys
from collections import Counter

import pytest
import torch

import synth

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KB_DIR = os.path.join(HERE, "kernelbench")

# every family of shared/kernelbench_ops.md (Levels 1 and 2)
KERNELBENCH_FAMILIES = """mul linear(gemm) add conv2d conv_transpose3d sigmoid gelu div conv_transpose2d group_norm max_pool
conv3d tanh mean matmul sub clamp batch_norm relu softmax sum avg_pool leaky_relu logsumexp mish hardtanh min(reduce)
max(reduce) hardswish cumsum adaptive_avg_pool min(elementwise) instance_norm layer_norm pow conv_transpose1d abs
softplus norm conv1d sqrt dropout hardsigmoid bmm cross_entropy kl_div selu select argmin narrow flip
tripletmarginloss log_softmax argmax log elu zeros_like triu einsum cat cumprod scaled_dot_product_attention tril
smooth_l1_loss""".split()

BUDGET = synth.make_budget("cpu")


def test_table_covers_every_kernelbench_family_and_61_ops():
    families = {op.family for op in synth.OPS.values()}
    missing = [f for f in KERNELBENCH_FAMILIES if f not in families]
    assert not missing, missing
    assert len(synth.POOL) >= 61


@pytest.mark.parametrize("op", synth.POOL)
def test_every_op_renders_runs_and_validates(op):
    rec, why, _ = synth.sample_program(1, 0, 7, BUDGET, bag=[op])
    assert rec is not None, why
    assert rec["ops"] == [op]
    ns = synth.exec_source(rec["source"])
    _, _, out = synth.run_reference(ns, seed=3)
    assert list(out.shape) == rec["program"]["nodes"][-1]["shape"]


def _programs(levels=(1, 2, 5), per_level=40, seed=11):
    out = []
    for lv in levels:
        for i in range(per_level):
            rec, _, _ = synth.sample_program(lv, i, seed, BUDGET)
            if rec:
                out.append(rec)
    return out


@pytest.fixture(scope="module")
def programs():
    return _programs()


@pytest.mark.slow
def test_solver_respects_constraints(programs):
    """Property test: every dim in [1, 2^15], budgets hold, and the recorded shape of every node equals the
    shape PyTorch computes (checks broadcasting, contraction, conv/pool arithmetic and group rules)."""
    assert len(programs) >= 110
    for rec in programs:
        prog = rec["program"]
        shapes = [t["shape"] for t in prog["inputs"] + prog["params"]] + [n["shape"] for n in prog["nodes"]]
        assert all(1 <= d <= synth.MAX_DIM for s in shapes for d in s), rec["id"]
        assert sum(synth.numel(s) for s in shapes) <= BUDGET.max_elements
        assert rec["flops"] <= BUDGET.max_flops
        traced = synth.load_task(rec["source"])
        computed = [n["shape"] for n in traced["nodes"]]
        assert computed == [n["shape"] for n in prog["nodes"]], rec["id"]
        for n in prog["nodes"]:
            if n["op"] == "group_norm":
                assert n["module_args"]["num_channels"] % n["module_args"]["num_groups"] == 0
            if n["op"] in ("conv1d", "conv2d", "conv3d"):
                g = n["module_args"].get("groups", 1)
                assert n["module_args"]["in_channels"] % g == 0 and n["module_args"]["out_channels"] % g == 0


def test_rendered_program_imports_back_to_same_ops(programs):
    for rec in programs:
        assert synth.load_task(rec["source"])["ops"] == rec["ops"], rec["id"]


def test_levels_count_compute_ops(programs):
    for rec in programs:
        assert len(rec["ops"]) == rec["level"]


def test_same_seed_same_bytes_and_other_seed_differs():
    a, _ = synth.generate(30, [1, 2, 5], seed=5, budget=BUDGET, workers=1, progress=False)
    b, _ = synth.generate(30, [1, 2, 5], seed=5, budget=BUDGET, workers=1, progress=False)
    c, _ = synth.generate(30, [1, 2, 5], seed=6, budget=BUDGET, workers=1, progress=False)
    dump = lambda recs: "\n".join(json.dumps(r, sort_keys=True) for r in recs)
    assert dump(a) == dump(b)
    assert dump(a) != dump(c)
    assert len({r["hash"] for r in a}) == len(a)  # deduplicated


@pytest.mark.slow
def test_cli_same_seed_byte_identical_across_worker_counts(tmp_path):
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"t{workers}.jsonl"
        r = subprocess.run([sys.executable, "synth.py", "--num-programs", "12", "--levels", "1,2", "--seed", "3",
                            "--workers", str(workers), "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "programs/s" in r.stdout
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_balanced_draws_are_uniform_at_level_1():
    deck = synth.level_deck(0, 1, 10 * len(synth.POOL))
    counts = {op: deck.count(op) for op in synth.POOL}
    assert set(counts.values()) == {10}


DEGENERATE = {
    "constant output": "x = torch.zeros_like(x) + 1.0",
    "an all-zeros answer passes the tolerance": "x = x * 0.001",
    "non-finite output": "x = torch.log(x - 10.0)",
    "output does not depend on input 1": "x = x + 0.0 * y.sum()",
}


@pytest.mark.parametrize("reason", sorted(DEGENERATE))
def test_degenerate_programs_are_rejected(reason):
    src = f"""
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y):
        {DEGENERATE[reason]}
        return x
def get_inputs():
    return [torch.randn(4, 8), torch.randn(4, 8)]
def get_init_inputs():
    return []
"""
    assert synth.validate(src) == reason


def test_ill_conditioned_programs_are_rejected():
    """The H200 case: rms_norm -> norm over its own row gives sqrt(9) up to rounding; instance_norm blows
    that rounding up and argmax then picks noise. Also float outputs that are rounding noise."""
    head = "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def __init__(self):\n" \
           "        super().__init__()\n        self.rms = nn.RMSNorm((9,), eps=1e-5)\n" \
           "        self.inorm = nn.InstanceNorm2d(31)\n    def forward(self, x):\n"
    tail = "def get_inputs():\n    return [torch.randn(6, 31, 29, 9)]\ndef get_init_inputs():\n    return []\n"
    noise = "        v = self.inorm(torch.norm(self.rms(x), p=2.0, dim=3, keepdim=True))\n"
    argmax = head + noise + "        return torch.argmax(v, dim=1, keepdim=True)\n" + tail
    assert synth.validate(argmax) == "ill-conditioned: fp32 and fp64 answers differ (integer output)"
    floats = head + noise + "        return v * 100.0\n" + tail
    assert synth.validate(floats).startswith("ill-conditioned: fp32 and fp64 answers differ by")
    # the same chain without the cancellation (instance_norm of the input itself) is a fine task
    fine = head + "        return torch.argmax(self.inorm(self.rms(x)), dim=1, keepdim=True)\n" + tail
    assert synth.validate(fine) is None


def test_valid_program_passes_validation():
    src = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y):
        return torch.relu(x) + y
def get_inputs():
    return [torch.randn(4, 8), torch.randn(4, 8)]
def get_init_inputs():
    return []
"""
    assert synth.validate(src) is None


EXPECTED_IMPORTS = {
    "2_conv2d_relu_biasadd.py": ["conv2d", "relu", "add"],
    "2_gemm_groupnorm_swish_multiply.py": ["linear", "group_norm", "sigmoid", "mul", "mul", "sigmoid", "mul"],
    "2_convtranspose3d_maxpool_softmax_subtract_swish_max.py":
        ["conv_transpose3d", "max_pool3d", "softmax", "sub", "sigmoid", "mul", "amax"],
    "2_matmul_divide_sum_scaling.py": ["matmul", "div_scalar", "sum", "mul_scalar"],
    "2_conv3d_batchnorm_avgpool_hardswish_clamp.py":
        ["conv3d", "batch_norm3d", "avg_pool3d", "hardswish", "clamp", "mean"],
    "1_frobenius_norm.py": ["norm", "div"],
    "1_argmax_over_dim.py": ["argmax"],
    "1_softmax_layernorm_leakyrelu.py": ["layer_norm", "leaky_relu", "softmax"],
}


@pytest.mark.parametrize("fn", sorted(EXPECTED_IMPORTS))
def test_kernelbench_files_import_fully(fn):
    prog = synth.load_task(os.path.join(KB_DIR, fn))
    assert prog["ops"] == EXPECTED_IMPORTS[fn]
    mods = [n for n in prog["nodes"] if n["module_args"]]
    assert all(n["module"] for n in mods)


def test_import_reads_attrs_and_keeps_unknown_ops_as_opaque():
    src = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.LeakyReLU(0.3)
    def forward(self, x):
        x = torch.sum(x, 1, True)
        x = self.act(x)
        return torch.fft.fft(x).real
def get_inputs():
    return [torch.randn(4, 8)]
def get_init_inputs():
    return []
"""
    prog = synth.load_task(src)
    assert prog["ops"][:2] == ["sum", "leaky_relu"]
    assert prog["nodes"][0]["attrs"] == {"dim": 1, "keepdim": True}
    assert prog["nodes"][1]["attrs"]["negative_slope"] == 0.3
    assert prog["ops"][2].startswith("opaque:")


@pytest.mark.slow
def test_import_report_cli_last_line(tmp_path):
    r = subprocess.run([sys.executable, "synth.py", "--import", KB_DIR, "--report"], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    n = len([f for f in os.listdir(KB_DIR) if f.endswith(".py")])
    assert r.stdout.strip().splitlines()[-1] == f"coverage: {n}/{n} files fully covered"
    # a broken file and an uncovered op are reported, not fatal
    (tmp_path / "broken.py").write_text("this is not python(")
    (tmp_path / "fft.py").write_text(
        "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n"
        "        return torch.fft.fft(x).real\ndef get_inputs():\n    return [torch.randn(4)]\n"
        "def get_init_inputs():\n    return []\n")
    r = subprocess.run([sys.executable, "synth.py", "--import", str(tmp_path), "--report"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert "broken.py: ERROR" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "coverage: 0/2 files fully covered"


@pytest.mark.parametrize("argv", [["--levels", "0"], ["--levels", "a,b"], ["--num-programs", "0"],
                                  ["--import", "/nonexistent/dir"], ["--size", "huge"]])
def test_bad_flags_exit_2_with_message(argv):
    r = subprocess.run([sys.executable, "synth.py"] + argv, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2
    assert "error" in r.stderr.lower()


def test_read_tasks_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "source": "x"}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        synth.read_tasks(str(bad))
    with pytest.raises(FileNotFoundError):
        synth.read_tasks(str(tmp_path / "missing.jsonl"))
    recs = synth.read_tasks(KB_DIR)
    assert len(recs) == len(EXPECTED_IMPORTS)


def test_paper_size_preset_gives_larger_programs():
    paper = synth.make_budget("paper")
    rec, why, _ = synth.sample_program(2, 0, 0, paper, bag=["linear", "relu"])
    assert rec is not None, why
    assert rec["flops"] > BUDGET.max_flops or rec["bytes"] > 4 * 4096


def test_op_pool_restricts_generation():
    pool = synth.op_pool("elementwise")
    assert set(pool) == {o for o in synth.POOL if synth.OPS[o].kind in ("unary", "scalar", "binary")}
    assert synth.op_pool("conv,relu") == [o for o in synth.POOL if synth.OPS[o].kind == "conv" or o == "relu"]
    with pytest.raises(ValueError, match="unknown op or kind"):
        synth.op_pool("nonsense")
    # weights: "conv*4" lists each convolution 4 times, every other op once; the decks draw in that ratio
    weighted = synth.op_pool("all,conv*4")
    assert Counter(weighted) == Counter({o: 4 if synth.OPS[o].kind == "conv" else 1 for o in synth.POOL})
    deck = synth.level_deck(0, 1, 40 * len(weighted), weighted)
    assert deck.count("conv2d") == 4 * deck.count("relu") == 160
    for bad in ("conv*0", "conv*x", "all,relu*-2"):
        with pytest.raises(ValueError, match="integer >= 1"):
            synth.op_pool(bad)
    rep = synth.coverage_report([{"level": 1, "ops": [o]} for o in weighted], weighted)
    assert rep["pool_size"] == len(synth.POOL) and rep["levels"][1]["tv_distance"] < 1e-9
    recs, _ = synth.generate(12, [1, 2], seed=0, budget=BUDGET, workers=1, progress=False, ops="unary")
    assert len(recs) == 12 and all(synth.OPS[o].kind == "unary" for r in recs for o in r["ops"])


def test_anchored_programs_are_a_heavy_op_and_its_epilogue():
    """generate(anchored=share): that share of the level >= 2 programs is KernelBench level 2's shape (a GEMM or
    convolution first, epilogue ops after it); level 1 and anchored=0 are drawn as before."""
    recs, _ = synth.generate(24, [1, 2, 3], 3, BUDGET, workers=1, progress=False, anchored=1.0)
    plain, _ = synth.generate(24, [1, 2, 3], 3, BUDGET, workers=1, progress=False)
    again, _ = synth.generate(24, [1, 2, 3], 3, BUDGET, workers=1, progress=False, anchored=1.0)
    assert [r["hash"] for r in recs] == [r["hash"] for r in again]  # deterministic
    assert [r["source"] for r in recs if r["level"] == 1] == [r["source"] for r in plain if r["level"] == 1]
    higher = [r for r in recs if r["level"] >= 2]
    assert len(higher) == 16 and all(len(r["ops"]) == r["level"] for r in higher)
    for r in higher:
        assert synth.OPS[r["ops"][0]].kind in synth.ANCHOR_KINDS, r["ops"]
        assert all(synth.OPS[o].kind in synth.EPILOGUE_KINDS for o in r["ops"][1:]), r["ops"]
    assert sum(synth.OPS[r["ops"][0]].kind in synth.ANCHOR_KINDS for r in plain if r["level"] >= 2) < 16
    half = [synth.is_anchored(3, 2, i, 0.5) for i in range(400)]
    assert 150 < sum(half) < 250 and not synth.is_anchored(3, 1, 0, 1.0)


@pytest.mark.slow
def test_transposed_matmul_operands_are_views_named_as_stored():
    """A transposed operand is drawn in its stored shape (K, M) and read through a `.T` view node, which renders as
    `A.T` inline and imports back as the same node; its size constants are named in the stored order."""
    budget = synth.make_budget("cpu")
    seen = set()
    for i in range(200):
        rec, _, _ = synth.sample_program(1, i, 5, budget, bag=["matmul"], style="kernelbench")
        if rec is None:
            continue
        prog = rec["program"]
        mm = prog["nodes"][-1]
        assert rec["ops"] == ["matmul"] and mm["op"] == "matmul"
        for v in (n for n in prog["nodes"] if n["op"] == "view:getattr"):
            slot = mm["inputs"].index(v["name"])
            stored = next(t for t in prog["inputs"] if t["name"] == v["inputs"][0])
            assert stored["shape"] == v["shape"][::-1]
            assert f"{v['inputs'][0]}.T" in rec["source"]
            if slot == 0:   # A stored (K, M): get_inputs names its dims K then M, as KernelBench 16 does
                assert re.search(r"torch\.rand[n]?\(K, (M|\*\w+)\)", rec["source"]), rec["source"]
            seen.add("A.T" if slot == 0 else "B.T")
        imported = synth.load_task(rec["source"])
        assert [(n["op"], n["shape"]) for n in imported["nodes"]] == [(n["op"], n["shape"]) for n in prog["nodes"]]
        if len(prog["inputs"][0]["shape"]) > 2:
            assert "torch.mm(" not in rec["source"]
            seen.add("batched")
    assert seen == {"A.T", "B.T", "batched"}
