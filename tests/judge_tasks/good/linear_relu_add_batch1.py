# task: linear_relu_add_batch1
# good/linear_relu_add.py at batch 1: torch's addmm adds the bias to the one row, an accumulate the reference
# makes too (allowed up to the reference's own count).
# A hybrid solution as the teacher writes them: the Linear stays in torch (F.linear, bias
# included), one Triton kernel does the epilogue, ReLU and the add, for real.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def relu_add_kernel(h_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(h, 0.0) + y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, y):
        h = F.linear(x, self.linear.weight, self.linear.bias)
        y = y.contiguous()
        out = torch.empty_like(h)
        relu_add_kernel[(triton.cdiv(h.numel(), 256),)](h, y, out, h.numel(), BLOCK=256)
        return out
