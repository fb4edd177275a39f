import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, floor_shape):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.exponent = nn.Parameter(0.01)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.linear(x)
        v2 = launch_triton(v0, self.divisor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, divisor_ptr, out_ptr, n_elements, divisor_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = offs % divisor_d0
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = tl.minimum(tl.maximum(v3, 0.0), 6.0)
    s5 = tl.load(multiplier_ptr + i2, mask=mask, other=0.0)
    y6 = y4 / s5
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, divisor):
    divisor_d0 = divisor.shape[0]
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, divisor, out, out.numel(), divisor_d0, BLOCK=64)
    return out
