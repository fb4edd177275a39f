"""Task: a two-layer LSTM, then an affine map of its output (a library layer with linear work after it)."""
import torch
import torch.nn as nn

BATCH, SEQ, IN, HIDDEN = 3, 5, 6, 8


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        out, _ = self.lstm(x)
        return out * 0.5 + 1.0


def get_inputs():
    return [torch.randn(BATCH, SEQ, IN)]


def get_init_inputs():
    return [IN, HIDDEN]
