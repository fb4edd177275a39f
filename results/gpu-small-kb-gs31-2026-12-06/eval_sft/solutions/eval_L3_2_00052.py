import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_channels: int, c_out: int, kernel_size: int, stride: int, padding: int=1, output_padding: int=1, groups: int=1, bias: bool=True, shift: float=-0.25):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels=input_channels, out_channels=c_out, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)
        self.shift = shift

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.shift)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, shift: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = v5 + shift
    y7 = y6 + shift
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, shift):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), shift, BLOCK=1024)
    return out
