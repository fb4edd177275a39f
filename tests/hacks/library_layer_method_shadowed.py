# task: lstm_relu
# expect: error_type=torch_fallback
# Cheat: an instance attribute check_forward_args (a method nn.LSTM.forward calls) runs the answer's torch code,
# a second LSTM and the ReLU, inside the library layer, where no op would be counted.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def half_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 0.5, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.inner = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.inner.load_state_dict(self.lstm.state_dict())
        self.lstm.check_forward_args = self.work
        self.x = None
        self.res = None

    def work(self, inp, hx, batch_sizes):
        self.res = torch.relu(self.inner(self.x)[0] * 2.0).contiguous()

    def forward(self, x):
        self.x = x
        self.lstm(x)
        h2 = self.res
        out = torch.empty_like(h2)
        half_kernel[(triton.cdiv(h2.numel(), 128),)](h2, out, h2.numel(), BLOCK=128)
        return out
