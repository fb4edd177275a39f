import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, channels_in: int, out_channels: int, kernel_size: int, stride: int, padding: int=1, output_padding: int=0, groups: int=1, bias: bool=False, dilation: int=1, offset_shape: tuple=(7,)):
        super(ModelNew, self).__init__()
        self.conv_transpose3d = nn.ConvTranspose3d(channels_in, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias, dilation=dilation)
        self.offset = nn.Parameter(torch.randn(offset_shape))
        self.offset = nn.Parameter(torch.randn(offset_shape))

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose3d(x)
        v2 = launch_triton(v0, self.offset)
        return v2


@triton.jit
def triton_kernel(v0_ptr, offset_ptr, out_ptr, n_elements, width: tl.constexpr, multiplier_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (width) % offset_d0
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    o7 = tl.load(offset_ptr + i2, mask=mask, other=0.0)
    y8 = v6 + o7
    y9 = y8 + o8
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, offset):
    _, _, width, _, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, offset, out, out.numel(), width, BLOCK=1024)
    return out
