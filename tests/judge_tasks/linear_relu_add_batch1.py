"""Task: Linear, ReLU, then add a second input (a hybrid keeps the Linear in torch). Tiny shapes, batch 1: the
Linear's bias is added to one row, as a residual would be."""
import torch
import torch.nn as nn

BATCH = 1
IN_FEATURES = 32
OUT_FEATURES = 16


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, y):
        return torch.relu(self.linear(x)) + y


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES), torch.randn(BATCH, OUT_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
