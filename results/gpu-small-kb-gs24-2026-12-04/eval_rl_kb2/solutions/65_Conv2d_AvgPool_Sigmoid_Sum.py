import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.avg_pool = nn.AvgPool2d(pool_kernel_size)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_width)
    o2 = (offs // out_width) % in_channels
    o3 = offs % out_width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < (height * width)))
        i6 = ip4 // width
        i7 = ip4 % width
        v8 = tl.load(v0_ptr + o1 * (in_channels * height * width) + o2 * (height * width) + i6 * width + i7, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v8, 0.0)
    avg9 = acc / kernel_size
    y10 = tl.sigmoid(avg9)
    tl.store(out_ptr + offs, y10, mask=mask)


def launch_triton(v0, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, in_channels, height, width = v0.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out_width = (height * width + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * out_height * out_width, in_channels, height, width, kernel_size, stride, padding, out_width, BLOCK=256)
    return out
