import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, avg_pool_kernel_size: int, pool_stride: int):
        super(ModelNew, self).__init__()
        self.avgpool = nn.AvgPool1d(avg_pool_kernel_size, stride=pool_stride, padding)

    def forward(self, x):
        v0 = launch_triton(x, self.avgpool.kernel_size, self.avgpool.stride, self.avgpool.padding)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, features: tl.constexpr, dim: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_dim: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (features * out_dim)
    o2 = (offs // out_dim) % features
    o3 = offs % out_dim
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < dim))
        x6 = tl.load(x_ptr + o1 * (features * dim) + o2 * dim + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, x6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(x, avgpool_kernel_size, avgpool_stride, avgpool_padding):
    B, features, dim = x.shape
    kernel_size = avgpool_kernel_size[0]
    stride = avgpool_stride[0]
    padding = avgpool_padding[0]
    out_dim = (dim + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((B, features, out_dim), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(B * features * out_dim, meta['BLOCK']),)
    triton_kernel[grid](x, out, B * features * out_dim, features, dim, kernel_size, stride, padding, out_dim, BLOCK=1024)
    return out
