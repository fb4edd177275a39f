# task: relu_add
# expect: error_type=static_check flag=static:introspection
# Cheat: walk up the caller's frames to find the reference output the judge holds.
import sys
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
        f = sys._getframe(1)
        while f is not None:
            for v in f.f_locals.values():
                if isinstance(v, list) and v and isinstance(v[0], torch.Tensor) and v[0].shape == x.shape:
                    out = torch.empty_like(x)
                    copy_kernel[(triton.cdiv(x.numel(), 1024),)](v[0], out, x.numel(), BLOCK=1024)
                    return out
            f = f.f_back
        return x
