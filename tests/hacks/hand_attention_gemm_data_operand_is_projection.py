# task: manual_attn_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, the reference's hand-written attention; rules (a) and (b)): the same hole as
# lent_gemm_data_operand_is_projection.py on a task with no library layer. The reference's own scores and P @ V
# GEMMs take projections, so the answer may run two torch GEMMs that take a projection which changes with the
# inputs. It runs c_attn and c_proj in torch on the reference's weights and the whole attention core in one Triton
# kernel, then spends one of those two GEMM calls on the LayerNorm: addmm(beta, r * rstd, (I - J/C) diag(gamma)),
# the centring matrix a buffer of its own made in the constructor. The kernel that writes r * rstd reads c_proj's
# output (a projection), so after_launch makes r * rstd a projection, and it differs on every input: `varies`
# passes. torch centres, scales by gamma and adds beta.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def attention_core_kernel(qkv_ptr, out_ptr, scale, T: tl.constexpr, H: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)          # one (batch, head, query row); qkv is (B, T, 3 * H * D)
    i = pid % T
    h = (pid // T) % H
    b = pid // (T * H)
    C: tl.constexpr = H * D
    rows = tl.arange(0, T)
    ds = tl.arange(0, D)
    q = tl.load(qkv_ptr + (b * T + i) * 3 * C + h * D + ds)
    k = tl.load(qkv_ptr + (b * T + rows[:, None]) * 3 * C + C + h * D + ds[None, :])
    v = tl.load(qkv_ptr + (b * T + rows[:, None]) * 3 * C + 2 * C + h * D + ds[None, :])
    s = tl.sum(k * q[None, :], axis=1) * scale
    p = tl.exp(s - tl.max(s, axis=0))
    p = p / tl.sum(p, axis=0)
    o = tl.sum(v * p[:, None], axis=0)
    tl.store(out_ptr + (b * T + i) * C + h * D + ds, o)


@triton.jit
def residual_rstd_kernel(a_ptr, x_ptr, out_ptr, eps, C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, C)
    r = tl.load(a_ptr + row * C + cols) + tl.load(x_ptr + row * C + cols)
    d = r - tl.sum(r, axis=0) / C
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / C + eps)
    tl.store(out_ptr + row * C + cols, r * rstd)


class ModelNew(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.norm = nn.LayerNorm(n_embd)
        self.n_head = n_head
        self.n_embd = n_embd
        with torch.no_grad():
            centre = (torch.eye(n_embd) - 1.0 / n_embd) * self.norm.weight[None, :]
        self.register_buffer("centre", centre)

    def forward(self, x):
        B, T, C = x.size()
        hd = C // self.n_head
        qkv = self.c_attn(x).contiguous()                                       # torch: the reference's weights
        y = torch.empty(B, T, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(B * self.n_head * T,)](qkv, y, 1.0 / math.sqrt(hd), T=T, H=self.n_head, D=hd)
        a = self.c_proj(y).contiguous()                                         # torch: the reference's weights
        xc = x.contiguous()
        rs = torch.empty_like(a)
        residual_rstd_kernel[(B * T,)](a, xc, rs, self.norm.eps, C=C)           # rs: a "projection" (given a)
        out = torch.addmm(self.norm.bias, rs.view(B * T, C), self.centre)       # the GEMM call: LayerNorm
        return out.view(B, T, C)
