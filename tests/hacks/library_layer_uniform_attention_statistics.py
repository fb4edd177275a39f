# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (same-count hybrid, library layer with the answer's weights and inputs): the reference makes one
# nn.MultiheadAttention call, so torch may make one of the same configuration (16, 2), any weights, any inputs.
# Triton computes the real attention (projections, softmax, out-projection) and the residual r = attn(x) + x,
# and writes r and r*r transposed, so the embed dim is the sequence. Torch's one MHA call, on an answer-built
# layer with W_q = W_k = 0 (uniform attention), W_v = W_o = I, averages over that sequence: LayerNorm's mean and
# mean of squares for every position. Triton finishes (r - mean) * rstd * gamma + beta.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def qkv_kernel(x_ptr, w_ptr, b_ptr, out_ptr, L: tl.constexpr, B: tl.constexpr, E: tl.constexpr):
    row = tl.program_id(0)          # (l, b) token; x is (B, E, L)
    l = row // B
    b = row % B
    ks = tl.arange(0, E)
    xv = tl.load(x_ptr + b * E * L + ks * L + l)
    for part in range(3):
        cols = part * E + tl.arange(0, E)
        w = tl.load(w_ptr + cols[:, None] * E + ks[None, :])
        tl.store(out_ptr + row * 3 * E + cols, tl.sum(w * xv[None, :], axis=1) + tl.load(b_ptr + cols))


@triton.jit
def attn_kernel(qkv_ptr, o_ptr, scale, L: tl.constexpr, B: tl.constexpr, E: tl.constexpr, HD: tl.constexpr,
                NH: tl.constexpr):
    pid = tl.program_id(0)          # (i, b, h)
    h = pid % NH
    b = (pid // NH) % B
    i = pid // (NH * B)
    d = tl.arange(0, HD)
    j = tl.arange(0, L)
    q = tl.load(qkv_ptr + (i * B + b) * 3 * E + h * HD + d)
    k = tl.load(qkv_ptr + (j[:, None] * B + b) * 3 * E + E + h * HD + d[None, :])
    v = tl.load(qkv_ptr + (j[:, None] * B + b) * 3 * E + 2 * E + h * HD + d[None, :])
    s = tl.sum(k * q[None, :], axis=1) * scale
    s = s - tl.max(s, axis=0)
    p = tl.exp(s)
    p = p / tl.sum(p, axis=0)
    tl.store(o_ptr + (i * B + b) * E + h * HD + d, tl.sum(v * p[:, None], axis=0))


@triton.jit
def outproj_res_kernel(o_ptr, w_ptr, b_ptr, x_ptr, r_ptr, rt_ptr, L: tl.constexpr, B: tl.constexpr,
                       E: tl.constexpr):
    row = tl.program_id(0)
    l = row // B
    b = row % B
    ks = tl.arange(0, E)
    cols = tl.arange(0, E)
    o = tl.load(o_ptr + row * E + ks)
    w = tl.load(w_ptr + cols[:, None] * E + ks[None, :])
    r = tl.sum(w * o[None, :], axis=1) + tl.load(b_ptr + cols) + tl.load(x_ptr + b * E * L + cols * L + l)
    tl.store(r_ptr + row * E + cols, r)
    # value for the stats layer: (S=E, N=2*L*B/E, E): element (s, n, f) = R[n*E + f, s], R = [r rows; r^2 rows]
    NR: tl.constexpr = L * B
    tl.store(rt_ptr + cols * (2 * NR) + row, r)
    tl.store(rt_ptr + cols * (2 * NR) + NR + row, r * r)


@triton.jit
def ln_kernel(r_ptr, st_ptr, g_ptr, b_ptr, out_ptr, eps, L: tl.constexpr, B: tl.constexpr, E: tl.constexpr):
    row = tl.program_id(0)
    l = row // B
    b = row % B
    cols = tl.arange(0, E)
    NR: tl.constexpr = L * B
    mean = tl.load(st_ptr + row)            # torch's averages
    msq = tl.load(st_ptr + NR + row)
    rstd = 1.0 / tl.sqrt(msq - mean * mean + eps)
    r = tl.load(r_ptr + row * E + cols)
    y = (r - mean) * rstd * tl.load(g_ptr + cols) + tl.load(b_ptr + cols)
    tl.store(out_ptr + b * E * L + cols * L + l, y)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.stats = nn.MultiheadAttention(embed_dim, num_heads)   # same type and configuration
        with torch.no_grad():
            e = embed_dim
            self.stats.in_proj_weight.zero_()
            self.stats.in_proj_weight[2 * e:].copy_(torch.eye(e))
            self.stats.in_proj_bias.zero_()
            self.stats.out_proj.weight.copy_(torch.eye(e))
            self.stats.out_proj.bias.zero_()
        self.nh = num_heads

    def forward(self, x):
        x = x.contiguous()
        B, E, H, W = x.shape
        L = H * W
        qkv = torch.empty(L * B, 3 * E, device=x.device, dtype=x.dtype)
        qkv_kernel[(L * B,)](x, self.attn.in_proj_weight, self.attn.in_proj_bias, qkv, L=L, B=B, E=E)
        o = torch.empty(L * B, E, device=x.device, dtype=x.dtype)
        hd = E // self.nh
        attn_kernel[(L * B * self.nh,)](qkv, o, 1.0 / hd ** 0.5, L=L, B=B, E=E, HD=hd, NH=self.nh)
        r = torch.empty(L * B, E, device=x.device, dtype=x.dtype)
        rt = torch.empty(E, 2 * L * B, device=x.device, dtype=x.dtype)
        outproj_res_kernel[(L * B,)](o, self.attn.out_proj.weight, self.attn.out_proj.bias, x, r, rt, L=L, B=B, E=E)
        val = rt.view(E, 2 * L * B // E, E)
        q = val[:1]
        st, _ = self.stats(q, val, val, need_weights=False)      # (1, 2LB/E, E): means over the embed dim
        st = st.contiguous()
        out = torch.empty_like(x)
        ln_kernel[(L * B,)](r, st, self.norm.weight, self.norm.bias, out, self.norm.eps, L=L, B=B, E=E)
        return out
