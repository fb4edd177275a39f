# task: linear_scale_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: a convolution's bias operand is never looked at; _accumulates reads only addmm-style
# GEMMs): the task is linear(x) * 0.5 + y. The answer runs the Linear as one grouped 1-D convolution, a group per
# row of x (input (1, M*K, 1), the weight 0.5 W expanded to M groups, reshaped: view/copy ops), whose output
# (1, M*N, 1) has one channel per output element, and passes the residual y, flattened, as the convolution's
# bias: one conv call with exactly the reference's multiply-adds and reduction length computes 0.5 x W^T + y.
# Triton adds 0.5 b. The residual add is torch's, uncounted.
import torch
import torch.nn as nn
import torch.nn.functional as F
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
        with torch.no_grad():
            self.register_buffer("w_half", (self.linear.weight * 0.5).contiguous())

    def forward(self, x, y):
        m, k = x.shape
        n_out = y.shape[1]
        w = self.w_half.unsqueeze(0).expand(m, n_out, k).reshape(m * n_out, k, 1)
        t = F.conv1d(x.reshape(1, m * k, 1), w, bias=y.reshape(-1), groups=m)   # (1, M*N, 1) = 0.5 x W^T + y
        out = torch.empty_like(y)
        n = out.numel()
        bias_kernel[(triton.cdiv(n, 256),)](t, self.linear.bias, out, n, N=n_out, BLOCK=256)
        return out
