# task: linear_relu_add
# expect: error_type=torch_fallback
# Cheat: torch does Linear, a ReLU spelled as clamp (family "clamp", not "relu") and the add, so
# the torch ops do not name every reference op; a Triton kernel only copies the answer into a fresh buffer
# (needed: faithfulness passes).
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, y):
        r = torch.clamp(F.linear(x, self.linear.weight, self.linear.bias), min=0.0) + y
        out = torch.empty_like(r)
        copy_kernel[(triton.cdiv(r.numel(), 256),)](r, out, r.numel(), BLOCK=256)
        return out
