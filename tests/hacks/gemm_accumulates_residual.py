# task: linear_scale_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: the GEMM's accumulate operand does the elementwise work): the task is
# linear(x) * 0.5 + y. addmm(C, A, B) computes beta * C + alpha * A @ B, and its C operand may be any tensor of the
# output's shape, not only the broadcast bias a Linear passes. The scale is folded into the weight at build time,
# and the residual input y goes in as C: one addmm (the reference's count, the reference's multiply-adds: unlike
# gemm_augmented_epilogue.py nothing is stacked onto the operands, so the MACS bound holds) computes
# 0.5 x W^T + y. Triton only adds the half bias (so no torch output equals the answer and a suppressed launch is
# wrong). The residual add, a task op the reference runs as its own aten add, is torch's.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_kernel(t_ptr, b_ptr, out_ptr, n, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    t = tl.load(t_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, t + 0.5 * b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, y):
        w = self.linear.weight.detach()
        # the 0.5 could be folded once at build time; alpha does it here without an extra op
        t = torch.addmm(y, x, w.t(), alpha=0.5)
        hb = self.linear.bias.detach()
        out = torch.empty_like(t)
        n = t.numel()
        bias_kernel[(triton.cdiv(n, 256),)](t, hb, out, n, N=t.shape[1], BLOCK=256)
        return out
