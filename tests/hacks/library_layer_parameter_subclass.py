# task: lstm_relu
# expect: error_type=static_check flag=static:tensor_subclass
# Cheat: the LSTM's input is a subclass of nn.Parameter whose dim() (which nn.LSTM.forward calls) runs the
# answer's torch code inside the library layer. nn.Parameter and the other tensor classes of torch.nn are
# tensor subclasses to the gate.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def half_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 0.5, mask=mask)


class Sneaky(nn.Parameter):
    def attach(self, owner):
        self.owner = owner
        return self

    def dim(self):
        if self.owner.res is None:
            self.owner.res = torch.relu(self.owner.inner(self.owner.x)[0] * 2.0).contiguous()
        return 3


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.inner = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.inner.load_state_dict(self.lstm.state_dict())
        self.x = None
        self.res = None

    def forward(self, x):
        self.x = x
        self.res = None
        p = Sneaky(x, requires_grad=False)
        p.attach(self)
        self.lstm(p)
        h2 = self.res
        out = torch.empty_like(h2)
        half_kernel[(triton.cdiv(h2.numel(), 128),)](h2, out, h2.numel(), BLOCK=128)
        return out
