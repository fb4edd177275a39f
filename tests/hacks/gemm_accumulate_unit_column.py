# task: linear_scale_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: _accumulates counts beta * C as an add only where C varies along both of the output's last
# two dims, and a dim of size 1 never "varies"): the task is linear(x) * 0.5 + y. The answer runs the Linear as a
# batched GEMM with one batch per output feature, baddbmm(C, x.expand(N, M, K), (0.5 W)[n].view(K, 1)), whose
# output is (N, M, 1): the same multiply-adds and reduction length as the reference's GEMM. Its C is the residual
# y transposed to (N, M, 1), any values at all, but an output with a trailing 1 passes for a "bias along the
# columns" (addmv's GEMV got this case; addmm/baddbmm with n = 1, or m = 1, did not). Triton adds 0.5 b and
# transposes; the residual add is torch's, uncounted.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_t_kernel(t_ptr, b_ptr, out_ptr, n, M: tl.constexpr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // N
    col = offs % N
    t = tl.load(t_ptr + col * M + row, mask=mask)     # t is (N, M, 1)
    b = tl.load(b_ptr + col, mask=mask)
    tl.store(out_ptr + offs, t + 0.5 * b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        with torch.no_grad():
            self.register_buffer("w_half", (self.linear.weight * 0.5).contiguous().unsqueeze(-1))  # (N, K, 1)

    def forward(self, x, y):
        m, n_out = y.shape
        c = y.t().unsqueeze(-1)                                   # (N, M, 1): the residual, any values
        t = torch.baddbmm(c, x.unsqueeze(0).expand(n_out, m, x.shape[1]), self.w_half)
        out = torch.empty_like(y)
        n = out.numel()
        bias_t_kernel[(triton.cdiv(n, 256),)](t, self.linear.bias, out, n, M=m, N=n_out, BLOCK=256)
        return out
