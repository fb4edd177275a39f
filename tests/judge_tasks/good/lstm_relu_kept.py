# task: lstm_relu
# Policy hybrid keeps a library layer the reference runs in torch (its aten ops count as one family,
# library:LSTM); the ReLU after it is a Triton kernel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        h, _ = self.lstm(x)
        h = h.contiguous()
        out = torch.empty_like(h)
        relu_kernel[(triton.cdiv(h.numel(), 128),)](h, out, h.numel(), BLOCK=128)
        return out
