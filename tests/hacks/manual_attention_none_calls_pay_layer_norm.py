# task: manual_attn_norm  (task file: /tmp/red_out/tasks/manual_attn_norm.py, minGPT-style attention by hand)
# expect: error_type=torch_fallback
# Cheat (hybrid, a reference that writes its attention GEMMs itself): the closed cheat
# replaced_attention_spare_pays_layer_norm_gemm.py, verbatim in substance, on a task whose reference computes
# q @ k^T and att @ v with torch.matmul (KernelBench level 3's minGPT blocks) instead of nn.MultiheadAttention.
# There the reference's own two attention GEMMs are ANCHOR_NONE calls (they take projections), so the answer gets
# two ANCHOR_NONE calls of anything (hybrid_extra_ops: none_over subtracts ref_ops[ANCHOR_NONE]); the new rule (a
# lent call must take a projection or an input) is applied only to the `spare` calls lent for library attention or
# SDPA ops. The answer runs both projections in torch on the reference's weights, the whole attention core in one
# Triton kernel, and spends a freed GEMM on LayerNorm: addmm(beta, r * rstd, (I - J/C) diag(gamma)). Neither
# operand is a projection or an input. Same call count and fewer multiply-adds than the reference.
import math
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
def residual_rstd_kernel(a_ptr, x_ptr, out_ptr, eps, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    r = tl.load(a_ptr + row * C + cols) + tl.load(x_ptr + row * C + cols)
    d = r - tl.sum(r, axis=0) / C
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / C + eps)
    tl.store(out_ptr + row * C + cols, r * rstd)


@triton.jit
def centre_gamma_kernel(g_ptr, out_ptr, C: tl.constexpr):
    row = tl.program_id(0)           # (I - J/C) diag(gamma), row by row
    cols = tl.arange(0, C)
    eye = tl.where(cols == row, 1.0, 0.0)
    tl.store(out_ptr + row * C + cols, (eye - 1.0 / C) * tl.load(g_ptr + cols))


class ModelNew(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.norm = nn.LayerNorm(n_embd)
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x):
        B, T, C = x.size()
        h = self.n_head
        xt = x.transpose(0, 1).contiguous()                                       # (T, B, C), the kernel's layout
        qkv = F.linear(xt, self.c_attn.weight, self.c_attn.bias)                  # torch: the reference's weights
        o = torch.empty(T, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(T * B * h,)](qkv, o, 1.0 / math.sqrt(C // h), B=B, H=h, L=T, D=C // h)
        a = F.linear(o, self.c_proj.weight, self.c_proj.bias)                     # torch: the reference's weights
        rs = torch.empty_like(a)
        residual_rstd_kernel[(T * B,)](a, xt, rs, self.norm.eps, C=C)
        centre = torch.empty(C, C, device=x.device, dtype=x.dtype)
        centre_gamma_kernel[(C,)](self.norm.weight, centre, C=C)
        out = torch.addmm(self.norm.bias, rs.view(T * B, C), centre)             # the reference's "free" GEMM
        return out.view(T, B, C).transpose(0, 1).contiguous()
