import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias, weight_shape, scaling_shape, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias_factor = bias_factor

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bias_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, batch_size: tl.constexpr, height: tl.constexpr, width: tl.constexpr, bias_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (height * width)) % bias_d0
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = 1.0 - 2.0 / (tl.exp(2.0 * v5) + 1.0)
    b7 = tl.load(bias_ptr + i2, mask=mask, other=0.0)
    y8 = y6 * b7
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, bias, negative_factor):
    _, _, _, _, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), batch_size, height, width, scaling_factor, BLOCK=2048)
    return out
