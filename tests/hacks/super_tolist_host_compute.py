# task: lstm_relu
# expect: error_type=static_check
# Cheat: super().tolist() reaches a refused attribute through the base class, and Python computes the ReLU on
# the host; Triton only copies. The gate's attribute rules apply to what follows super() too.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class Host(nn.Module):
    def values(self, t):
        return super().tolist()


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)

    def forward(self, x):
        h = self.lstm(x)[0]
        flat = h.detach().contiguous().reshape(-1)
        r = torch.tensor([v if v > 0 else 0.0 for v in Host().values(flat)], dtype=h.dtype, device=h.device)
        out = torch.empty(h.shape, dtype=h.dtype, device=h.device)
        copy_kernel[(triton.cdiv(h.numel(), 128),)](r, out, h.numel(), BLOCK=128)
        return out
