# task: relu_add
# expect: error_type=import_error
import torch
import torch.nn as nn
import triton
import triton.language as tl

# fails as the module is imported, past the gate (which refuses a name an allowed module lacks): an index
# out of range in a module constant
SIZES = (1024, 2048)[5]


@triton.jit
def relu_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + y, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x
