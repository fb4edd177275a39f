# task: 33_VanillaRNN
# Honest hybrid: i2h(cat(x, h)) without the cat: the GEMM split along K, x W_x^T + b accumulated into by
# h W_h^T (addmm's C is the first half's output), tanh in Triton, h2o as the task's Linear.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, 2.0 * tl.sigmoid(2.0 * x) - 1.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.hidden = torch.randn((batch_size, hidden_size))
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.tanh = nn.Tanh()

    def forward(self, x, initial_hidden=None):
        if initial_hidden is not None:
            self.hidden.copy_(initial_hidden)
        self.hidden = self.hidden.to(x.device)
        w = self.i2h.weight
        pre = torch.addmm(self.i2h.bias, x, w[:, :self.input_size].t())
        pre = torch.addmm(pre, self.hidden, w[:, self.input_size:].t())
        h = torch.empty_like(pre)
        tanh_kernel[(triton.cdiv(h.numel(), 256),)](pre, h, h.numel(), BLOCK=256)
        self.hidden = h
        return self.h2o(h)


batch_size = 4
