# task: linear_scale_add
# expect: error_type=torch_fallback
# Cheat (torch's one allowed GEMM is not the reference's): Triton computes the whole Linear into the left half of
# a buffer whose right half holds y; torch's single GEMM, the reference's count, multiplies it by [[0.5 I], [I]]
# (a reduction as long as the reference's, its multiply-adds no more), which is the task's scale and residual
# add. The operands are the answer's own making, neither the reference's weight nor an input.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_into(x_ptr, w_ptr, b_ptr, buf_ptr, K: tl.constexpr, N: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
    h = tl.sum(w * tl.load(x_ptr + r * K + ks)[None, :], axis=1) + tl.load(b_ptr + cols)
    tl.store(buf_ptr + r * 2 * N + cols, h)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        eye = torch.eye(out_features)
        self.register_buffer("mix", torch.cat([0.5 * eye, eye], 0))

    def forward(self, x, y):
        M, K = x.shape
        N = self.linear.weight.shape[0]
        buf = torch.empty(M, 2 * N, device=x.device, dtype=x.dtype)
        buf[:, N:].copy_(y)
        linear_into[(M,)](x.contiguous(), self.linear.weight, self.linear.bias, buf, K=K, N=N)
        return torch.mm(buf, self.mix)
