# task: lstm_relu
# expect: error_type=torch_fallback|static_check
# Cheat: a subclass of nn.LSTM whose forward also runs the ReLU, hoping the whole call counts as the library
# layer. Only exactly torch.nn's own layer types count; a subclass's ops are the answer's.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 0.0, mask=mask)


class ReluLSTM(nn.LSTM):
    def forward(self, x):
        out, state = super().forward(x)
        return torch.relu(out), state


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = ReluLSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        h = self.lstm(x)[0].contiguous()
        out = torch.empty_like(h)
        copy_kernel[(triton.cdiv(h.numel(), 128),)](h, out, h.numel(), BLOCK=128)
        return out
