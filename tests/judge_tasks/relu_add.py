"""Task: relu(x * 2 + y), elementwise. Tiny shapes for the CPU interpreter."""
import torch
import torch.nn as nn

N = 37
M = 50


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.relu(x * 2.0 + y)


def get_inputs():
    return [torch.randn(N, M), torch.randn(N, M)]


def get_init_inputs():
    return []
