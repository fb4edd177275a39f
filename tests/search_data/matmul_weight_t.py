import torch
import torch.nn as nn


class Model(nn.Module):
    """KernelBench level-2 task 14's shape: x @ weight.T hands the matmul a transposed view of a
    parameter; the fragment is judged on contiguous inputs, so the hybrid must hand it a contiguous one."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))

    def forward(self, x):
        x = torch.matmul(x, self.weight.T)
        x = torch.sum(x, dim=1, keepdim=True)
        return x


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return [16, 24]
