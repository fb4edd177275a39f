# task: relu_add
# expect: error_type=inputs_modified
# Cheat: compute in place into the input and return it (saves an allocation, corrupts the caller's data).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def inplace_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, tl.maximum(x * 2.0 + y, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        inplace_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return x
