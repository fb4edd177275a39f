import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, mp_stride: int=5, padding: int=0, dilation: int=1):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x):
        v0 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, channels: tl.constexpr, dim1: tl.constexpr, dim2: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_dim1: tl.constexpr, out_dim2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * out_dim1 * out_dim2)
    o2 = (offs // (out_dim1 * out_dim2)) % channels
    o3 = (offs // out_dim2) % out_dim1
    o4 = offs % out_dim2
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip5 = o3 * stride - padding + k0 * dilation
                ok6 = ((ip5 >= 0) & (ip5 < dim1))
                ip7 = o4 * stride - padding + k1 * dilation
                ok8 = ((ip7 >= 0) & (ip7 < dim2))
                ip9 = o4 * stride - padding + k2 * dilation
                ok10 = ((ip9 >= 0) & (ip9 < dim2))
                x11 = tl.load(x_ptr + o1 * (channels * dim1 * dim2) + o2 * (dim1 * dim2) + ip5 * dim2 + ip7, mask=mask & ok6 & ok8, other=0.0)
                acc = tl.maximum(acc, tl.where(ok6 & ok8, x9, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, channels, dim1, dim2 = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_dim1 = (dim1 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_dim2 = (dim2 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, channels, out_dim1, out_dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * out_dim1 * out_dim2, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * channels * out_dim1 * out_dim2, channels, dim1, dim2, kernel_size, stride, padding, dilation, out_dim1, out_dim2, BLOCK=256)
    return out
