# task: tlinear_relu
# Honest hybrid: the task's own nn.Linear call (torch GEMM + bias), the ReLU in Triton.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, c, out):
        super().__init__()
        self.linear = nn.Linear(c, out)

    def forward(self, x):
        h = self.linear(x.transpose(1, 2)).contiguous()
        out = torch.empty_like(h)
        n = h.numel()
        relu_kernel[(triton.cdiv(n, 256),)](h, out, n, BLOCK=256)
        return out
