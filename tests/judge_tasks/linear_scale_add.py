"""Task: Linear, a scale, then add a second input (KernelBench level 2's Gemm_Scaling_ResidualAdd shape). Tiny
shapes for the CPU interpreter."""
import torch
import torch.nn as nn

BATCH = 8
IN_FEATURES = 32
OUT_FEATURES = 16


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, y):
        return self.linear(x) * 0.5 + y


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES), torch.randn(BATCH, OUT_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
