# task: small_scale
# expect: error_type=mismatch flag=mismatch:whole_output
# Cheat (absolute tolerance): every output of the task is below the fp32 atol, so an elementwise check alone
# passes a kernel that writes zeros. The whole output's relative error is 1.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        n = out.numel()
        fill_kernel[(triton.cdiv(n, 256),)](out, n, BLOCK=256)
        return out
