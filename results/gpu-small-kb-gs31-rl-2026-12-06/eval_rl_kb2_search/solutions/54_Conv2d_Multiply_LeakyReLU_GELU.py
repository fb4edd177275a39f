import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: gelu
class f3_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = f3_launch_triton(x)
        return v0


@triton.jit
def f3_triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y2 = 0.5 * x1 * (1.0 + tl.erf(x1 * 0.7071067811865476))
    tl.store(out_ptr + offs, y2, mask=mask)


def f3_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f3_triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, multiplier_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.multiplier = nn.Parameter(torch.randn(multiplier_shape))
        self.leaky_relu = nn.LeakyReLU()
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        conv = self.conv(x)
        mul = conv * self.multiplier
        leaky_relu = F.leaky_relu(mul, negative_slope=0.01)
        gelu = self.frag3(leaky_relu.contiguous())
        return gelu
