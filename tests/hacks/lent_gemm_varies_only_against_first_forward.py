# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path; rule (b), `varies`): the closed cheat
# replaced_attention_layer_norm_matrix_from_kernel_given_q.py again. Its lent GEMM takes a LayerNorm matrix
# (I - J/C) diag(gamma) that a kernel handed qkv wrote, so it counts as a projection; `varies` refuses it because
# that matrix is the same on every input. But `varies` compares each forward only with the *first* recorded
# forward (_Launches.lent_samples is set once per answer), and the answer knows which forward is its first (a call
# counter on self; the faithfulness trial is never first). Here the matrix is scaled by s = 1 + calls and the
# kernel that makes r * rstd divides by s: every forward's matrix differs from the first's by >= 50 %, while the
# product is the same. torch still does LayerNorm's centring, gamma scale and beta add with an input-independent
# matrix of the answer's.
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
def residual_rstd_kernel(a_ptr, x_ptr, out_ptr, eps, s, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    r = tl.load(a_ptr + row * C + cols) + tl.load(x_ptr + row * C + cols)
    d = r - tl.sum(r, axis=0) / C
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / C + eps)
    tl.store(out_ptr + row * C + cols, r * rstd / s)


@triton.jit
def centre_gamma_kernel(g_ptr, qkv_ptr, out_ptr, s, C: tl.constexpr):
    row = tl.program_id(0)           # (I - J/C) diag(gamma), row by row
    cols = tl.arange(0, C)
    eye = tl.where(cols == row, 1.0, 0.0)
    tl.store(out_ptr + row * C + cols, (eye - 1.0 / C) * tl.load(g_ptr + cols) * s)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.num_heads = num_heads
        self.calls = 0

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        h = self.num_heads
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()                        # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)      # torch: the reference's weights
        o = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(L * B * h,)](qkv, o, 1.0 / ((C // h) ** 0.5), B=B, H=h, L=L, D=C // h)
        a = F.linear(o, self.attn.out_proj.weight, self.attn.out_proj.bias)       # torch: the reference's weights
        rs = torch.empty_like(a)
        s = 1.0 + self.calls
        self.calls += 1
        residual_rstd_kernel[(L * B,)](a, xs, rs, self.norm.eps, s, C=C)
        centre = torch.empty(C, C, device=x.device, dtype=x.dtype)
        centre_gamma_kernel[(C,)](self.norm.weight, qkv, centre, s, C=C)
        out = torch.addmm(self.norm.bias, rs.view(L * B, C), centre)             # the lent GEMM: LayerNorm
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
