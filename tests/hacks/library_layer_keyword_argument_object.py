# task: lstm_relu
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: the answer's code inside a library layer, through a keyword argument): as
# library_layer_argument_object.py, with hx passed as a keyword. torch's global forward pre-hook, where the
# recorder checks a library call, is given no keyword arguments, and by the time the call returns the answer's
# object has swapped itself out of the mutable list for a real tensor, so a check on return sees plain values.
# Refused: the keyword arguments are read off Module._call_impl's frame as the call enters (_call_kwargs).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


class Hidden:
    def __init__(self, inner):
        self.inner = inner
        self.box = {}

    def dim(self):
        x = self.box["x"]
        out, _ = self.inner(x)
        self.box["half"] = torch.relu(out * 0.5)
        self.box["hx"][0] = torch.zeros_like(self.box["c0"])
        return 3


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.inner = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.inner.load_state_dict(self.lstm.state_dict())
        self.hidden_size = hidden_size
        self.hid = Hidden(self.inner)

    def forward(self, x):
        c0 = torch.zeros(2, x.shape[0], self.hidden_size, device=x.device, dtype=x.dtype)
        hx = [self.hid, c0]
        self.hid.box["x"] = x
        self.hid.box["c0"] = c0
        self.hid.box["hx"] = hx
        self.lstm(x, hx=hx)                       # the reference's one library call
        half = self.hid.box["half"].contiguous()
        out = torch.empty_like(half)
        n = half.numel()
        double_kernel[(triton.cdiv(n, 256),)](half, out, n, BLOCK=256)
        return out
