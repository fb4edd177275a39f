# Fails in the kernel: tl.maximum is called with one operand (a Triton compile error on GPU, a kernel error in
# the CPU interpreter); the first forward never returns, so the answer does not count as compiled.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mul_clamp_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.minimum(tl.maximum(x * 0.5), 0.2), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        mul_clamp_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
        return out
