# task: manual_attn_norm_seqfirst
# The input is sequence-first, so c_attn runs on a transposed view: torch does its GEMM, then adds the bias.
# Honest hybrid: the reference's hand-written attention with its own GEMMs in torch (c_attn and c_proj on the
# task's weights, q @ k^T and att @ v on their projections), the scale and softmax in one Triton kernel, the
# residual add and LayerNorm in another.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def scaled_softmax_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")) * scale
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
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.norm = nn.LayerNorm(n_embd)
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x):
        x = x.transpose(0, 1)
        B, T, C = x.size()
        hd = C // self.n_head
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.reshape(B, T, self.n_head, hd).transpose(1, 2)
        k = k.reshape(B, T, self.n_head, hd).transpose(1, 2)
        v = v.reshape(B, T, self.n_head, hd).transpose(1, 2)
        s = (q @ k.transpose(-2, -1)).contiguous()
        p = torch.empty_like(s)
        scaled_softmax_kernel[(B * self.n_head * T,)](s, p, T, 1.0 / math.sqrt(hd), BLOCK=triton.next_power_of_2(T))
        y = (p @ v).transpose(1, 2).contiguous().view(B, T, C)
        a = self.c_proj(y).contiguous()
        xc = x.contiguous()
        out = torch.empty_like(a)
        add_ln_kernel[(B * T,)](a, xc, self.norm.weight, self.norm.bias, out, self.norm.eps, C=C)
        return out
