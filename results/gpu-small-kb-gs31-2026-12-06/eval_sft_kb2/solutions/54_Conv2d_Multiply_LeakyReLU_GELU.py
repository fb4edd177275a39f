import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, multiplier_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.multiplier = nn.Parameter(torch.randn(multiplier_shape))
        self.multiplier = nn.Parameter(torch.randn(multiplier_shape))

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.multiplier)
        return v2


@triton.jit
def triton_kernel(v0_ptr, multiplier_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, multiplier_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (depth * out_height)) % multiplier_d0
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = 0.5 * v5 * (1.0 + tl.erf(v5 * 0.7071067811865476))
    b7 = tl.load(multiplier_ptr + i2, mask=mask, other=0.0)
    y8 = y6 * m7
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, multiplier):
    batch_size, depth, _, height = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, multiplier, out, out.numel(), depth, height, width, multiplier_d0, BLOCK=1024)
    return out
