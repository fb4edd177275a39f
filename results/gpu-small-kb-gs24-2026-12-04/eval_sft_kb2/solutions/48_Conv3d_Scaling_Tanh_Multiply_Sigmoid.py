import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scaling_factor, scaling_factor=0.25, scaling_shape=(60, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, bias=False)
        self.bias_factor = nn.Parameter(torch.randn(bias_shape))
        self.scale_factor = scale_factor

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bias_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y7 = v6 * scale_factor
    y8 = tl.where(y7 > 0.0, y7, 1.0 * (tl.exp(y7 / 1.0) - 1.0))
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, scale_factor):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, scale, out, out.numel(), scale_factor, BLOCK=2048)
    return out
