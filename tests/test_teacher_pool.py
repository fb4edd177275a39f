"""Pooling windows larger than teacher.POOL_TILE_MAX: walked in tiles in a loop (KernelBench L2 67's global pool
over 254 x 254 positions unrolled 64,516 loads per output and never finished compiling on the H200)."""
import pytest
import torch

import teacher

SOURCE = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.{module}

    def forward(self, x):
        x = F.gelu(x)
        return self.pool(x)


def get_inputs():
    return [torch.randn(2, 3, {h}, {w})]


def get_init_inputs():
    return []
'''


def run_both(src, target):
    sol = teacher.compile_program(src, target=target)
    task, ns = {}, {}
    exec(src, task)
    exec(sol, ns)
    x = task["get_inputs"]()[0]
    return sol, task["Model"]()(x), ns["ModelNew"]()(x)


@pytest.mark.parametrize("module, h, w, window", [("AdaptiveAvgPool2d(1)", 70, 75, 70 * 75),
                                                  ("MaxPool2d(70)", 70, 75, 70 * 70),
                                                  ("AdaptiveAvgPool2d((2, 1))", 130, 70, 65 * 70)])
@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_window_beyond_one_tile_is_looped_and_matches_eager(module, h, w, window, target):
    src = SOURCE.format(module=module, h=h, w=w)
    sol, expected, got = run_both(src, target)
    assert window > teacher.POOL_TILE_MAX  # the case is one the loop must handle
    assert f"for w0 in range(0, {window}, BLOCK_W):" in sol and "tl.static_range" not in sol
    assert got.shape == expected.shape and torch.allclose(got, expected, atol=1e-5, rtol=1e-5)


def test_window_within_one_tile_is_not_looped():
    sol, expected, got = run_both(SOURCE.format(module="AdaptiveAvgPool2d(1)", h=40, w=50), "cuda")
    assert "for w0 in range(" not in sol and "BLOCK_W=2048" in sol
    assert torch.allclose(got, expected, atol=1e-5, rtol=1e-5)
