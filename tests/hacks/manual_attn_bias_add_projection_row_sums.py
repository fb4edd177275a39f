# task: manual_attn_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, a reference that writes its attention GEMMs by hand; no library layer replaced): the same
# laundered ones column as bias_add_projection_ones_row_sums.py. P = torch.mm(zeros(C, 1), c_attn.weight[:1, :1])
# plus a 1-element "bias" 1/C (_bias_add) is anchored ANCHOR_PROJ; its C = 16 multiply-adds with c_attn.weight fit
# in MACS_SLACK (0.1% of the reference's 24576, +1) on top of torch's full c_attn GEMM. The attention core runs in
# one Triton kernel, which frees the reference's own two projection-taking GEMMs (ref ANCHOR_NONE_PROJ = 2); one
# of them becomes mm([r; r*r], P): torch computes LayerNorm's row means and means of squares. Call count (4) and
# multiply-adds stay within the reference's, and the K=1 GEMM is above the short-reduction floor.
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
def residual_and_square_kernel(a_ptr, x_ptr, out_ptr, ROWS: tl.constexpr, C: tl.constexpr):
    row = tl.program_id(0)           # out[row] = r, out[ROWS + row] = r * r (no reduction here)
    cols = tl.arange(0, C)
    r = tl.load(a_ptr + row * C + cols) + tl.load(x_ptr + row * C + cols)
    tl.store(out_ptr + row * C + cols, r)
    tl.store(out_ptr + (ROWS + row) * C + cols, r * r)


@triton.jit
def finish_norm_kernel(r_ptr, s_ptr, w_ptr, b_ptr, out_ptr, eps, ROWS: tl.constexpr, C: tl.constexpr):
    row = tl.program_id(0)           # the statistics come from torch's GEMM: s[row] = mean, s[ROWS + row] = E[r^2]
    cols = tl.arange(0, C)
    r = tl.load(r_ptr + row * C + cols)
    mean = tl.load(s_ptr + row)
    var = tl.load(s_ptr + ROWS + row) - mean * mean
    y = (r - mean) / tl.sqrt(var + eps) * tl.load(w_ptr + cols) + tl.load(b_ptr + cols)
    tl.store(out_ptr + row * C + cols, y)


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
        # "a projection": a GEMM on a 1x1 view of c_attn.weight (C multiply-adds, inside the slack), "bias" 1/C
        p = torch.mm(torch.zeros(C, 1, device=x.device, dtype=x.dtype), self.c_attn.weight[:1, :1])
        p = torch.add(p, torch.full((1,), 1.0 / C, device=x.device, dtype=x.dtype))
        o = torch.empty(T, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(T * B * h,)](qkv, o, 1.0 / math.sqrt(C // h), B=B, H=h, L=T, D=C // h)
        a = F.linear(o, self.c_proj.weight, self.c_proj.bias)                     # torch: the reference's weights
        rr = torch.empty(2 * T * B, C, device=x.device, dtype=x.dtype)
        residual_and_square_kernel[(T * B,)](a, xt, rr, ROWS=T * B, C=C)
        stats = torch.mm(rr, p)                                                   # freed GEMM: row means
        out = torch.empty(T, B, C, device=x.device, dtype=x.dtype)
        finish_norm_kernel[(T * B,)](rr, stats, self.norm.weight, self.norm.bias, out, self.norm.eps,
                                     ROWS=T * B, C=C)
        return out.transpose(0, 1).contiguous()
