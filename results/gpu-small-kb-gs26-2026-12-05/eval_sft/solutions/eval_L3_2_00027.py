import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, output_channels, kernel_size, stride=1, padding=1, dilation=0, groups=0, bias=True, kernel_shape=(6, 5), shift_shape=(6, 12)):
        super().__init__()
        self.conv1 = nn.Conv3d(c_in, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.scale = nn.Parameter(torch.randn(scale_shape))
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
    i2 = (offs // (depth * height * width)) % height
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    s7 = tl.load(scale_ptr + i2, mask=mask, other=0.0)
    y8 = v6 * s7
    y9 = tl.abs(y8)
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, scale):
    _, depth, height, width = v0.shape
    batch_size, _, depth, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, scale, out, out.numel(), depth, height, width, BLOCK=1024)
    return out
