import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_dim: int, out_features: int, stride: int=1, padding: int=0):
        super(ModelNew, self).__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        v0 = launch_triton(x, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, kernel_size: tl.constexpr, length: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_length: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (features * out_length)
    o2 = (offs // out_length) % M_size
    o3 = offs % out_length
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < length))
        x6 = tl.load(x_ptr + o1 * (dim1 * length) + o2 * length + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, x6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(x, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, dim1, length = x.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out_length = (length + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, dim1, out_length), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * dim1 * out_length, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * dim1 * out_length, dim1, length, kernel_size, stride, padding, out_length, BLOCK=1024)
    return out
