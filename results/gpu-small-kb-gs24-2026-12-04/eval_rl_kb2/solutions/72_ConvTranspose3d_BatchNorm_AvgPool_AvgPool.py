import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.avg_pool = nn.AvgPool3d(kernel_size=stride)
        self.conv_transpose = nn.ConvTranspose3d(kernel_size=mp_kernel_size, padding=padding2)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.avg_pool.weight, self.avg_pool.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
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
            ip5 = o3 * stride - padding + k0
            ok6 = ((ip5 >= 0) & (ip5 < depth))
            ip7 = o4 * stride - padding + k1
            ok8 = ((ip7 >= 0) & (ip7 < (height * width)))
            i9 = ip7 // width
            i10 = ip7 % width
            v11 = tl.load(v0_ptr + o1 * (depth * depth * height * width) + o2 * (depth * height * width) + ip5 * (height * width) + i9 * width + i10, mask=mask & ok6 & ok8, other=0.0)
            acc += tl.where(ok6 & ok8, v11, 0.0)
    avg12 = acc / (kernel_size * kernel_size)
    y13 = avg12 / (1.0 + tl.abs(avg12))
    tl.store(out_ptr + offs, y13, mask=mask)


def launch_triton(v0, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, _, depth, height, width = v0.shape
    kernel_size = avg_pool_kernel_size
    stride = avg_pool_stride
    padding = avg_pool_padding
    out_depth = (depth + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_width = (height * width + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, 6, out_depth, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 6 * out_depth * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 6 * out_depth * out_width, depth, height, width, kernel_size, stride, padding, out_depth, out_width, BLOCK=512)
    return out
