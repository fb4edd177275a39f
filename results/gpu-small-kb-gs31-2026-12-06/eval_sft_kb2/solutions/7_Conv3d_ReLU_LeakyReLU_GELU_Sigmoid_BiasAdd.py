import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v3 = launch_triton(v0, self.bias)
        return v3


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y7 = tl.where(v6 * 1.0 > 20.0, v6, tl.log(1.0 + tl.exp(v6 * 1.0)) / 1.0)
    b8 = tl.load(bias_ptr + offs, mask=mask, other=0.0)
    y9 = y7 - b8
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, bias):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), BLOCK=1024)
    return out
