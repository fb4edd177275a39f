import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size, pool_stride):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.pool = nn.MaxPool2d(pool_kernel_size, stride=pool_stride)
        self.pool = nn.MaxPool2d(pool_kernel_size, padding=pool_padding)
        self.subtract_value = subtract_value

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.subtract_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, batch_size: tl.constexpr, height: tl.constexpr, width: tl.constexpr, subtract_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (batch_size * height * width)
    o2 = (offs // (height * width)) % batch_size
    o3 = (offs // width) % height
    o4 = offs % width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            ip5 = o3 * stride - padding + k0 * dilation
            ok6 = ((ip5 >= 0) & (ip5 < height))
            ip7 = o4 * stride - padding + k1 * dilation
            ok8 = ((ip7 >= 0) & (ip7 < width))
            v9 = tl.load(v0_ptr + o1 * (batch_size * height * width) + o2 * (height * width) + ip5 * width + ip7, mask=mask & ok6 & ok8, other=0.0)
            acc = tl.maximum(acc, tl.where(ok6 & ok8, v9, float('-inf')))
    y10 = acc * (1.0 - 2.0 / (tl.exp(2.0 * tl.where(avg10 > 20.0, avg10, tl.log(1.0 + tl.exp(acc)))) + 1.0))
    tl.store(out_ptr + offs, y10, mask=mask)


def launch_triton(v0, pool_kernel_size, pool_stride, pool_padding, pool_value):
    batch_size, _, height, _, width = v0.shape
    kernel_size = pool_kernel_size
    stride = pool_stride
    padding = pool_padding
    dilation = pool_dilation
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, batch_size, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * batch_size * out_height * out_width, batch_size, height, width, kernel_size, stride, padding, dilation, out_height, out_width, subtract_value, BLOCK=128)
    return out
