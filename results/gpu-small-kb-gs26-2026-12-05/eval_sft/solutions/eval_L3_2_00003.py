import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_channels, kernel_size, padding):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv2d(in_ch, out_channels, kernel_size=kernel_size, padding=padding, bias=False)

    def forward(self, x, other):
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v2 = launch_triton(v0, other)
        return v2


@triton.jit
def triton_kernel(v0_ptr, other_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = tl.sigmoid(v4)
    o6 = tl.load(other_ptr + offs, mask=mask, other=0.0)
    y7 = tl.sigmoid(y6)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, other):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, other, out, out.numel(), BLOCK=1024)
    return out
