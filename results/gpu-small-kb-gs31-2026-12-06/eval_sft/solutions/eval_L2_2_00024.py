import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int=1, out_channels: int=14, kernel_size: int=1, bias: bool=False):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=kernel_size, bias=bias)
        self.hardsigmoid = nn.Hardsigmoid()

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v1 = launch_triton(v0)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = tl.minimum(tl.maximum(v5 + 3.0, 0.0), 6.0) / 6.0
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), BLOCK=1024)
    return out
