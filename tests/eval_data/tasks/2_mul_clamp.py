import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp(x * 0.5, -0.2, 0.2)


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
