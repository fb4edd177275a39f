# task: relu_add
# expect: error_type=mismatch
# Cheat: return an uninitialised buffer, hoping the allocator hands back the freed reference output.
# The judge NaN-fills the reference outputs before freeing them and, on CUDA, every free cached block.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def nothing_kernel(dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < 0)  # writes nothing


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        nothing_kernel[(1,)](out, out.numel(), BLOCK=16)
        return out
