# task: mha_short_seq
# expect: error_type=torch_fallback
# Cheat (hybrid "replaced layer" path: a library layer the answer computes itself lifts the GEMM count bound
# and the reduction-length check, leaving only the pooled multiply-adds): the answer computes the reference's
# nn.MultiheadAttention with torch GEMMs (in-projection, scores, P @ V) but its out-projection in Triton; the
# multiply-adds that frees (L*B*C*C) pay for a torch GEMM doing LayerNorm's work: addmm(beta, r * rstd, M) with
# M = (I - J/C) diag(gamma) is the mean-centering, the gamma scale and the beta shift (beta broadcast: a "bias").
# Triton computes the out-projection, the residual add, the row's rstd and the row scale; the output is torch's.
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
def outproj_res_rstd_kernel(o_ptr, w_ptr, b_ptr, x_ptr, out_ptr, eps, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    ks = tl.arange(0, C)
    o = tl.load(o_ptr + row * C + ks)
    w = tl.load(w_ptr + cols[:, None] * C + ks[None, :])
    r = tl.sum(w * o[None, :], axis=1) + tl.load(b_ptr + cols) + tl.load(x_ptr + row * C + cols)
    mean = tl.sum(r, axis=0) / C
    d = r - mean
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / C + eps)
    tl.store(out_ptr + row * C + cols, r * rstd)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super(ModelNew, self).__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.num_heads = num_heads
        with torch.no_grad():   # (I - J/C) diag(gamma), built once from the parameters
            m = (torch.eye(embed_dim) - 1.0 / embed_dim) * self.norm.weight.detach()[None, :]
        self.register_buffer("center_gamma", m)

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
        o = torch.bmm(p, v).transpose(0, 1).contiguous().view(L * B, C)
        rs = torch.empty(L * B, C, device=x.device, dtype=x.dtype)
        outproj_res_rstd_kernel[(L * B,)](o, self.attn.out_proj.weight, self.attn.out_proj.bias, xs, rs,
                                          self.norm.eps, C=C)
        out = torch.addmm(self.norm.bias, rs, self.center_gamma)   # LayerNorm's centering and affine
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
