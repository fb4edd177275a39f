import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, mp_stride: int, mp_padding: int, mp_dilation: int=0):
        super(ModelNew, self).__init__()
        self.max_pool = nn.MaxPool3d(kernel_size=kernel_size, mp_stride, padding=mp_padding, dilation=mp_dilation)

    def forward(self, x):
        v0 = launch_triton(x, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.dilation)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_depth * out_height * out_width)
    o2 = (offs // (out_depth * out_height * out_width)) % in_channels
    o3 = (offs // (out_height * out_width)) % out_depth
    o4 = offs % out_height
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
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_dilation):
    batch_size, in_channels, depth, height, width = x.shape
    kernel_size = max_pool_kernel_size
    stride = max_pool_stride
    padding = max_pool_padding
    dilation = max_pool_dilation
    out_depth = (depth + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * in_channels * out_depth * out_height * out_width, in_channels, depth, height, width, kernel_size, stride, padding, dilation, out_depth, out_height, out_width, BLOCK=1024)
    return out
