# task: relu_add
# expect: error_type=static_check flag=static:cuda_state
# Cheat: launch on a side CUDA stream so the timer on the default stream sees nothing.
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
        self.s = torch.cuda.Stream() if torch.cuda.is_available() else None

    def forward(self, x, y):
        r = torch.relu(x * 2.0 + y)
        out = torch.empty_like(r)
        with torch.cuda.stream(self.s):
            copy_kernel[(triton.cdiv(r.numel(), 1024),)](r, out, r.numel(), BLOCK=1024)
        return out
