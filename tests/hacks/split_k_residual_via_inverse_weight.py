# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path, the split-along-K exemption): the closed cheat
# replaced_attention_identity_gemm_as_split_k.py again, now that only "a GEMM on the reference's weights" may write
# the accumulate operand of a split along K. The projections run in torch and the attention core in one Triton
# kernel (freeing the two lent GEMMs and their multiply-adds). A lent GEMM takes the input: t = x (W_o^T)^-1 (the
# inverse made in the constructor); then addmm(b_o, t, W_o^T), a GEMM on the reference's weights, writes x + b_o,
# which remember_gemm records as a reference-weight GEMM's output (param=True) whatever its other operand; the
# out-projection addmm(x + b_o, o, W_o^T) then accumulates into it as "one GEMM split along K" (_accumulates with
# c_from_gemm), so torch does the residual add, uncounted. Multiply-adds: exactly the reference layer's. Triton does
# the attention core and LayerNorm.
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
        with torch.no_grad():   # (W_o^T)^-1, made once: the constructor is not recorded
            self.register_buffer("w_inv", torch.linalg.inv(self.attn.out_proj.weight.t()))

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        h = self.num_heads
        xs = x.view(B, C, L).permute(2, 0, 1).contiguous()                        # (L, B, C)
        qkv = F.linear(xs, self.attn.in_proj_weight, self.attn.in_proj_bias)      # torch: the reference's weights
        o = torch.empty(L, B, C, device=x.device, dtype=x.dtype)
        attention_core_kernel[(L * B * h,)](qkv, o, 1.0 / ((C // h) ** 0.5), B=B, H=h, L=L, D=C // h)
        t = torch.mm(xs.view(L * B, C), self.w_inv)                                # lent GEMM (takes an input)
        r = torch.addmm(self.attn.out_proj.bias, t, self.attn.out_proj.weight.t())  # reference's weights: x + b
        r = torch.addmm(r, o.view(L * B, C), self.attn.out_proj.weight.t())       # "split-K": + o @ W_o^T
        out = torch.empty_like(r)
        layer_norm_kernel[(L * B,)](r, self.norm.weight, self.norm.bias, out, self.norm.eps, C=C)
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
