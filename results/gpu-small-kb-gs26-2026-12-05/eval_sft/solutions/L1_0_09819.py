import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, maxpool_stride: int):
        super(ModelNew, self).__init__()
        self.pool = nn.AvgPool1d(kernel_size, pool_stride)

    def forward(self, x):
        v0 = launch_triton(x, self.pool.kernel_size, self.pool.stride, self.pool.padding)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, features: tl.constexpr, dim2: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_dim2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (features * out_dim2)
    o2 = (offs // out_dim2) % features
    o3 = offs % out_dim2
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < dim2))
        x6 = tl.load(x_ptr + o1 * (features * dim2) + o2 * dim2 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, x6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(x, pool_kernel_size, pool_stride, pool_padding):
    B, features, dim2 = x.shape
    kernel_size = pool_kernel_size[0]
    stride = pool_stride[0]
    padding = pool_padding[0]
    out_dim2 = (dim2 + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((B, features, out_dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(B * features * out_dim2, meta['BLOCK']),)
    triton_kernel[grid](x, out, B * features * out_dim2, features, dim2, kernel_size, stride, padding, out_dim2, BLOCK=1024)
    return out
