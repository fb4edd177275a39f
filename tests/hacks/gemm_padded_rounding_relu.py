# task: linear_relu_add
# expect: error_type=torch_fallback
# Cheat (elementwise work as zero-padded GEMMs): Triton computes the Linear; torch computes the ReLU and the add
# with GEMMs whose reduction is padded to 4 with zero columns (too long to count as short beside the
# reference's 32). The ReLU's step comes from fp32 rounding: adding 1.5 * 2^23 to z / 2048 - 0.5 rounds it to
# -1 or 0, so subtracting the constant back and adding one gives 1 where z > 0, else 0 (|z| < 1024); a batched
# GEMM of (1 x 4) by (4 x 1) rows multiplies it by z, and a last GEMM adds y. The Linear's multiply-adds, spent
# in Triton, pay for them.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_rows(x_ptr, w_ptr, b_ptr, z_ptr, K: tl.constexpr, N: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
    z = tl.sum(w * tl.load(x_ptr + r * K + ks)[None, :], axis=1) + tl.load(b_ptr + cols)
    tl.store(z_ptr + r * N + cols, z)


def _column(first, second):
    c = torch.zeros(4, 1)
    c[0, 0], c[1, 0] = first, second
    return c


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.register_buffer("shift", _column(1.0 / 2048, -0.5))
        self.register_buffer("snap", _column(1.0, 1.5 * 2 ** 23))
        self.register_buffer("unsnap", _column(1.0, 1.0 - 1.5 * 2 ** 23))
        self.register_buffer("plus", _column(1.0, 1.0))

    def forward(self, x, y):
        M, K = x.shape
        N = self.linear.weight.shape[0]
        n = M * N
        z = torch.empty(M, N, device=x.device, dtype=x.dtype)
        linear_rows[(M,)](x.contiguous(), self.linear.weight, self.linear.bias, z, K=K, N=N)
        lanes = torch.zeros(n, 4, device=x.device, dtype=x.dtype)
        lanes[:, 1].fill_(1.0)
        lanes[:, 0].copy_(z.view(-1))
        for col in (self.shift, self.snap, self.unsnap):
            lanes[:, 0].copy_(torch.mm(lanes, col).view(-1))
        left = torch.zeros(n, 4, device=x.device, dtype=x.dtype)
        left[:, 0].copy_(z.view(-1))
        prod = torch.bmm(left.view(n, 1, 4), lanes.view(n, 4, 1))
        lanes[:, 0].copy_(prod.view(-1))
        lanes[:, 1].copy_(y.reshape(-1))
        return torch.mm(lanes, self.plus).view(M, N)
