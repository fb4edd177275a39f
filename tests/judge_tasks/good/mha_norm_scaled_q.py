# task: mha_norm
# Honest: the attention computed by the answer: projections and both attention GEMMs in torch, q scaled by a
# Triton kernel into a buffer of its own (a launch that reads the projections), softmax, residual and LayerNorm
# in Triton.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * scale, mask=m)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def add_ln_kernel(a_ptr, x_ptr, w_ptr, b_ptr, out_ptr, eps, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    r = tl.load(a_ptr + row * C + cols) + tl.load(x_ptr + row * C + cols)
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
        L, h = H * W, self.num_heads
        hd = C // h
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)
        q, k, v = qkv.chunk(3, dim=-1)
        q = q.contiguous().view(L, B * h, hd).transpose(0, 1).contiguous()
        qs = torch.empty_like(q)
        scale_kernel[(triton.cdiv(q.numel(), 256),)](q, qs, q.numel(), 1.0 / hd ** 0.5, BLOCK=256)
        k = k.contiguous().view(L, B * h, hd).transpose(0, 1)
        v = v.contiguous().view(L, B * h, hd).transpose(0, 1)
        s = torch.bmm(qs, k.transpose(1, 2)).contiguous()
        p = torch.empty_like(s)
        softmax_kernel[(B * h * L,)](s, p, L, BLOCK=triton.next_power_of_2(L))
        o = torch.bmm(p, v).transpose(0, 1).contiguous().view(L, B, C)
        a = F.linear(o, self.attn.out_proj.weight, self.attn.out_proj.bias).contiguous()
        out = torch.empty_like(a)
        add_ln_kernel[(L * B,)](a, xs, self.norm.weight, self.norm.bias, out, self.norm.eps, C=C)
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
