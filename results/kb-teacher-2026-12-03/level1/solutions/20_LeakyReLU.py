import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float=0.01):
        super(ModelNew, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        leaky_relu_out = leaky_relu(x)
        return leaky_relu_out


@triton.jit
def leaky_relu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y4 = tl.where(x3 >= 0.0, x3, x3 * 0.01)
    tl.store(out_ptr + offs, y4, mask=mask)


def leaky_relu(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    leaky_relu_kernel[grid](x, out, out.numel(), BLOCK=2048)
    return out
