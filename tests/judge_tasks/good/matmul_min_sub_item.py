# task: matmul_min_sub
# Honest hybrid: the Linear in torch, min and subtract in one Triton kernel; the scalar parameter is passed to
# the kernel as a Python float (.item()), as most hand-written answers do.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def min_sub_kernel(x_ptr, out_ptr, n, c, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.minimum(x, c) - c, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, constant):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        h = self.linear(x)
        out = torch.empty_like(h)
        n = h.numel()
        min_sub_kernel[(triton.cdiv(n, 256),)](h, out, n, self.constant.item(), BLOCK=256)
        return out
