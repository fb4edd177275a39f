import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, avg_pool_kernel_size: int, stride: int, padding: int=1):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=avg_pool_kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        v0 = launch_triton(x, self.pool.kernel_size, self.pool.stride, self.pool.padding)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, channels: tl.constexpr, dim: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_dim: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * out_dim)
    o2 = (offs // out_dim) % channels
    o3 = offs % out_dim
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < dim))
        x6 = tl.load(x_ptr + o1 * (channels * dim) + o2 * dim + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, x6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(x, pool_kernel_size, pool_stride, pool_padding):
    B, channels, dim = x.shape
    kernel_size = pool_kernel_size[0]
    stride = pool_stride[0]
    padding = pool_padding[0]
    out_dim = (dim + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((B, channels, out_dim), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(B * channels * out_dim, meta['BLOCK']),)
    triton_kernel[grid](x, out, B * channels * out_dim, channels, dim, kernel_size, stride, padding, out_dim, BLOCK=1024)
    return out
