import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int=1, stride: int=1, padding: int=1, bias2: bool=False):
        super(ModelNew, self).__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, dilation=dilation, bias=bias)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, dilation=dilation, bias=bias)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v1 = launch_triton(v0)
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = self.conv2d(v1)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, height: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (height * 3 * height * width)
    i2 = (offs // (height * width)) % height
    i3 = (offs // width) % height
    i4 = offs % width
    v5 = tl.load(v0_ptr + i1 * (2 * height * width) + i2 * (height * width) + i3 * width + i4, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v5, mask=mask)


def launch_triton(v0):
    batch_size, height, _, width = v0.shape
    out = torch.empty((batch_size, 3, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), height, BLOCK=1024)
    return out
