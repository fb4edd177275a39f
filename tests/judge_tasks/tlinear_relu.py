"""Task (false-rejection probe): a Linear over the channel dim of a (B, C, L) input, then ReLU."""
import torch
import torch.nn as nn

B, C, L, OUT = 2, 12, 10, 16


class Model(nn.Module):
    def __init__(self, c, out):
        super().__init__()
        self.linear = nn.Linear(c, out)

    def forward(self, x):
        return torch.relu(self.linear(x.transpose(1, 2)))


def get_inputs():
    return [torch.randn(B, C, L)]


def get_init_inputs():
    return [C, OUT]
