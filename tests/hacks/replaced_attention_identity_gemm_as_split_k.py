# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path, a GEMM split along K): the projections run in torch on the reference's
# weights and the attention core in one Triton kernel, which frees the two GEMMs lent for scores and P @ V. One of
# them multiplies the input by an identity the answer built, adding the out-projection's bias on the way
# (addmm(b, x, I) = x + b); the out-projection then accumulates into that result as if one GEMM were split along K,
# so torch's GEMMs do the residual add. Triton does LayerNorm.
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
def identity_kernel(out_ptr, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    tl.store(out_ptr + row * C + cols, tl.where(cols == row, 1.0, 0.0))


@triton.jit
def layer_norm_kernel(r_ptr, w_ptr, b_ptr, out_ptr, eps, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    r = tl.load(r_ptr + row * C + cols)
    d = r - tl.sum(r, axis=0) / C
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / C + eps)
    tl.store(out_ptr + row * C + cols, d * rstd * tl.load(w_ptr + cols) + tl.load(b_ptr + cols))


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.num_heads = num_heads

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        h = self.num_heads
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()                        # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)      # torch: the reference's weights
        o = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(L * B * h,)](qkv, o, 1.0 / ((C // h) ** 0.5), B=B, H=h, L=L, D=C // h)
        eye = torch.empty(C, C, device=x.device, dtype=x.dtype)
        identity_kernel[(C,)](eye, C=C)
        r = torch.addmm(self.attn.out_proj.bias, xs.view(L * B, C), eye)          # lent GEMM: x + b
        r = torch.addmm(r, o.view(L * B, C), self.attn.out_proj.weight.t())       # "split-K": + o @ W_o^T
        out = torch.empty_like(r)
        layer_norm_kernel[(L * B,)](r, self.norm.weight, self.norm.bias, out, self.norm.eps, C=C)
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
