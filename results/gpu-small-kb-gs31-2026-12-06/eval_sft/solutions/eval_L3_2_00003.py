import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_channels, kernel_size, padding):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv2d(in_ch, out_channels, kernel_size=kernel_size, padding=padding, bias=False)

    def forward(self, x, other):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v2 = launch_triton(v0, other)
        return v2


@triton.jit
def triton_kernel(v0_ptr, other_ptr, out_ptr, n_elements, channels: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * height * dim2)
    i2 = (offs // (height * dim2)) % channels
    i3 = offs % (height * dim2)
    i4 = i3 // dim2
    i5 = i3 % dim2
    x6 = tl.load(x_ptr + i1 * (channels * height * dim2) + i2 * (height * dim2) + i4 * dim2 + i5, mask=mask, other=0.0)
    y7 = tl.sigmoid(x6)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, other):
    batch_size, channels, height, dim2 = x.shape
    out = torch.empty((batch_size, channels, height * dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, other, out, out.numel(), channels, height, dim2, BLOCK=1024)
    return out
