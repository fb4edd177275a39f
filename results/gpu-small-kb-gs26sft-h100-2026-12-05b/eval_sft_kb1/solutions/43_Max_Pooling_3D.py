import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int=2, padding: int=0, dilation: int=1, groups: int=4):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups)
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size2)

    def forward(self, x):
        v0 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * out_depth * out_height * out_width)
    o2 = (offs // (out_depth * out_height * out_width)) % channels
    o3 = (offs // (out_height * out_width)) % out_depth
    o4 = (offs // out_width) % out_height
    o5 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip6 = o3 * stride - padding + k0 * dilation
                ok7 = ((ip6 >= 0) & (ip6 < depth))
                ip8 = o4 * stride - padding + k1 * dilation
                ok9 = ((ip8 >= 0) & (ip8 < height))
                ip10 = o5 * stride - padding + k2 * dilation
                ok11 = ((ip10 >= 0) & (ip10 < width))
                x12 = tl.load(x_ptr + o1 * (channels * depth * height * width) + o2 * (depth * height * width) + ip6 * (height * width) + ip8 * width + ip10, mask=mask & ok7 & ok9 & ok11, other=0.0)
                acc = tl.maximum(acc, tl.where(ok7 & ok9 & ok11, x12, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, channels, depth, height, width = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_depth = (depth + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * channels * out_depth * out_height * out_width, channels, depth, height, width, kernel_size, stride, padding, dilation, out_depth, out_height, out_width, BLOCK=1024)
    return out
