import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int, bias: bool, out_ch: int, bias: bool):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        self.conv2d = nn.Conv1d(out_channels, out_channels=out_ch, kernel_size=kernel_size2, stride=stride2, padding=padding, bias=bias)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v2 = launch_triton(v0)
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.conv2d(v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, channels: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * channels * channels)
    i2 = (offs // (channels * channels)) % channels
    i3 = offs % (channels * channels)
    i4 = i3 // channels
    i5 = i3 % channels
    v6 = tl.load(v0_ptr + i1 * (channels * channels * channels) + i2 * (channels * channels) + i4 * channels + i5, mask=mask, other=0.0)
    y7 = tl.minimum(v6, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(v6)))
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0):
    batch_size, channels, _, _ = v0.shape
    out = torch.empty((batch_size, channels, channels * channels), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), channels, BLOCK=2048)
    return out
