# task: linear_relu
# A hybrid solution: torch does the matmul (nn.Linear), a Triton kernel does bias + ReLU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(x_ptr, b_ptr, out_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % cols, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = torch.matmul(x, self.linear.weight.t())
        out = torch.empty_like(h)
        n = h.numel()
        bias_relu_kernel[(triton.cdiv(n, 256),)](h, self.linear.bias, out, n, h.shape[1], BLOCK=256)
        return out
