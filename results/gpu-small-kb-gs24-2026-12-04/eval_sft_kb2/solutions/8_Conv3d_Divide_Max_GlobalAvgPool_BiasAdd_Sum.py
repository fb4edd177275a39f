import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias, pool_kernel_size, pool_stride, shift_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, bias=bias)
        self.pool = nn.AvgPool3d(pool_kernel_size)
        self.dim = dim

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.divisor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, divisor_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * out_depth * out_width)
    o2 = (offs // (out_depth * out_width)) % depth
    o3 = (offs // out_width) % out_depth
    o4 = offs % out_width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip5 = o3 * stride - padding + k0
                ok6 = ((ip5 >= 0) & (ip5 < depth))
                ip7 = o4 * stride - padding + k1
                ok8 = ((ip7 >= 0) & (ip7 < height))
                ip9 = o4 * stride - padding + k2
                ok10 = ((ip9 >= 0) & (ip9 < width))
                v11 = tl.load(v0_ptr + o1 * (depth * height * width) + o2 * (height * width) + ip5 * width + ip7, mask=mask & ok6 & ok8, other=0.0)
                acc += tl.where(ok6 & ok8, v11, 0.0)
    avg12 = acc / (kernel_size * kernel_size)
    o4 = tl.load(other_ptr + offs, mask=mask, other=0.0)
    y13 = avg12 / v13
    tl.store(out_ptr + offs, y13, mask=mask)


def launch_triton(v0, offset, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_padding, max_pool_padding, max_pool_dilation)
    batch_size, _, depth, height, width = v0.shape
    kernel_size = max_pool_kernel_size
    stride = max_pool_stride
    padding = max_pool_padding
    dilation = max_pool_dilation
    out_depth = (depth + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_width = (height * width + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, 2, out_depth, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 2 * out_depth * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, shift, out, batch_size * 2 * out_depth * out_width, depth, height, width, kernel_size, stride, padding, dilation, out_depth, out_width, BLOCK=128)
    return out
