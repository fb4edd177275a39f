"""Writes tests/data_sft/pairs.jsonl: 16 small elementwise tasks, each with a hand-written Triton solution.

    python tests/data_sft/make_pairs.py

The prompts come from policy.task_prompt, so rerun this after changing the prompt.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
import policy  # noqa: E402

# name, torch expression of x, triton expression of x, N
OPS = [
    ("relu", "torch.relu(x)", "tl.maximum(x, 0.0)", 1024),
    ("abs", "torch.abs(x)", "tl.abs(x)", 2048),
    ("neg", "-x", "-x", 512),
    ("square", "x * x", "x * x", 4096),
    ("double", "x * 2.0", "x * 2.0", 1000),
    ("add_one", "x + 1.0", "x + 1.0", 3000),
    ("sigmoid", "torch.sigmoid(x)", "1.0 / (1.0 + tl.exp(-x))", 1024),
    ("exp", "torch.exp(x)", "tl.exp(x)", 256),
    ("sin", "torch.sin(x)", "tl.sin(x)", 777),
    ("cos", "torch.cos(x)", "tl.cos(x)", 1536),
    ("silu", "x * torch.sigmoid(x)", "x / (1.0 + tl.exp(-x))", 2048),
    ("leaky_relu", "torch.nn.functional.leaky_relu(x, 0.01)", "tl.where(x > 0, x, 0.01 * x)", 999),
    ("hardtanh", "torch.clamp(x, -1.0, 1.0)", "tl.minimum(tl.maximum(x, -1.0), 1.0)", 4000),
    ("affine", "x * 3.0 - 1.0", "x * 3.0 - 1.0", 640),
    ("softplus", "torch.log(1.0 + torch.exp(x))", "tl.log(1.0 + tl.exp(x))", 1200),
    ("cube", "x * x * x", "x * x * x", 2500),
]

TASK = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return {torch_expr}


N = {n}


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
'''

SOLUTION = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def {name}_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = {triton_expr}
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        {name}_kernel[grid](x, out, n, BLOCK=1024)
        return out
'''


def make_pairs():
    pairs = []
    for name, torch_expr, triton_expr, n in OPS:
        source = TASK.format(torch_expr=torch_expr, n=n)
        solution = SOLUTION.format(name=name, triton_expr=triton_expr)
        completion = f"One Triton kernel computes {name} elementwise in a single pass.\n\n```python\n{solution}```"
        pairs.append({"task_id": f"l1_{name}", "prompt": policy.task_prompt(source), "completion": completion,
                      "verdict": {"correct": True, "compiled": True, "source": "hand-written"}})
    return pairs


if __name__ == "__main__":
    with open(os.path.join(HERE, "pairs.jsonl"), "w") as f:
        for pair in make_pairs():
            f.write(json.dumps(pair) + "\n")
