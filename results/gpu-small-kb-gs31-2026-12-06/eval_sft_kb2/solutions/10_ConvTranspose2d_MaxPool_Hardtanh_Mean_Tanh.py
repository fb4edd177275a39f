import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, hardtanh_min, hardtanh_max):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=False)
        self.maxpool = nn.MaxPool2d(maxpool_kernel_size, maxpool_stride, padding=padding)
        self.maxpool = nn.MaxPool2d(maxpool_kernel_size, maxpool_stride, padding=padding)
        self.maxpool = nn.MaxPool2d(maxpool_kernel_size, maxpool_stride, padding, 2.0)

    def forward(self, x):
        v0 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        v2 = launch_triton_2(v0, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.padding, self.maxpool.dilation)
        v3 = launch_triton_2(v1, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.padding, self.maxpool.dilation)
        return v3


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_height * out_width)
    o2 = (offs // (out_height * out_width)) % in_channels
    o3 = (offs // out_width) % out_height
    o4 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            ip5 = o3 * stride - padding + k0 * dilation
            ok6 = ((ip5 >= 0) & (ip5 < height))
            ip7 = o4 * stride - padding + k1 * dilation
            ok8 = ((ip7 >= 0) & (ip7 < width))
            x9 = tl.load(x_ptr + o1 * (in_channels * height * width) + o2 * (height * width) + ip5 * width + ip7, mask=mask & ok6 & ok8, other=0.0)
            acc = tl.maximum(acc, tl.where(ok6 & ok8, x9, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, in_channels, height, width = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * in_channels * out_height * out_width, in_channels, height, width, kernel_size, stride, padding, dilation, out_height, out_width, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v0_ptr, out_ptr, n_elements, in_channels: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (in_channels * out_height * out_width)
    i2 = (offs // (out_height * out_width)) % in_channels
    i3 = (offs // out_width) % out_height
    i4 = offs % out_width
    v5 = tl.load(v0_ptr + i1 * (in_channels * out_height * out_width) + i2 * (out_height * out_width) + i4, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v5, mask=mask)


def launch_triton_2(v0):
    batch_size, in_channels, out_height, out_width = v0.shape
    out = torch.empty((batch_size, in_channels, out_height, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v0, out, out.numel(), in_channels, out_height, out_width, BLOCK=1024)
    return out
