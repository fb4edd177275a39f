import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, c_out, kernel_size=0, stride=1, padding=1, output_padding=0, groups=1, bias=True, dilation=1, offset_shape=(3, 5, 7)):
        super().__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels=in_channels, out_channels=c_out, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias, dilation=dilation)
        self.offset = nn.Parameter(torch.randn(offset_shape))

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v1 = launch_triton(v0, self.offset)
        return v1


@triton.jit
def triton_kernel(v0_ptr, offset_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    o5 = tl.load(offset_ptr + offs, mask=mask, other=0.0)
    y6 = v4 + o5
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, offset):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, offset, out, out.numel(), BLOCK=1024)
    return out
