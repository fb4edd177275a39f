# task: relu_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat: a Triton kernel computes x * 2 + y, and a library layer the reference never runs (an RNN with relu
# cells, weight 1 and no bias) does the ReLU as its hidden state. A layer counts as a library call only where
# the reference runs one of its type; here its ops are the answer's own torch compute.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(1, 1, nonlinearity="relu", bias=False)
        with torch.no_grad():
            self.rnn.weight_ih_l0.fill_(1.0)
            self.rnn.weight_hh_l0.fill_(0.0)

    def forward(self, x, y):
        s = torch.empty_like(x)
        axpy_kernel[(triton.cdiv(x.numel(), 128),)](x, y, s, x.numel(), BLOCK=128)
        return self.rnn(s.reshape(1, -1, 1))[0].reshape(x.shape).contiguous()
