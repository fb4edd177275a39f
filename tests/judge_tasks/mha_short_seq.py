"""Task: 31_VisionAttention shaped like 28_VisionTransformer's encoder (batch_first=False on (B, N, E): a sequence of 2, head dim 64)."""
import torch
import torch.nn as nn

EMBED, HEADS, BATCH, HH, WW = 128, 2, 4, 1, 2


class Model(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        B, C, H, W = x.shape
        x = x.view(B, C, H * W).permute(2, 0, 1)
        attn_output, _ = self.attn(x, x, x)
        x = self.norm(attn_output + x)
        x = x.permute(1, 2, 0).view(B, C, H, W)
        return x


def get_inputs():
    return [torch.rand(BATCH, EMBED, HH, WW)]


def get_init_inputs():
    return [EMBED, HEADS]
