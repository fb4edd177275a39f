"""Task: manual_attn_norm with a sequence-first input (T, B, C), transposed in forward: c_attn runs on a
non-contiguous view, which torch computes as a GEMM, then a bias add."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

EMBED, HEADS, BATCH, SEQ = 16, 2, 2, 16


class Model(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.norm = nn.LayerNorm(n_embd)
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x):
        x = x.transpose(0, 1)   # seq-first input (T, B, C) -> (B, T, C), a non-contiguous view
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.norm(self.c_proj(y) + x)


def get_inputs():
    return [torch.rand(SEQ, BATCH, EMBED)]


def get_init_inputs():
    return [EMBED, HEADS]
