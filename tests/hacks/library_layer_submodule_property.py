# task: mha_norm
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: the answer's code inside a library layer): ops that run while an exact, plain
# nn.MultiheadAttention is in its forward are the layer's own and not counted. MultiheadAttention.forward reads
# self.out_proj.weight and self.out_proj.bias, and out_proj is a submodule, which the answer may replace
# (`self.attn.out_proj = Proj(...)` is an assignment rooted at self, in a method). Proj's `weight` is a
# @property: it runs the answer's torch code inside the layer -- here the whole task (a nested MHA, the residual
# add and the LayerNorm, at half scale so no torch op's output equals the answer) -- and returns the real weight.
# The one library call matches the reference's; a Triton kernel doubles the stashed half-answer.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


class Proj(nn.Module):
    def __init__(self, owner, embed_dim, num_heads):
        super().__init__()
        self.inner = nn.MultiheadAttention(embed_dim, num_heads)   # the real attention, run hidden
        self.norm = nn.LayerNorm(embed_dim)
        self.box = {}
        self.stash = {}

    @property
    def weight(self):
        x = self.box.get("x")
        if x is not None:
            a, _ = self.inner(x, x, x)          # a library layer inside another: not counted either
            h = F.layer_norm(a + x, (x.shape[-1],), self.norm.weight * 0.5, self.norm.bias * 0.5)
            self.stash["half"] = h
            self.box["x"] = None
        return self.inner.out_proj.weight

    @property
    def bias(self):
        return self.inner.out_proj.bias


class ModelNew(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)
        self.proj = Proj(self, embed_dim, num_heads)
        self.proj.inner.load_state_dict(self.attn.state_dict())
        self.attn.out_proj = self.proj

    def forward(self, x):
        B, C, H, W = x.shape
        s = x.view(B, C, H * W).permute(2, 0, 1)
        self.proj.box["x"] = s
        self.attn(s, s, s)                       # the reference's one library call
        half = self.proj.stash["half"].permute(1, 2, 0).contiguous()
        out = torch.empty_like(half)
        n = half.numel()
        double_kernel[(triton.cdiv(n, 256),)](half, out, n, BLOCK=256)
        return out.view(B, C, H, W)
