import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, avgpool_kernel_size: int, stride: int, pool_padding: int=1):
        super(ModelNew, self).__init__()
        self.avgpool = nn.AvgPool3d(kernel_size=avgpool_kernel_size, stride=stride, padding=pool_padding)

    def forward(self, x):
        v0 = launch_triton(x, self.avgpool.kernel_size, self.avgpool.stride, self.avgpool.padding)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, x_d0: tl.constexpr, x_d1: tl.constexpr, x_d3: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_x_d0: tl.constexpr, out_x_d3: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (x_d1 * out_x_d0 * out_x_d3 * out_x_d0)
    o2 = (offs // (out_x_d0 * out_x_d3 * out_x_d0)) % x_d1
    o3 = offs % out_x_d0
    zero = tl.zeros_like(offs)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip4 = zero * stride - padding + k0
                ok5 = ((ip4 >= 0) & (ip4 < x_d0))
                ip6 = zero * stride - padding + k1
                ok7 = ((ip6 >= 0) & (ip6 < x_d0))
                ip8 = zero * stride - padding + k2
                ok9 = ((ip8 >= 0) & (ip8 < x_d0))
                x10 = tl.load(x_ptr + o1 * (x_d1 * x_d0 * x_d3) + o2 * (x_d1 * x_d0 * x_d3) + o2 * (x_d1 * x_d0 * x_d3) + o2 * (x_d1 * x_d0 * x_d3 * x_d3 * x_d1) + ip6 * (x_d3 * x_d0) + ip8 * x_d0 + ip8, mask=mask & ok5 & ok7 & ok9, other=0.0)
                acc += tl.where(ok5 & ok7 & ok9, x10, 0.0)
    avg11 = acc / (kernel_size * kernel_size * kernel_size)
    tl.store(out_ptr + offs, avg11, mask=mask)


def launch_triton(x, avgpool_kernel_size, avgpool_stride, avgpool_padding):
    x_d0, x_d1, _, x_d3, _ = x.shape
    kernel_size = avgpool_kernel_size
    stride = avgpool_stride
    padding = avgpool_padding
    out_x_d0 = (x_d0 + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_x_d3 = (x_d3 + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((x_d0, x_d1, out_x_d0, 1), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1 * out_x_d0 * out_x_d3 * out_x_d0, meta['BLOCK']),)
    triton_kernel[grid](x, out, x_d0 * x_d1 * out_x_d0 * out_x_d3 * out_x_d0, x_d0, x_d1, x_d3, kernel_size, stride, padding, out_x_d0, out_x_d3, BLOCK=1024)
    return out
