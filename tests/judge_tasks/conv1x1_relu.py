"""Task (false-rejection probe): a pointwise (1x1) convolution with bias, then ReLU."""
import torch
import torch.nn as nn

N, CIN, COUT, H, W = 2, 8, 12, 5, 6


class Model(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=1, bias=True)

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
