import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 1..1: leaky_relu
class f1_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = f1_launch_triton(x)
        return v0


@triton.jit
def f1_triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y4 = tl.where(x3 >= 0.0, x3, x3 * 0.2)
    tl.store(out_ptr + offs, y4, mask=mask)


def f1_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f1_triton_kernel[grid](x, out, out.numel(), BLOCK=256)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, multiplier_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding)
        self.multiplier = nn.Parameter(torch.randn(multiplier_shape))
        self.leaky_relu = nn.LeakyReLU(negative_slope=0.2)
        self.max_pool = nn.MaxPool3d(kernel_size=2)
        self.frag1 = f1_ModelNew()

    def forward(self, x):
        conv_transpose = self.conv_transpose(x)
        leaky_relu = self.frag1(conv_transpose.contiguous())
        mul = leaky_relu * self.multiplier
        leaky_relu_1 = F.leaky_relu(mul, negative_slope=0.2)
        max_pool = self.max_pool(leaky_relu_1)
        return max_pool
