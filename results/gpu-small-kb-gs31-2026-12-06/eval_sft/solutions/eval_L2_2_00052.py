import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels=1, out_channels=2, kernel_size=1, stride=2, padding=0, bias=False):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x)
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v1 = self.conv(v0)
        return v1


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x6 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y7 = tl.rsqrt(x6)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out
