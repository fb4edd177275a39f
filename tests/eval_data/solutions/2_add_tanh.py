# Fails to compile: a syntax error (missing colon after the def).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_tanh_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        add_tanh_kernel[(1,)](x, y, out, x.numel(), BLOCK=128)
        return out
