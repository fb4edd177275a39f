import torch
import torch.nn as nn


class Model(nn.Module):
    """KernelBench level-2 shapes of three search failures: clamp with min only (task 100), a
    parameter-free nn.LeakyReLU module (task 12), torch.max(x, dim, keepdim)[0] then reductions (task 18)."""

    def __init__(self, in_features, out_features, min_value, negative_slope):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.min_value = min_value
        self.leaky_relu = nn.LeakyReLU(negative_slope)

    def forward(self, x):
        x = self.linear(x)
        x = torch.clamp(x, min=self.min_value)
        x = self.leaky_relu(x)
        x = torch.max(x, dim=1, keepdim=True)[0]
        x = torch.logsumexp(x, dim=1, keepdim=True)
        return x


batch_size = 4
in_features = 16
out_features = 8


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, -0.25, 0.1]
