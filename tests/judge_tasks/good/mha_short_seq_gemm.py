# task: mha_short_seq
# nn.MultiheadAttention computed by the answer itself: in and out projections as F.linear with the
# layer's own weights, scores and their product with V as batched GEMMs, softmax and the residual add + LayerNorm
# in Triton. The reference's library layer is not called, so its GEMMs are the answer's to make.
# A sequence of 2 (28_VisionTransformer's, which is not batch_first): scores @ V reduces over 2 keys, as the
# library layer's own GEMM does.
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
def add_ln_kernel(a_ptr, b_ptr, w_ptr, bias_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    v = tl.load(a_ptr + row * n_cols + cols, mask=mask, other=0.0) + tl.load(b_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(v, axis=0) / n_cols
    d = tl.where(mask, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + cols, mask=mask) + tl.load(bias_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super(ModelNew, self).__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.num_heads = num_heads

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        h = self.num_heads
        hd = C // h
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()         # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)   # (L, B, 3C)
        q, k, v = qkv.chunk(3, dim=-1)
        q = q.contiguous().view(L, B * h, hd).transpose(0, 1)
        k = k.contiguous().view(L, B * h, hd).transpose(0, 1)
        v = v.contiguous().view(L, B * h, hd).transpose(0, 1)
        s = torch.bmm(q, k.transpose(1, 2)).contiguous()
        p = torch.empty_like(s)
        softmax_kernel[(B * h * L,)](s, p, L, 1.0 / (hd ** 0.5), BLOCK=triton.next_power_of_2(L))
        o = torch.bmm(p, v).transpose(0, 1).contiguous().view(L, B, C)
        o = F.linear(o, self.attn.out_proj.weight, self.attn.out_proj.bias).contiguous()
        out = torch.empty_like(o)
        add_ln_kernel[(L * B,)](o, xs, self.norm.weight, self.norm.bias, out, C, self.norm.eps,
                                BLOCK=triton.next_power_of_2(C))
        return out.permute(1, 2, 0).contiguous().view(B, C, H, W)
