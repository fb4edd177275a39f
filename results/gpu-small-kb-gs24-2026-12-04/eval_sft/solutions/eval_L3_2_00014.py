import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_channels=9, c_out=1, kernel_size=1, denominator_shape=(5, 13, 13)):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels=input_channels, out_channels=c_out, kernel_size=kernel_size, bias=False)
        self.denominator = nn.Parameter(torch.rand(denominator_shape) + 0.5)
        self.denominator = nn.Parameter(torch.rand(denominator_shape) + 0.5)
        self.denominator = nn.Parameter(torch.rand(denominator_shape) + 0.5)
        self.divisor = divisor

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v2 = launch_triton(v0, self.denominator, self.divisor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, denominator_ptr, out_ptr, n_elements, divisor_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i4 = offs % divisor_d0
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = v5 / v5
    v7 = tl.load(denominator_ptr + i2, mask=mask, other=0.0)
    y8 = y6 / v7
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, denominator, divisor):
    divisor_d0 = denominator.shape[0]
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, denominator, out, out.numel(), denominator_d0, BLOCK=2048)
    return out
