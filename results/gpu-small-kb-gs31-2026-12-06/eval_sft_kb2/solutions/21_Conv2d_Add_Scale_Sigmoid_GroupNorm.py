import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape, bias_shape, bias_shape):
        super(ModelNew, self).__init__()
        self.conv3d = nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, bias=bias2)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, bias_d0: tl.constexpr, bias_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // bias_d0
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    b6 = tl.load(bias_ptr + i2, mask=mask, other=0.0)
    y7 = v5 + b6
    b8 = tl.load(bias_ptr + offs, mask=mask, other=0.0)
    y9 = y7 + b8
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, bias):
    bias_d0 = bias_d0, _, _ = bias.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), bias_d0, BLOCK=1024)
    return out
