# task: lstm_relu
# expect: error_type=torch_fallback
# Cheat: an exact nn.LSTM with no hooks, whose instance attribute `forward` is replaced by the answer's method:
# Module.__call__ still enters the layer, so all the replacement runs (the ReLU included) would count as one
# library call. A layer with an instance attribute that shadows its class's is not a library call.
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
        self.lstm.forward = self.everything

    def everything(self, x):
        h = nn.LSTM.forward(self.lstm, x)[0]
        return torch.relu(h * 2.0).contiguous()

    def forward(self, x):
        h2 = self.lstm(x)
        out = torch.empty_like(h2)
        half_kernel[(triton.cdiv(h2.numel(), 128),)](h2, out, h2.numel(), BLOCK=128)
        return out
