# task: softmax
# expect: error_type=mismatch
# Cheat: a constant 1/DIM for every softmax entry (rows do sum to 1).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(dst_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, x.numel(), 1.0 / x.shape[-1], BLOCK=1024)
        return out
