# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (a broadcasting copy makes a constant from the reference's weight): one element of the attention's
# in-projection weight is copy_'d into a (C, 1) buffer, which fills its storage, so it passed as a copy of the
# weight: a column of one constant. Torch's extra GEMM of [r; r*r] by it computes LayerNorm's row sums and sums
# of squares; Triton divides by the constant and finishes the norm.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")) * scale
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def outproj_res_kernel(o_ptr, w_ptr, b_ptr, x_ptr, r_ptr, NR, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    ks = tl.arange(0, C)
    o = tl.load(o_ptr + row * C + ks)
    w = tl.load(w_ptr + cols[:, None] * C + ks[None, :])
    r = tl.sum(w * o[None, :], axis=1) + tl.load(b_ptr + cols) + tl.load(x_ptr + row * C + cols)
    tl.store(r_ptr + row * C + cols, r)
    tl.store(r_ptr + (NR + row) * C + cols, r * r)


@triton.jit
def finish_kernel(r_ptr, s_ptr, c_ptr, g_ptr, bb_ptr, out_ptr, NR, eps, L, B, C: tl.constexpr):
    row = tl.program_id(0)          # row = l * B + b
    cols = tl.arange(0, C)
    r = tl.load(r_ptr + row * C + cols)
    c = tl.load(c_ptr)
    mean = tl.load(s_ptr + row) / c / C
    var = tl.load(s_ptr + NR + row) / c / C - mean * mean
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
        hd = C // h
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()         # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)
        q, k, v = qkv.chunk(3, dim=-1)
        q = q.contiguous().view(L, B * h, hd).transpose(0, 1)
        k = k.contiguous().view(L, B * h, hd).transpose(0, 1)
        v = v.contiguous().view(L, B * h, hd).transpose(0, 1)
        s = torch.bmm(q, k.transpose(1, 2)).contiguous()
        p = torch.empty_like(s)
        softmax_kernel[(B * h * L,)](s, p, L, 1.0 / (hd ** 0.5), BLOCK=triton.next_power_of_2(L))
        o = torch.bmm(p, v).transpose(0, 1).contiguous().view(L * B, C)
        NR = L * B
        rr = torch.empty(2 * NR, C, device=x.device, dtype=x.dtype)
        outproj_res_kernel[(NR,)](o, self.attn.out_proj.weight, self.attn.out_proj.bias, xs, rr, NR, C=C)
        e = self.attn.in_proj_weight[0, 0:1]
        col = torch.empty(C, 1, device=x.device, dtype=x.dtype)
        col.copy_(e.view(1, 1))   # broadcasting copy: c * ones, PARAM by carry
        sums = torch.mm(rr, col)     # LayerNorm's row sums and sums of squares, times c
        out = torch.empty(B, C, H, W, device=x.device, dtype=x.dtype)
        finish_kernel[(NR,)](rr, sums, e, self.norm.weight, self.norm.bias, out, NR, self.norm.eps, L, B, C=C)
        return out
