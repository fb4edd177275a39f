# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path; the split-along-K exemption with a per-weight budget bought back): the
# closed cheat split_k_residual_via_inverse_weight.py again. Round 16 refused it because the GEMM writing x + b_o
# and the out-projection both used W_o, twice the reference's multiply-adds with it (ROOT_MACS). Here the q/k/v
# projection runs in Triton, so torch's budget on in_proj_weight (3 * rows * E * E) is unused, and the GEMM that
# writes x + b_o uses a square slice of it, W_q = in_proj_weight[:E]: t = x (W_q^T)^-1 (a lent GEMM taking an
# input, the inverse made in the constructor), then addmm(b_o, t, W_q^T) = x + b_o is "a GEMM on the reference's
# weights" (remember_gemm param=True) and the out-projection addmm(x + b_o, o, W_o^T) accumulates into it as "one
# GEMM split along K" (_accumulates, c_from_gemm): torch does the residual add, uncounted. Every weight stays within
# its multiply-adds (in_proj: 8192 of 24576; out_proj: 8192 of 8192). Triton does projections, attention, LayerNorm.
# (The two torch GEMMs run before the launches only because the CPU interpreter's write-back copy_ of a launch's
# arguments drops xs's anchor; on a GPU the order would not matter.)
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, N: tl.constexpr, NP: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0)           # out[row, part] = x[row] @ W[part]^T + b[part], W (NP * parts, K)
    part = tl.program_id(1)
    cols = part * NP + tl.arange(0, NP)
    ks = tl.arange(0, K)
    xv = tl.load(x_ptr + row * K + ks)
    w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
    tl.store(out_ptr + row * N + cols, tl.sum(w * xv[None, :], axis=1) + tl.load(b_ptr + cols))


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
        C = embed_dim
        with torch.no_grad():   # (W_q^T)^-1, made once: the constructor is not recorded
            self.register_buffer("wq_inv", torch.linalg.inv(self.attn.in_proj_weight[:C].t()))

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        h = self.num_heads
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()                        # (L, B, C)
        t = torch.mm(xs.view(L * B, C), self.wq_inv)                              # lent GEMM (takes an input)
        r = torch.addmm(self.attn.out_proj.bias, t, self.attn.in_proj_weight[:C].t())  # "reference weights": x + b
        qkv = torch.empty(L, B, 3 * C, device=x.device, dtype=x.dtype)
        linear_kernel[(L * B, 3)](xs, self.attn.in_proj_weight, self.attn.in_proj_bias, qkv, N=3 * C, NP=C, K=C)
        o = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(L * B * h,)](qkv, o, 1.0 / ((C // h) ** 0.5), B=B, H=h, L=L, D=C // h)
        r = torch.addmm(r, o.view(L * B, C), self.attn.out_proj.weight.t())       # "split-K": + o @ W_o^T
        out = torch.empty_like(r)
        layer_norm_kernel[(L * B,)](r, self.norm.weight, self.norm.bias, out, self.norm.eps, C=C)
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
