import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, clamp_min, shift_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.leaky_relu = nn.LeakyReLU(negative_slope=negative_slope)
        self.negative_slope = negative_slope

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.negative_slope)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, negative_slope: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y7 = tl.where(v6 >= 0.0, v6, v6 * 0.2)
    y8 = tl.where(y7 >= 0.0, y7, y7 * 0.2)
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, negative_slope):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, multiplier, out, out.numel(), negative_slope, BLOCK=2048)
    return out
