import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float=0.1):
        super(ModelNew, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        v0 = launch_triton(x, self.negative_slope)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, negative_slope: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y4 = tl.minimum(tl.maximum(x3, negative_slope)
    tl.store(out_ptr + offs, y4, mask=mask)


def launch_triton(x, negative_slope):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), negative_slope, BLOCK=1024)
    return out
