# task: conv3d_gn_mean
# Honest hybrid: the Conv3d in torch; GroupNorm (per-group mean and variance, affine) and the mean over
# everything but the batch in one Triton program per sample.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gn_mean_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, S, G, eps, BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr):
    pid = tl.program_id(0)
    cpg = C // G
    total = 0.0
    for g in range(0, G):
        c = g * cpg + tl.arange(0, BLOCK_C)
        cm = c < (g + 1) * cpg
        s = tl.arange(0, BLOCK_S)
        sm = s < S
        m = cm[:, None] & sm[None, :]
        x = tl.load(x_ptr + pid * C * S + c[:, None] * S + s[None, :], mask=m, other=0.0)
        n = cpg * S
        mean = tl.sum(tl.sum(x, axis=1), axis=0) / n
        d = tl.where(m, x - mean, 0.0)
        var = tl.sum(tl.sum(d * d, axis=1), axis=0) / n
        y = d / tl.sqrt(var + eps)
        y = y * tl.load(w_ptr + c, mask=cm, other=0.0)[:, None] + tl.load(b_ptr + c, mask=cm, other=0.0)[:, None]
        total += tl.sum(tl.sum(tl.where(m, y, 0.0), axis=1), axis=0)
    tl.store(out_ptr + pid, total / (C * S))


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        y = self.conv(x).contiguous()
        B, C = y.shape[0], y.shape[1]
        S = y.numel() // (B * C)
        out = torch.empty(B, device=x.device, dtype=x.dtype)
        G = self.group_norm.num_groups
        gn_mean_kernel[(B,)](y, self.group_norm.weight, self.group_norm.bias, out, C, S, G, self.group_norm.eps,
                             BLOCK_C=triton.next_power_of_2(C // G), BLOCK_S=triton.next_power_of_2(S))
        return out
