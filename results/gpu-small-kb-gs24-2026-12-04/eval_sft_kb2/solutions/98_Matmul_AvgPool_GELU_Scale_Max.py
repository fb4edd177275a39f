import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, pool_kernel_size, scale_shape):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.pool = nn.AvgPool1d(kernel_size=pool_kernel_size)
        self.scale = nn.Parameter(torch.randn(scale_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.matmul(x)
        v2 = launch_triton(v0, self.scale, self.pool.kernel_size, self.pool.stride, self.pool.padding)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (n * 3)
    o2 = (offs // 3) % 3
    o3 = offs % 3
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < 3))
        v6 = tl.load(v0_ptr + o1 * (M_size * 3) + o2 * 3 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v6, 0.0)
    avg7 = acc / kernel_size
    o8 = tl.load(scale_ptr + offs, mask=mask, other=0.0)
    y9 = avg7 * s8
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, scale, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, M_size, _ = v0.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out = torch.empty((batch_size, M_size, 3), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * M_size * 3, meta['BLOCK']),)
    triton_kernel[grid](v0, scale, out, batch_size * M_size * 3, kernel_size, stride, padding, out_M_size, BLOCK=128)
    return out
