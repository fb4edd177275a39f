import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int=0):
        super(ModelNew, self).__init__()
        self.avg_pool = nn.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        v0 = launch_triton(x, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * out_depth * out_height * out_width)
    o2 = (offs // (out_depth * out_height * out_width)) % channels
    o3 = (offs // (out_height * out_width)) % out_depth
    o4 = offs % out_height
    zero = tl.zeros_like(offs)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip5 = o3 * stride - padding + k0
                ok6 = ((ip5 >= 0) & (ip5 < depth))
                ip7 = o4 * stride - padding + k1
                ok8 = ((ip7 >= 0) & (ip7 < height))
                ip9 = zero * stride - padding + k2
                ok10 = ((ip9 >= 0) & (ip9 < width))
                x11 = tl.load(x_ptr + o1 * (channels * depth * height * width) + o2 * (depth * height * width) + ip5 * (height * width) + ip7 * width + ip9, mask=mask & ok6 & ok8 & ok10, other=0.0)
                acc += tl.where(ok6 & ok8 & ok10, x11, 0.0)
    avg12 = acc / (kernel_size * kernel_size * kernel_size)
    tl.store(out_ptr + offs, avg12, mask=mask)


def launch_triton(x, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, channels, depth, height, width = x.shape
    kernel_size = avg_pool_kernel_size
    stride = avg_pool_stride
    padding = avg_pool_padding
    out_depth = (depth + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_height = (height + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * channels * out_depth * out_height * out_width, channels, depth, height, width, kernel_size, stride, padding, out_depth, out_height, out_width, BLOCK=1024)
    return out
