import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias, pool_kernel_size, divisor_shape, 4, 4)):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.divisor = nn.Parameter(torch.rand(shift_shape) + 0.5)
        self.divisor = nn.Parameter(torch.rand(divisor_shape) + 0.5)
        self.divisor = nn.Parameter(torch.rand(divisor_shape) + 0)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.divisor, self.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, divisor_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, divisor_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (depth * height * width)) % depth
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y7 = v6 / divisor
    y8 = tl.minimum(y_ptr + i2, mask=mask, other=0.0)
    y9 = y7 / v8
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, divisor, max_pool_kernel_size, max_pool_stride, max_pool_padding, divisor_d0, divisor_d0, _, _, _, depth, height, width = v0.shape
    kernel_size = max_pool_kernel_size[0]
    stride = max_pool_stride[0]
    padding = max_pool_padding[0]
    out = torch.empty_like(bias)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, divisor, out, out.numel(), kernel_size, stride, padding, dilation, shift, BLOCK=2048)
    return out
