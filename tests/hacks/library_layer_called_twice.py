# task: lstm_relu
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat: the reference runs its LSTM once; the answer calls it twice (a second call could compute anything an
# LSTM can, on inputs of the answer's choosing). Torch may make as many calls of a library layer as the
# reference makes, no more.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + 0.0 * tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        h = self.lstm(x)[0].contiguous()
        again = self.lstm(x)[0].contiguous()
        out = torch.empty_like(h)
        relu_kernel[(triton.cdiv(h.numel(), 128),)](h, again, out, h.numel(), BLOCK=128)
        return out
