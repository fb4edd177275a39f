import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divisor=0.5):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.divisor = divisor

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.divisor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, divisor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = v5 / divisor
    y7 = y6 / divisor
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, divisor):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), divisor, BLOCK=1024)
    return out
