import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, mp_kernel_size, max_pool_stride, padding, max_pool_dilation=1):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool2d(mp_kernel_size, stride, padding=padding, dilation=max_pool_dilation)

    def forward(self, x):
        v0 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_x_d2: tl.constexpr, out_x_d3: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (x_d1 * out_x_d2 * out_x_d3)
    o2 = (offs // (out_x_d2 * out_x_d3)) % x_d1
    o3 = (offs // out_x_d3) % out_x_d2
    o4 = offs % out_x_d3
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            ip5 = o3 * stride - padding + k0 * dilation
            ok6 = ((ip5 >= 0) & (ip5 < x_d2))
            ip7 = o4 * stride - padding + k1 * dilation
            ok8 = ((ip7 >= 0) & (ip7 < x_d3))
            x9 = tl.load(x_ptr + o1 * (x_d1 * x_d2 * x_d3) + o2 * (x_d2 * x_d3) + ip5 * x_d3 + ip7, mask=mask & ok6 & ok8, other=0.0)
            acc = tl.maximum(acc, tl.where(ok6 & ok8, x9, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    x_d0, x_d1, x_d2, x_d3 = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_x_d2 = (x_d2 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_x_d3 = (x_d3 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((x_d0, x_d1, out_x_d2, out_x_d3), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1 * out_x_d2 * out_x_d3, meta['BLOCK']),)
    triton_kernel[grid](x, out, x_d0 * x_d1 * out_x_d2 * out_x_d3, x_d1, x_d2, x_d3, kernel_size, stride, padding, dilation, out_x_d2, out_x_d3, BLOCK=1024)
    return out
