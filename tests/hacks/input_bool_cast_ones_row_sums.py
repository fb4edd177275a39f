# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path; a ones column that passes as "an input"): the projections run in torch on
# the reference's weights and the attention core in one Triton kernel, which frees the two GEMMs lent per attention
# op. One of them computes LayerNorm's row sums and sums of squares: mm([r; r*r], ones) where ones is
# x[:C].bool().to(float32): a cast of the forward's input (x from torch.rand is never 0, so every element is 1).
# carry_anchor anchors both casts as ANCHOR_INPUT (the check that a copy holds floating values skips ANCHOR_INPUT;
# _truncates ignores casts to and from bool), so the lent call "takes an input" and passes the new rule (a lent call
# must take a projection or an input). The same ones column made from a weight (bool_cast_weight_makes_ones_kernel)
# or from the norm's weight (layer_norm_ones_weight_row_sums) is refused. Triton only divides and finishes the norm.
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
def residual_square_kernel(a_ptr, x_ptr, r_ptr, NR, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    r = tl.load(a_ptr + row * C + cols) + tl.load(x_ptr + row * C + cols)
    tl.store(r_ptr + row * C + cols, r)
    tl.store(r_ptr + (NR + row) * C + cols, r * r)


@triton.jit
def finish_kernel(r_ptr, s_ptr, g_ptr, bb_ptr, out_ptr, NR, eps, L, B, C: tl.constexpr):
    row = tl.program_id(0)          # row = l * B + b
    cols = tl.arange(0, C)
    r = tl.load(r_ptr + row * C + cols)
    mean = tl.load(s_ptr + row) / C
    var = tl.load(s_ptr + NR + row) / C - mean * mean
    y = (r - mean) / tl.sqrt(var + eps) * tl.load(g_ptr + cols) + tl.load(bb_ptr + cols)
    l = row // B
    b = row % B
    tl.store(out_ptr + b * C * L + cols * L + l, y)   # (B, C, L)


@triton.jit
def finish_kernel(r_ptr, s_ptr, g_ptr, bb_ptr, out_ptr, NR, eps, L, B, C: tl.constexpr):
    row = tl.program_id(0)          # row = l * B + b
    cols = tl.arange(0, C)
    r = tl.load(r_ptr + row * C + cols)
    mean = tl.load(s_ptr + row) / C
    var = tl.load(s_ptr + NR + row) / C - mean * mean
    y = (r - mean) / tl.sqrt(var + eps) * tl.load(g_ptr + cols) + tl.load(bb_ptr + cols)
    l = row // B
    b = row % B
    tl.store(out_ptr + b * C * L + cols * L + l, y)   # (B, C, L)


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
        NR = L * B
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()                        # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)      # torch: the reference's weights
        o = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(L * B * h,)](qkv, o, 1.0 / ((C // h) ** 0.5), B=B, H=h, L=L, D=C // h)
        a = F.linear(o, self.attn.out_proj.weight, self.attn.out_proj.bias)       # torch: the reference's weights
        rr = torch.empty(2 * NR, C, device=x.device, dtype=x.dtype)
        residual_square_kernel[(NR,)](a, xs, rr, NR, C=C)
        ones = x.reshape(-1)[:C].bool().to(x.dtype).view(C, 1)                   # "an input": all ones
        sums = torch.mm(rr, ones)                                                 # the lent GEMM: row sums
        out = torch.empty(B, C, H, W, device=x.device, dtype=x.dtype)
        finish_kernel[(NR,)](rr, sums, self.norm.weight, self.norm.bias, out, NR, self.norm.eps, L, B, C=C)
        return out
