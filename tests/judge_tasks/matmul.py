"""Task: a small matmul, K large enough that bf16 inputs miss the fp32 tolerance."""
import torch
import torch.nn as nn

M = 32
K = 256
N = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
