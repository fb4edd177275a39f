# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path; the per-weight budget bought back by doing the weight's own GEMM in
# Triton): the closed cheat projection_laundered_by_inverse_weight.py again. Round 16 refused it only because
# F.linear(pre, W_o) came on top of torch's out-projection and so exceeded the reference's multiply-adds with W_o
# (ROOT_MACS, weights_over). Here the out-projection (o @ W_o^T + b_o) runs in Triton, inside the residual/rstd
# kernel, so torch has done no multiply-add with W_o and the whole budget (rows_q * E * E = 8192) is free; the
# laundering GEMM F.linear(pre, W_o) costs E^3 = 4096. Its output M = (I - J/C) diag(gamma) is anchored
# ANCHOR_PROJ ("a projection": any output of a GEMM on a reference weight, whatever the other operand), so the
# lent GEMM addmm(beta, r * rstd, M) counts as an attention GEMM that takes a projection: torch centres each row,
# scales by gamma and adds beta (LayerNorm's affine part). Neither operand holds a projection of the forward's data.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def attention_core_kernel(qkv_ptr, out_ptr, scale, B: tl.constexpr, H: tl.constexpr, L: tl.constexpr,
                          D: tl.constexpr):
    pid = tl.program_id(0)          # one (query row, batch, head); qkv is (L, B, 3 * H * D)
    h = pid % H
    b = (pid // H) % B
    i = pid // (H * B)
    C: tl.constexpr = H * D
    rows = tl.arange(0, L)
    ds = tl.arange(0, D)
    q = tl.load(qkv_ptr + (i * B + b) * 3 * C + h * D + ds)
    k = tl.load(qkv_ptr + (rows[:, None] * B + b) * 3 * C + C + h * D + ds[None, :])
    v = tl.load(qkv_ptr + (rows[:, None] * B + b) * 3 * C + 2 * C + h * D + ds[None, :])
    s = tl.sum(k * q[None, :], axis=1) * scale
    p = tl.exp(s - tl.max(s, axis=0))
    p = p / tl.sum(p, axis=0)
    o = tl.sum(v * p[:, None], axis=0)
    tl.store(out_ptr + (i * B + b) * C + h * D + ds, o)


@triton.jit
def outproj_residual_rstd_kernel(o_ptr, w_ptr, b_ptr, x_ptr, out_ptr, eps, C: tl.constexpr):
    row = tl.program_id(0)           # a = o @ W_o^T + b_o (Triton), r = a + x, out = r * rstd
    cols = tl.arange(0, C)
    ks = tl.arange(0, C)
    o = tl.load(o_ptr + row * C + ks)
    w = tl.load(w_ptr + cols[:, None] * C + ks[None, :])
    a = tl.sum(w * o[None, :], axis=1) + tl.load(b_ptr + cols)
    r = a + tl.load(x_ptr + row * C + cols)
    d = r - tl.sum(r, axis=0) / C
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / C + eps)
    tl.store(out_ptr + row * C + cols, r * rstd)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.num_heads = num_heads
        C = embed_dim
        with torch.no_grad():   # (I - J/C) diag(gamma) (W_o^T)^-1, made once: the constructor is not recorded
            centre = (torch.eye(C) - 1.0 / C) * self.norm.weight.view(1, C)
            pre = centre @ torch.linalg.inv(self.attn.out_proj.weight.t())
        self.register_buffer("pre", pre)

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        h = self.num_heads
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()                        # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)      # torch: the reference's weights
        o = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(L * B * h,)](qkv, o, 1.0 / ((C // h) ** 0.5), B=B, H=h, L=L, D=C // h)
        rs = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        outproj_residual_rstd_kernel[(L * B,)](o, self.attn.out_proj.weight, self.attn.out_proj.bias, xs, rs,
                                               self.norm.eps, C=C)
        centre = F.linear(self.pre, self.attn.out_proj.weight)      # "a projection" = (I - J/C) diag(gamma)
        out = torch.addmm(self.norm.bias, rs.view(L * B, C), centre)             # the lent GEMM: LayerNorm
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
