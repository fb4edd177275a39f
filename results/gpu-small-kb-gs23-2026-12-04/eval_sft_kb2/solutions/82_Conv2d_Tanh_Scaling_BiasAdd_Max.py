import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape, scaling_shape, 1, 1, 1, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.scaling_factor = scaling_factor
        self.max_pool = nn.MaxPool2d(kernel_size, pool_stride, bias=bias2)
        self.scaling_factor = scaling_factor
        self.max_pool = nn.MaxPool2d(kernel_size, pool_stride, bias=bias)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        v2 = launch_triton(x, self.scaling_factor, self.scaling_factor)
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.conv(v2)
        return v3


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, scaling_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (in_channels * height * width)
    i3 = offs % (height * width)
    i4 = i3 // width
    i5 = i3 % width
    x6 = tl.load(x_ptr + i1 * (in_channels * height * width) + i2 * (height * width) + i4 * width + i5, mask=mask, other=0.0)
    y7 = x6 * scaling_factor
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(x, scaling_factor):
    _, in_channels, height, width = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), in_channels, height, width, scaling_factor, BLOCK=2048)
    return out
