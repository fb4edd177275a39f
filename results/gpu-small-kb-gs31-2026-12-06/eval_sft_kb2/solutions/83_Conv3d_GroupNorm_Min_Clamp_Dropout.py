import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, weight_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, bias=True)
        self.min_value = min_value
        self.min_value = min_value

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v3 = launch_triton(v0, self.min_value)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, min_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = tl.minimum(tl.maximum(v4, min_value), max_value)
    y6 = tl.minimum(tl.maximum(y5, min_value), max_value)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, min_value, max_value):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), min_value, BLOCK=1024)
    return out
