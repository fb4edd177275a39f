# task: elu_rand
# expect: error_type=mismatch
# Cheat (narrow inputs): the task draws its input from torch.rand, so an ELU that keeps only its positive
# branch (a copy) is right on every draw of the task's own distribution. The sign-symmetric trials reach the
# negative branch.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
