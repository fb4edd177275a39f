# task: linear_relu
# expect: error_type=static_check flag=static:dunder
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + y, 0.0), mask=mask)


def _setup(self):
    nn.Module.__init__(self)


class ModelNew(nn.Module):
    # an __init__ the AST reading leaves alone (assigned, not defined): the runtime check after the reference
    # must still find that it takes none of the task's arguments
    __init__ = _setup

    def forward(self, x):
        return x
