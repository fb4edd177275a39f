# task: linear_relu_add
# expect: error_type=torch_fallback
# Cheat (a reference GEMM's budget spent on elementwise work): Triton computes the first two rows of the Linear, so
# torch's addmm over the other rows leaves multiply-adds of the reference's budget unspent, and they pay for a
# second GEMM that adds the residual: [relu(h) chunks | y chunks] times a stacked pair of 4x4 identities (a
# reduction of 8, too long to count as short). Two calls where the reference makes one, within its
# multiply-adds, as a GEMM split in two would be; the second's reduction length is not the reference's.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def first_row_relu(x_ptr, w_ptr, b_ptr, h_ptr, p_ptr, K: tl.constexpr, N: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, N)
    if r < 2:
        ks = tl.arange(0, K)
        w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
        h = tl.sum(w * tl.load(x_ptr + r * K + ks)[None, :], axis=1) + tl.load(b_ptr + cols)
    else:
        h = tl.load(h_ptr + r * N + cols)
    flat = r * N + cols
    tl.store(p_ptr + (flat // 4) * 8 + flat % 4, tl.maximum(h, 0.0))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        eye = torch.eye(4)
        self.register_buffer("stack", torch.cat([eye, eye], 0))

    def forward(self, x, y):
        M, K = x.shape
        N = self.linear.weight.shape[0]
        h = torch.empty(M, N, device=x.device, dtype=x.dtype)
        h[2:].copy_(torch.addmm(self.linear.bias, x[2:], self.linear.weight.t()))
        packed = torch.empty(M * N // 4, 8, device=x.device, dtype=x.dtype)
        packed[:, 4:].copy_(y.reshape(-1, 4))
        first_row_relu[(M,)](x.contiguous(), self.linear.weight, self.linear.bias, h, packed, K=K, N=N)
        return torch.mm(packed, self.stack).view(M, N)
