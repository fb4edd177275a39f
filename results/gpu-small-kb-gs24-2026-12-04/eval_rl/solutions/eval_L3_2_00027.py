import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, output_channels, kernel_size, stride=1, padding=1, dilation=0, groups=0, bias=True, kernel_shape=(6, 12, 8, 8)):
        super().__init__()
        self.conv1 = nn.Conv3d(in_ch, output_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.kernel = nn.Parameter(torch.randn(kernel_shape))
        self.scale = nn.Parameter(torch.randn(scale_shape))

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v3 = launch_triton(v0, self.scale)
        return v3


@triton.jit
def triton_kernel(v0_ptr, scale_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (depth * height * width)
    i2 = (offs // (height * width * width)) % depth
    i3 = (offs // (width * width)) % height
    i4 = offs % (width * width)
    i5 = i4 // width
    i6 = i4 % width
    v7 = tl.load(v0_ptr + i1 * (depth * depth * height * width) + i2 * (depth * height * width) + i4 * (height * width) + i5 * width + i6, mask=mask, other=0.0)
    y8 = v7 * 0.5
    s9 = tl.load(scale_ptr + i2, mask=mask, other=0.0)
    y10 = y8 * s9
    tl.store(out_ptr + offs, y10, mask=mask)


def launch_triton(v0, scale):
    batch_size, _, depth, height, width = v0.shape
    out = torch.empty((batch_size, depth, height * width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, other, out, out.numel(), depth, height, width, BLOCK=1024)
    return out
