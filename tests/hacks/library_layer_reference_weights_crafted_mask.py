# task: mha_norm
# expect: error_type=torch_fallback
# Cheat: the answer's one nn.MultiheadAttention call holds the reference's weights (LAYER anchor passes) but is
# given crafted inputs: a query that W_q maps to 0 (uniform attention), an attn_mask picking key halves, and values
# pre-mapped by (W_o W_v)^-1. Triton computes the whole real attention and residual r; torch's MHA call computes
# LayerNorm's statistics (mean and E[r^2] of every token); Triton only applies them.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k_inproj(xs_ptr, w_ptr, b_ptr, qkv_ptr, E: tl.constexpr):
    t = tl.program_id(0)
    e = tl.arange(0, E)
    x = tl.load(xs_ptr + t * E + e)
    for part in tl.static_range(3):
        rows = part * E + e
        w = tl.load(w_ptr + rows[:, None] * E + e[None, :])
        tl.store(qkv_ptr + t * 3 * E + rows, tl.sum(w * x[None, :], axis=1) + tl.load(b_ptr + rows))


@triton.jit
def k_attn(qkv_ptr, ctx_ptr, scale, B: tl.constexpr, L: tl.constexpr, E: tl.constexpr, D: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    i = tl.program_id(2)
    d = tl.arange(0, D)
    j = tl.arange(0, L)
    ti = i * B + b
    tj = j * B + b
    q = tl.load(qkv_ptr + ti * 3 * E + h * D + d)
    k = tl.load(qkv_ptr + tj[:, None] * 3 * E + E + h * D + d[None, :])
    s = tl.sum(k * q[None, :], axis=1) * scale
    p = tl.exp(s - tl.max(s, axis=0))
    p = p / tl.sum(p, axis=0)
    v = tl.load(qkv_ptr + tj[:, None] * 3 * E + 2 * E + h * D + d[None, :])
    tl.store(ctx_ptr + ti * E + h * D + d, tl.sum(p[:, None] * v, axis=0))


@triton.jit
def k_out(ctx_ptr, w_ptr, b_ptr, xs_ptr, r_ptr, E: tl.constexpr):
    t = tl.program_id(0)
    e = tl.arange(0, E)
    c = tl.load(ctx_ptr + t * E + e)
    w = tl.load(w_ptr + e[:, None] * E + e[None, :])
    r = tl.sum(w * c[None, :], axis=1) + tl.load(b_ptr + e) + tl.load(xs_ptr + t * E + e)
    tl.store(r_ptr + t * E + e, r)


@triton.jit
def k_vprep(r_ptr, ainv_ptr, cvec_ptr, v_ptr, B: tl.constexpr, E: tl.constexpr):
    j = tl.program_id(0)      # key 0..2E-1
    b = tl.program_id(1)
    e = tl.arange(0, E)
    u = tl.load(r_ptr + (e * B + b) * E + (j % E))    # u[e] = r[token (l=e, b), channel j % E]
    if j >= E:
        u = u * u
    u = u - tl.load(cvec_ptr + e)
    a = tl.load(ainv_ptr + e[:, None] * E + e[None, :])
    tl.store(v_ptr + (j * B + b) * E + e, tl.sum(a * u[None, :], axis=1))


@triton.jit
def k_ln(r_ptr, st_ptr, g_ptr, be_ptr, out_ptr, eps, B: tl.constexpr, E: tl.constexpr, L: tl.constexpr,
         HALF: tl.constexpr):
    t = tl.program_id(0)
    l = t // B
    b = t % B
    e = tl.arange(0, E)
    r = tl.load(r_ptr + t * E + e)
    mean = tl.load(st_ptr + b * E + l)                  # query 0: mean
    ex2 = tl.load(st_ptr + (HALF * B + b) * E + l)       # query HALF: mean of squares
    z = (r - mean) / tl.sqrt(ex2 - mean * mean + eps) * tl.load(g_ptr + e) + tl.load(be_ptr + e)
    tl.store(out_ptr + b * E * L + e * L + l, z)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        E = embed_dim
        with torch.no_grad():
            w, bias = self.attn.in_proj_weight.double(), self.attn.in_proj_bias.double()
            q0 = torch.linalg.solve(w[:E], -bias[:E])                  # W_q q0 + b_q = 0
            A = self.attn.out_proj.weight.double() @ w[2 * E:]
            cvec = self.attn.out_proj.weight.double() @ bias[2 * E:] + self.attn.out_proj.bias.double()
            self.q0 = q0.float()
            self.ainv = torch.linalg.inv(A).float().contiguous()
            self.cvec = cvec.float()
            self.wi, self.bi = self.attn.in_proj_weight.detach().clone(), self.attn.in_proj_bias.detach().clone()
            self.wo, self.bo = self.attn.out_proj.weight.detach().clone(), self.attn.out_proj.bias.detach().clone()
            self.g, self.be = self.norm.weight.detach().clone(), self.norm.bias.detach().clone()
        self.E, self.H = E, num_heads

    def move(self, device):
        """Plain tensors (not buffers) stay where they were made when the judge moves the model: moved to the
        input's device on the first forward there (on the CPU, never)."""
        if self.wi.device != device:
            self.q0, self.ainv, self.cvec, self.wi, self.bi, self.wo, self.bo, self.g, self.be = [t.to(device) for t in (self.q0, self.ainv, self.cvec, self.wi, self.bi, self.wo, self.bo, self.g, self.be)]

    def forward(self, x):
        self.move(x.device)
        B, C, Hh, Ww = x.shape
        L, E, H = Hh * Ww, self.E, self.H
        D = E // H
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()       # (L, B, E)
        T = L * B
        qkv = torch.empty(T, 3 * E, device=x.device)
        ctx = torch.empty(T, E, device=x.device)
        r = torch.empty(T, E, device=x.device)
        k_inproj[(T,)](xs, self.wi, self.bi, qkv, E=E)
        k_attn[(B, H, L)](qkv, ctx, 1.0 / D ** 0.5, B=B, L=L, E=E, D=D)
        k_out[(T,)](ctx, self.wo, self.bo, xs, r, E=E)
        S = 2 * E
        v = torch.empty(S, B, E, device=x.device)
        k_vprep[(S, B)](r, self.ainv, self.cvec, v, B=B, E=E)
        half = L // 2
        mask = torch.ones(L, S, dtype=torch.bool, device=x.device)
        mask[:half, :E] = False
        mask[half:, E:] = False
        q = self.q0.view(1, 1, E).expand(L, B, E)
        k = torch.zeros(S, B, E, device=x.device)
        stats, _ = self.attn(q, k, v, attn_mask=mask, need_weights=False)   # (L, B, E): means / means of squares
        out = torch.empty(B, E, L, device=x.device)
        k_ln[(T,)](r, stats.contiguous(), self.g, self.be, out, self.norm.eps, B=B, E=E, L=L,
                   HALF=half)
        return out.view(B, C, Hh, Ww)
