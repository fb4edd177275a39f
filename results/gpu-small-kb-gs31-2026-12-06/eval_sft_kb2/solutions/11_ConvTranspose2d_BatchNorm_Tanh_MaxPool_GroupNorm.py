import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, groups, norm = nn.BatchNorm2d(out_channels)False, num_channels: int=2, num_groups=num_groups, num_channels=out_channels)
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.max_pool = nn.MaxPool2d(out_channels)
        self.max_pool = nn.MaxPool2d(kernel_size, stride, padding=pool_padding)
        self.max_pool = nn.MaxPool2d(kernel_size, stride, padding=pool_padding)
        self.max_pool = nn.MaxPool2d(kernel_size, stride, padding=pool_padding)
        self.max_pool = nn.MaxPool2d(kernel_size, self.max_pool.stride, self.max_pool.dilation)
        self.max_pool = nn.MaxPool2d(kernel_size, max_pool_stride, padding=pool_padding)

    def forward(self, x):
        v0 = launch_triton(x, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.dilation)
        v2 = launch_triton_2(v0, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.padding, self.max_pool.dilation)
        v4 = launch_triton_3(v1, self.max_pool.padding, self.max_pool.padding, self.max_pool.padding, self.max_pool.dilation)
        return v4


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, in_channels: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_height: tl.constexpr, out_dim2: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_height: tl.constexpr, out_dim2: tl.constexpr, max_pool.dilation)
    o1 = offs // (in_channels * out_height * out_dim2)
    o2 = (offs // (out_height * out_dim2)) % in_channels
    o3 = offs % out_dim2
    zero = tl.zeros_like(offs)
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            ip4 = o3 * stride - padding + k0 * dilation
            ok5 = ((ip4 >= 0) & (ip4 < height))
            ip6 = o3 * stride - padding + k1 * dilation
            ok7 = ((ip6 >= 0) & (ip6 < dim2))
            x8 = tl.load(x_ptr + o1 * (in_channels * height * dim2) + o2 * (height * dim2) + ip4 * dim2 + ip6, mask=mask & ok5 & ok7, other=0.0)
            acc = tl.maximum(acc, tl.where(ok5 & ok7, x8, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, max_pool_kernel_size, max_pool_stride, max_pool_stride, max_pool_padding, max_pool_dilation):
    batch_size, in_channels, height, dim2 = x.shape
    kernel_size = max_pool_kernel_size
    stride = max_pool_stride
    padding = max_pool_padding
    dilation = max_pool_dilation
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_dim2 = (dim2 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_height, out_dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_height * out_dim2, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * in_channels * out_height * out_dim2, in_channels, height, dim2, kernel_size, stride, padding, dilation, out_height, out_dim2, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v0_ptr, out_ptr, n_elements, in_channels: tl.constexpr, out_height: tl.constexpr, out_dim2: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_height * out_dim2)
    o2 = (offs // (out_height * out_dim2)) % in_channels
    o3 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0 * dilation
        ok5 = ((ip4 >= 0) & (ip4 < (out_height * out_dim2)))
        i6 = ip4 // out_dim2
        i7 = ip4 % out_dim2
        v8 = tl.load(v0_ptr + o1 * (in_channels * out_height * out_dim2) + o2 * (out_height * out_dim2) + i7, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v8, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton_2(v0, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_dilation):
    batch_size, in_channels, out_height, out_dim2 = v0.shape
    kernel_size = max_pool_kernel_size
    stride = max_pool_stride
    padding = max_pool_padding
    dilation = max_pool_dilation
    out_height_2 = (out_dim2 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_height, out_dim2), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_height * out_dim2, meta['BLOCK']),)
    triton_2_kernel[grid](v0, out, batch_size * in_channels * out_height * out_dim2, in_channels, out_height, out_dim2, BLOCK=1024)
    return out


@triton.jit
def triton_3_kernel(v1_ptr, out_ptr, n_elements, in_channels: tl.constexpr, out_height: tl.constexpr, out_dim2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_height * out_dim2)
    o2 = (offs // out_dim2) % out_height_2
    o3 = offs % out_dim2_2
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * 3 + k0
        ok5 = ((ip4 >= 0) & (ip4 < (out_height * out_dim2)))
        i6 = ip4 // out_dim2
        i7 = ip4 % out_dim2
        v8 = tl.load(v1_ptr + o1 * (in_channels * out_height * out_dim2) + o2 * (out_height * out_dim2) + i7, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v8, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton_2(v1, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_dilation):
    batch_size, in_channels, out_height, out_dim2 = v1.shape
    kernel_size = max_pool_kernel_size
    out = torch.empty((batch_size, in_channels, out_height, out_dim2), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_height * out_dim2, meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, batch_size * in_channels * out_height * out_dim2, in_channels, out_height, out_dim2, BLOCK=1024)
    return out
