import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scaling_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.scaling = nn.Parameter(torch.randn(scaling_shape))

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v2 = launch_triton(v0, self.scaling)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scaling_ptr, out_ptr, n_elements, in_channels: tl.constexpr, dim1: tl.constexpr, width: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_width)
    o2 = (offs // out_width) % in_channels
    o3 = offs % out_width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(2):
        ip4 = o3 * 2 + k0
        ok5 = ((ip4 >= 0) & (ip4 < (dim1 * width)))
        v6 = tl.load(v0_ptr + o1 * (in_channels * dim1 * width) + o2 * (dim1 * width) + ip4 * width + ip5, mask=mask & ok5, other=0.0)
        s7 = tl.load(scaling_ptr + o1 * (in_channels * dim1 * width) + o2 * (dim1 * width) + ip5 * width + ip7, mask=mask & ok6, other=0.0)
        y8 = v7 * s8
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, scaling):
    batch_size, in_channels, dim1, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, scaling, out, out.numel(), in_channels, dim1, width, BLOCK=256)
    return out
