# task: mha_norm
# Honest hybrid: the reference's attention kept as the library layer, but built batch_first=True so the
# (B, C, H*W) input needs no permuted copy (the layer's weights are drawn identically: batch_first changes no
# parameter); the residual add + LayerNorm in Triton, written straight into the (B, C, H, W) output.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_ln_kernel(a_ptr, x_ptr, w_ptr, b_ptr, out_ptr, C, L, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)          # one (b, l) position
    bb = row // L
    ll = row % L
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    a = tl.load(a_ptr + row * C + cols, mask=mask, other=0.0)          # attention output (B, L, C)
    x = tl.load(x_ptr + bb * C * L + cols * L + ll, mask=mask, other=0.0)   # input (B, C, L)
    v = a + x
    mean = tl.sum(v, axis=0) / C
    d = tl.where(mask, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / C
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + bb * C * L + cols * L + ll, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        B, C, H, W = x.shape
        L = H * W
        xs = x.reshape(B, C, L)
        seq = xs.transpose(1, 2)                      # (B, L, C), a view
        a, _ = self.attn(seq, seq, seq, need_weights=False)
        a = a.contiguous()
        out = torch.empty_like(x)
        add_ln_kernel[(B * L,)](a, xs, self.norm.weight, self.norm.bias, out, C, L, self.norm.eps,
                                BLOCK=triton.next_power_of_2(C))
        return out
