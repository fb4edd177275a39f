import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_ch: int, kernel_size: int, stride: int, padding: int=0, output_padding: int=0, groups: int=1, output_padding: int=0, output_padding: int=0, groups: int=1, output_padding: int=0, output_padding: int=0, groups: int=1, output_padding, groups=groups, bias=bias)
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, out_ch, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)
        self.avg_pool = nn.AvgPool1d(kernel_size2, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v1 = launch_triton(v0, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, x_d2: tl.constexpr, x_d3: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_x_d2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (3 * out_x_d2)
    o2 = (offs // out_x_d2) % x_d2
    o3 = offs % out_x_d2
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < x_d2))
        v6 = tl.load(v0_ptr + o1 * (x_d0 * x_d2) + o2 * x_d2 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(v0, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    x_d0, x_d2, x_d3 = x.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out_x_d2 = (x_d2 + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((x_d0, x_d2, out_x_d2), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1 * out_x_d2, meta['BLOCK']),)
    triton_kernel[grid](v0, out, x_d0 * x_d1 * out_x_d2, x_d2, x_d3, kernel_size, stride, padding, out_x_d2, BLOCK=1024)
    return out
