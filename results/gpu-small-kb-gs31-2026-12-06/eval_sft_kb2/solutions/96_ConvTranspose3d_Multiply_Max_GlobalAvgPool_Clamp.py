import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, clamp_min, clamp_max):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=False)
        self.maxpool = nn.MaxPool3d(pool_kernel_size, maxpool_stride, padding=padding)
        self.maxpool = nn.MaxPool3d(pool_kernel_size, maxpool_stride, padding=padding)
        self.maxpool = nn.MaxPool3d(pool_kernel_size, maxpool_stride, padding=padding)
        self.maxpool = nn.MaxPool2d(maxpool_kernel_size, maxpool_stride, padding, clamp_max)
        self.clamp_max = clamp_max

    def forward(self, x):
        v0 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        v2 = launch_triton_2(v0, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.padding, self.maxpool.dilation), axis=1, keepn_cols, batch_size: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, maxpool_kernel_size, maxpool_self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation), axis=1, keep = o3 * stride - padding + k0
        ok5 = ((ip = (cols // depth * out_height * out_width)
    o2 = (offs // (out_depth * out_height * out_width)) % out_depth * out_height * out_width)) % out_depth
    o4 = offs % out_width
    zero = tl.zeros_like(offs)
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip5 = o3 * stride - padding + k0 * dilation
                ok6 = ((ip5 >= 0) & (ip5 < depth))
                ip7 = o4 * stride - padding + k1 * dilation
                ok8 = ((ip7 >= 0) & (ip7 < height))
                ip9 = zero * stride - padding + k2 * dilation
                ok10 = ((ip9 >= 0) & (ip9 < width))
                x11 = tl.load(x_ptr + o1 * (in_channels * depth * height * width) + o2 * (depth * height * width) + ip5 * (height * width) + ip7 * width + ip9, mask=mask & ok6 & ok8 & ok10, other=0.0)
                acc = tl.maximum(acc, tl.where(ok6 & ok8 & ok10, x11, float('-inf')))
    m = tl.full([BLOCK], float('-inf'), tl.float32)
    sfloat('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_padding, maxpool_dilation):
    batch_size, in_channels, depth, height, width = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_depth = (depth + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * out_depth * out_height * out_width, kernel_size, stride, padding, dilation, out_depth, out_height, out_width, maxpool_stride, padding, dilation, out_depth, out_height, out_width, maxpool_stride, padding, dilation, out_depth, out_height, out_width, maxpool_stride, padding, dilation, out_depth, out_height, out_width, maxpool_padding
    dilation = maxpool_dilation
    out_depth = (depth + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_depth * out_height * out_width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * out_depth * out_height * out_width, batch_size, in_channels, depth, height, width, kernel_size, stride, padding, dilation, out_depth, out_height, out_width, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, in_channels: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (in_channels * out_depth * out_height * out_width)
    i2 = (offs // (out_depth * out_height * out_width)) % in_channels
    i3 = offs % (out_depth * out_height * out_width)
    i4 = i3 // out_depth * out_height * out_width)
    i5 = i4 // out_width
    i6 = i4 % out_width
    v7 = tl.load(v1_ptr + o1 * 28 * out_height * out_width) + i2 * (out_depth * out_height * out_width) + i5, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v6, mask=mask)


def launch_triton_2(v1):
    batch_size, in_channels, out_depth, out_height, out_width = v1.shape
    out = torch.empty((batch_size, in_channels, out_depth, out_height * out_width), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), in_channels, out_depth * out_height * out_width, BLOCK=1024)
    return out
