"""Task: Conv2d, ReLU, then a learned per-channel bias (KernelBench level 2's shape). Tiny shapes for
the CPU interpreter."""
import torch
import torch.nn as nn

BATCH = 2
IN_CHANNELS = 3
OUT_CHANNELS = 4
SIZE = 8
KERNEL = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL]
