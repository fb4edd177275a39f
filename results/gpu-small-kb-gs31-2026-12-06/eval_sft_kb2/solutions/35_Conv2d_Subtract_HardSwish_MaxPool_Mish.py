import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, subtract_value):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.pool = nn.MaxPool2d(pool_kernel_size)
        self.pool = nn.MaxPool2d(pool_kernel_size)
        self.pool = nn.MaxPool2d(pool_kernel_size)
        self.negative_slope = negative_slope

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v3 = launch_triton(v0, self.pool.kernel_size, self.pool.stride, self.pool.padding, self.negative_slope)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, in_channels: tl.constexpr, negative_slope: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_width: tl.constexpr, negative_slope: tl.constexpr, negative_slope: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (3 * out_width)
    o2 = (offs // out_width) % 3
    o3 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0 * dilation
        ok5 = ((ip4 >= 0) & (ip4 < (out_width)))
        i6 = ip4 // width
        i7 = ip4 % width
        v8 = tl.load(v0_ptr + o1 * (3 * width) + o2 * (dim1 * width) + i6 * width + i7, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v8, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0, pool_kernel_size, pool_stride, pool_padding, pool_dilation, negative_slope):
    batch_size, _, _, _ = v0.shape
    kernel_size = pool_kernel_size
    stride = pool_stride
    padding = pool_padding
    dilation = pool_dilation
    out_width = (height * width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, 3, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 3 * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 3 * out_width, in_channels, out_width, negative_slope, BLOCK=1024)
    return out
