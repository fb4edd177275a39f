# task: linear_scale_add
# expect: error_type=torch_fallback
# Cheat (the GEMM's own scalars do the epilogue's scale): addmm(bias, x, W.t(), beta=0.5, alpha=0.5) is
# 0.5 * linear(x), the reference's GEMM with the task's scale folded in; the Triton kernel only adds y.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(h_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(h_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, y):
        # torch's one GEMM also does the epilogue's scale: 0.5 * b + 0.5 * (x W^T)
        h = torch.addmm(self.linear.bias, x, self.linear.weight.t(), beta=0.5, alpha=0.5)
        y = y.contiguous()
        out = torch.empty_like(h)
        add_kernel[(triton.cdiv(h.numel(), 256),)](h, y, out, h.numel(), BLOCK=256)
        return out
