"""Surface features of KernelBench-format sources: `synth.surface_features` and `bench.py kb-surface`,
which set KernelBench's folders beside training task files (constructor arguments and defaults, the prefix
get_init_inputs passes, annotations, input draws) and say what a task file's input draw tells about its op.

    python -m pytest tests/test_surface.py
"""
import json
import os
import subprocess
import sys

import bench
import synth

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB_DIR = os.path.join(ROOT, "tests", "kernelbench")

SOURCE = '''import torch
import torch.nn as nn

class Model(nn.Module):
    """Scales and shifts."""
    def __init__(self, features: int, scale: float = 1.0, shift: float = 0.0):
        super().__init__()
        self.scale, self.shift = scale, shift

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x * self.scale + y + self.shift

features = 16

def get_inputs():
    return [torch.rand(4, features) + 0.5, torch.randint(0, 3, (4, features))]

def get_init_inputs():
    return [features, 2.0]
'''


RAND_ONLY = SOURCE.replace(" + 0.5", "").replace("torch.randint(0, 3, (4, features))", "torch.rand(4, features)")


def test_surface_features_read_the_code():
    f = synth.surface_features(SOURCE)
    assert f == {"init_args": 3, "init_defaults": 2, "prefix": True, "annotated": True, "docstrings": True,
                 "forward_args": 2, "draws": {"pos", "randint"}, "nested": True}   # x * scale inside the sum
    plain = SOURCE.replace("torch.rand(4, features) + 0.5", "torch.randn(4, features)").replace(
        "return [features, 2.0]", "return [features, 2.0, 1.0]")
    assert synth.surface_features(plain)["draws"] == {"randn", "randint"}
    assert synth.surface_features(plain)["prefix"] is False
    chained = SOURCE.replace("return x * self.scale + y + self.shift",
                             "x = x * self.scale\n        x = x.view(x.size(0), -1)\n        return x.add(y)")
    assert synth.surface_features(chained)["nested"] is False   # a size read is not an op
    assert synth.surface_features(SOURCE.replace("x * self.scale + y + self.shift",
                                                 "torch.sigmoid(x).mul(y)"))["nested"] is True
    assert synth.surface_features("def broken(:\n") is None
    assert synth.surface_features("x = 1\n") is None


def test_draw_lift_finds_an_op_marked_by_its_draw():
    """sqrt always drawn with rand, relu and tanh never: rand tells sqrt (lift 3 = 1 / P(sqrt)), the others 0."""
    rows = [{"ops": [op]} for op in ("sqrt", "relu", "tanh") for _ in range(10)]
    feats = [{"draws": {"rand"} if r["ops"] == ["sqrt"] else {"randn"}} for r in rows]
    lift = bench.draw_lift(rows, feats)
    assert lift[0][0] == "sqrt" and abs(lift[0][3] - 3.0) < 1e-9 and lift[0][2] == 1.0
    assert {o for o, _, _, x in lift if x == 0.0} == {"relu", "tanh"}
    even = [{"draws": {"rand"} if i % 2 else {"randn"}} for i in range(len(rows))]
    assert all(abs(x - 1.0) < 1e-9 for _, _, _, x in bench.draw_lift(rows, even))


def test_bench_kb_surface_sets_folders_and_task_files_side_by_side(tmp_path):
    tasks = tmp_path / "run" / "data" / "tasks_sft.jsonl"
    tasks.parent.mkdir(parents=True)
    with open(tasks, "w") as fh:
        for i in range(24):
            fh.write(json.dumps({"level": 1, "ops": ["relu" if i % 2 else "sqrt"],
                                 "source": SOURCE if i % 2 else RAND_ONLY}) + "\n")
    res = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "kb-surface", "--tasks", KB_DIR,
                          str(tasks)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    n_kb = len([f for f in os.listdir(KB_DIR) if f.endswith(".py")])
    assert out["groups"] == {"tests kernelbench": n_kb, "run L1": 24}
    assert out["shares"]["run L1"]["constructor defaults"] == 100.0
    assert out["shares"]["run L1"]["inputs: torch.rand(...) then arithmetic"] == 50.0
    assert out["draw_lift"]["run L1"][0]["op"] == "sqrt" and out["draw_lift"]["run L1"][0]["lift"] == 2.0
    assert "| constructor defaults |" in res.stdout
    bad = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "kb-surface", "--tasks",
                          str(tmp_path / "missing.jsonl")], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode != 0 and "kb-surface:" in bad.stderr and "Traceback" not in bad.stderr
