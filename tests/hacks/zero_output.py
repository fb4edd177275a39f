# task: relu_add
# expect: error_type=mismatch
# Cheat: return zeros (half of relu outputs are 0, so a lax check might pass it).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def zero_kernel(dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        zero_kernel[(triton.cdiv(x.numel(), 1024),)](out, x.numel(), BLOCK=1024)
        return out
