"""GPU-only: the judge on a KernelBench-size task. 19_ReLU's inputs are 4096 x 393216 fp32 (6.4 GB);
under 8 workers' per-worker shares its 5 reference outputs (32 GB) fit neither the GPU share nor the host's, so
the first attempt is oom and the retry, alone on the GPU, judges it. The second verify takes both baselines
from the BaselineCache the first one filled.

    python -m pytest tests/test_reward_gpu_big.py -q
"""
import pytest

from reward import BaselineCache, Judge

try:
    import torch
    CUDA = torch.cuda.is_available()
except ImportError:
    CUDA = False

TASK = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 4096
dim = 393216


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
'''

SOLUTION = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096)
        return out
'''


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not CUDA, reason="needs CUDA")
def test_kernelbench_size_task_with_retry_and_cached_baselines(tmp_path):
    path = str(tmp_path / "baselines.jsonl")
    with Judge(workers=8, device="cuda", timeout_s=60.0, time_trials=20, compile_baseline=True,
               baseline_cache=path, spare_workers=0) as j:
        v1 = j.verify(TASK, SOLUTION)
        assert v1.correct, v1.error_msg
        assert "oom_retried_exclusive" in v1.flags
        assert v1.speedup and v1.timings["ref_ms_from_cache"] is False
        cached = BaselineCache(path).get(j._baseline_key(TASK))
        assert cached["eager_ms"] == v1.ref_ms and cached["compile_ms"] == v1.timings["compile_ref_ms"]
        v2 = j.verify(TASK, SOLUTION)
        assert v2.correct, v2.error_msg
        assert v2.timings["ref_ms_from_cache"] and v2.timings["compile_ref_ms_from_cache"]
        assert v2.ref_ms == v1.ref_ms and "compile_ms" not in v2.timings  # torch.compile not paid again
        print("v1", v1.to_dict())
        print("v2", v2.to_dict())
