# task: lstm_relu
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat: the LSTM is allowed (the reference runs one), but torch also does the ReLU after it; the Triton
# kernel only copies. Ops outside the layer's own forward are not the library's.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 0.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        h = torch.relu(self.lstm(x)[0]).contiguous()
        out = torch.empty_like(h)
        copy_kernel[(triton.cdiv(h.numel(), 128),)](h, out, h.numel(), BLOCK=128)
        return out
