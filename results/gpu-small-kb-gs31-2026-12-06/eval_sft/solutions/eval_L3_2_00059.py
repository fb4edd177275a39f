import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int, bias: bool, out_channels2: int, bias: bool, out_channels2: int):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        self.conv2d = nn.Conv2d(in_channels, out_channels=out_channels2, kernel_size=kernel_size2, stride=stride, padding=padding, bias=False)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v1 = launch_triton(v0)
        v2 = launch_triton_2(v1)
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.conv(v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // 72
    i2 = (offs // 76) % 7
    i3 = offs % 72
    i4 = i3 // 7
    i5 = i3 % 7
    v6 = tl.load(v0_ptr + (7 - i3), mask=mask, other=0.0)
    tl.store(out_ptr + offs, v5, mask=mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 7, 7), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v2_ptr + offs, mask=mask, other=0.0)
    y5 = tl.minimum(v4, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(v4)))
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(v2):
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, out, out.numel(), BLOCK=1024)
    return out
