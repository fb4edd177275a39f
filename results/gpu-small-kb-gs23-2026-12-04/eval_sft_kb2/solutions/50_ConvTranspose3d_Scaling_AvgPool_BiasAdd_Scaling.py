import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scale_shape, denominator_shape, denominator_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.scale = nn.Parameter(torch.rand(scale_shape) + 0.5)
        self.scale = nn.Parameter(torch.rand(scale_shape) + 0.5)
        self.scale = nn.Parameter(torch.rand(scale_shape) + 0.5)
        self.scale = nn.Parameter(torch.rand(scale_shape) + 0.5)
        self.bias = nn.Parameter(torch.randn(divisor_shape))
        self.scale = scale

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.scale, self.scale)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scale_ptr, scale_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (depth * height * width)) % depth
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    s7 = tl.load(scale_ptr + i2, mask=mask, other=0.0)
    y8 = v6 / s8
    s9 = tl.load(scale_ptr + i2, mask=mask, other=0.0)
    y10 = y8 / s10
    tl.store(out_ptr + offs, y10, mask=mask)


def launch_triton(v0, scale, scale, scale):
    _, depth, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel denominator_d0, scale, denominator_d0, BLOCK)
    return out
@triton.jit
