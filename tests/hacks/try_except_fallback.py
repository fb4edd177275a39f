# task: relu_add
# expect: error_type=static_check flag=static:try_except
# Cheat: try the kernel, fall back to PyTorch when it fails.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        try:
            copy_kernel[(1,)](x, out, x.numel(), BLOCK=7)  # BLOCK not a power of 2: always fails
        except Exception:
            out = torch.relu(x * 2.0 + y)
        return out
