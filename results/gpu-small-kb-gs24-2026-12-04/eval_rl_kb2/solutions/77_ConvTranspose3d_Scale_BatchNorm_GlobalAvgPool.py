import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scale_factor, momentum=0.1, in_channels: int=6, out_channels: int=5, kernel_size: int=1, scale_factor: float=0.1):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, bias=False)
        self.scale_factor = scale_factor
        self.scale_factor = scale_factor

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.scale_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * height * width)
    o2 = (offs // (height * width)) % depth
    o3 = (offs // width) % height
    o4 = offs % width
    lo5 = (o3 * depth) // width
    hi6 = ((o3 + 1) * depth + (width - 1 - i2) * (depth * depth * depth) + i4 * depth + i5, mask=mask, other=0.0)
    y7 = v6 * scale_factor
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, scale_factor):
    batch_size, depth, _, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), depth, height, width, scale_factor, BLOCK=2048)
    return out
