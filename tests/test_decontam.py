"""Decontamination against KernelBench: `synth.decontaminate` and `synth.py --decontaminate`.

It must report a KernelBench file fed back verbatim, resized, and renamed+resized (multi-op), report a 1-op
file that keeps KernelBench's prose, and pass a generated set (including single-op programs of the same ops as
KernelBench's level-1 files, which are not contamination by themselves).

    python -m pytest tests/test_decontam.py
"""
import json
import os
import re
import subprocess
import sys

import pytest

import synth

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB = os.path.join(ROOT, "..", "shared", "KernelBench")
pytestmark = pytest.mark.skipif(not os.path.isdir(KB), reason="../shared/KernelBench not present")
L2_FILE = os.path.join(KB, "level2", "1_Conv2D_ReLU_BiasAdd.py")
RELU_FILE = os.path.join(KB, "level1", "19_ReLU.py")


def _read(path):
    with open(path) as f:
        return f.read()


def _resize(src: str) -> str:
    """Every module-level integer constant changed (sizes), comments dropped."""
    src = re.sub(r"^(\w+\s*=\s*)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 3), src, flags=re.M)
    return re.sub(r"#.*", "", src)


def _rename(src: str) -> str:
    """Identifiers renamed (args, locals, attributes, constants) and docstrings rewritten."""
    for old, new in (("in_channels", "cin"), ("out_channels", "cout"), ("kernel_size", "ks"), ("bias_shape", "bshape"),
                     ("batch_size", "B"), ("self.conv", "self.layer"), ("self.bias", "self.offset"),
                     ("height", "H"), ("width", "W"), ("(self, x)", "(self, inp)"), ("(x)", "(inp)"), ("x = ", "inp = "), ("return x", "return inp"),
                     ("(x,", "(inp,"), ("x +", "inp +"), ("dim", "size")):
        src = src.replace(old, new)
    return re.sub(r'"""(.|\n)*?"""', '"""A network we wrote."""', src)


def test_kernelbench_files_are_reported_verbatim_resized_and_renamed():
    src = _read(L2_FILE)
    recs = [{"id": "verbatim", "source": src}, {"id": "resized", "source": _resize(src)},
            {"id": "renamed", "source": _rename(_resize(src))}]
    hits = synth.decontaminate(recs, [KB])
    got = {(t, os.path.basename(f), rule) for t, f, rule in hits}
    assert ("verbatim", "1_Conv2D_ReLU_BiasAdd.py", "verbatim") in got
    assert ("resized", "1_Conv2D_ReLU_BiasAdd.py", "structure") in got
    assert ("renamed", "1_Conv2D_ReLU_BiasAdd.py", "structure") in got


def test_single_op_files_need_their_own_text():
    relu = _read(RELU_FILE)
    ours = {"id": "synthetic_relu", "source": """import torch
import torch.nn as nn


class Model(nn.Module):
    \"\"\"Simple model that performs a ReLU.\"\"\"
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 16
dim = 384


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
"""}
    recs = [{"id": "verbatim", "source": relu}, {"id": "resized", "source": _resize(relu)}, ours,
            {"id": "renamed_no_prose", "source": _rename(_resize(relu))}]
    got = {(t, os.path.basename(f), rule) for t, f, rule in synth.decontaminate(recs, [KB])}
    assert ("verbatim", "19_ReLU.py", "verbatim") in got
    assert ("resized", "19_ReLU.py", "docstring") in got          # KernelBench's prose kept
    assert not [g for g in got if g[0] in ("synthetic_relu", "renamed_no_prose")]  # the op alone is not a leak


@pytest.mark.slow
def test_generated_set_is_clean_and_cli_exit_codes(tmp_path):
    out = tmp_path / "tasks.jsonl"
    r = subprocess.run([sys.executable, "synth.py", "--num-programs", "120", "--levels", "1,2", "--seed", "0",
                        "--workers", "1", "--style", "kernelbench", "--out", str(out)], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "synth.py", "--decontaminate", str(out), "--against", KB], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0/120 tasks" in r.stdout
    with open(out, "a") as f:  # a renamed, resized KernelBench level-2 file slipped into the set
        f.write(json.dumps({"id": "leak_0001", "source": _rename(_resize(_read(L2_FILE)))}) + "\n")
    r = subprocess.run([sys.executable, "synth.py", "--decontaminate", str(out), "--against", KB], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "CONTAMINATED leak_0001: structure match with" in r.stdout and "1_Conv2D_ReLU_BiasAdd.py" in r.stdout
    assert "1/121 tasks" in r.stdout


def test_every_kernelbench_file_matches_itself():
    """The normaliser reads every L1/L2 file, and each file is caught at least by its own copy."""
    files = synth.kernelbench_files([os.path.join(KB, "level1"), os.path.join(KB, "level2")])
    assert len(files) == 200
    recs = [{"id": os.path.basename(f), "source": _resize(_read(f))} for f in files]
    hits = synth.decontaminate(recs, [KB])
    self_hits = {t for t, f, _ in hits if os.path.basename(f) == t}
    multi = [f for f in files if synth.normalized_source(_read(f))[1] >= 2]
    # every multi-op file is caught resized; 1-op files are caught when their prose survives (all of KernelBench's)
    assert {os.path.basename(f) for f in multi} <= self_hits
    assert len(self_hits) >= 190


def test_a_signed_literal_is_not_an_op():
    """A negated constant (`min_val=-1.`) is part of one op: counted as a second op it made level1/32_HardTanh.py
    a 2-op forward, and every synthetic hardtanh with negated bounds matched it by structure alone."""
    hardtanh = _read(os.path.join(KB, "level1", "32_HardTanh.py"))
    assert synth.normalized_source(hardtanh)[1] == 1
    ours = {"id": "synthetic_hardtanh", "source": """import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    \"\"\"A model that applies a HardTanh.\"\"\"
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(x, min_val=-1.0, max_val=1.0)


N = 3
dim = 59


def get_inputs():
    return [torch.randn(N, dim)]


def get_init_inputs():
    return []
"""}
    assert synth.decontaminate([ours], [KB]) == []
    negated = ours["source"].replace("return F.hardtanh(x, min_val=-1.0, max_val=1.0)", "return -x")
    assert synth.normalized_source(negated)[1] == 1  # an op on a tensor still counts
