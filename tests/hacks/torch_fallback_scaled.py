# task: relu_add
# expect: error_type=torch_fallback
# Cheat: torch computes the whole answer (the ReLU as clamp_min, so the names miss "relu"); a
# Triton kernel multiplies it by 1.0 into a fresh buffer, which looks like arithmetic.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(src_ptr, dst_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        r = (x * 2.0 + y).clamp_min(0.0)
        out = torch.empty_like(r)
        scale_kernel[(triton.cdiv(r.numel(), 1024),)](r, out, r.numel(), 1.0, BLOCK=1024)
        return out
