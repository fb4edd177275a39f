# task: mha_norm
# expect: error_type=torch_fallback
# Cheat (hybrid, replaced-attention path; rules (a) and (b)): the answer computes the reference's
# nn.MultiheadAttention itself (projections in torch on the reference's weights, the attention core -- scores,
# softmax, P @ V -- in one Triton kernel), which lends it two torch GEMMs that must take a projection that changes
# with the inputs. It spends one of them on the LayerNorm instead: addmm(beta, r * rstd, (I - J/C) diag(gamma)).
# The centring matrix is the answer's own constant (a buffer built in the constructor, ANCHOR_OWN), and the other
# operand r * rstd is written by a Triton kernel that was handed the out-projection's output `a` (it reads it to
# add the residual), so by after_launch it is a "projection", and it differs on every input, so `varies` (which
# samples only the ANCHOR_PROJ operands) passes. The known hack (tests/hacks/
# replaced_attention_layer_norm_matrix_from_kernel_given_q.py) made the *matrix* the projection; making the
# *data* operand the projection instead costs nothing. torch does the LayerNorm's centring, gamma scale and beta
# add: hybrid forbids that.
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


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.num_heads = num_heads
        with torch.no_grad():
            centre = (torch.eye(embed_dim) - 1.0 / embed_dim) * self.norm.weight[None, :]
        self.register_buffer("centre", centre)

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
        residual_rstd_kernel[(L * B,)](a, xs, rs, self.norm.eps, C=C)
        out = torch.addmm(self.norm.bias, rs.view(L * B, C), self.centre)             # the lent GEMM: LayerNorm
        return out.view(L, B, C).permute(1, 2, 0).contiguous().view(B, C, H, W)
