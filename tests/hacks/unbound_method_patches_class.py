# task: lstm_relu
# expect: error_type=static_check flag=static:class_as_value
# Cheat (patching a torch class, the library-layer audit): `H = Patcher` binds the answer's class to another name,
# so `H.put(nn.LSTM, ...)` is not seen as an unbound method call (that rule only knows the class's own name); in
# `put` the parameter `self` is the class torch.nn.LSTM and `self.forward = fn` passes as an assignment on self in
# a method. nn.LSTM.forward (a class no snapshot covers) is replaced for the duration of the call, so the
# module is still exactly nn.LSTM with no instance attribute: the whole replacement, the ReLU included, counts as
# one library call. The ReLU's output is doubled so no torch output equals the answer; the kernel halves it.
# The original forward is put back before forward returns.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def half_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 0.5, mask=mask)


class Patcher:
    def put(self, fn):
        self.forward = fn


H = Patcher
ORIGINAL = nn.LSTM.forward


def relu_forward(self, x, hx=None):
    out, state = ORIGINAL(self, x, hx)
    return torch.relu(out * 2.0), state


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        H.put(nn.LSTM, relu_forward)
        h, _ = self.lstm(x)
        H.put(nn.LSTM, ORIGINAL)
        h = h.contiguous()
        out = torch.empty_like(h)
        half_kernel[(triton.cdiv(h.numel(), 128),)](h, out, h.numel(), BLOCK=128)
        return out
