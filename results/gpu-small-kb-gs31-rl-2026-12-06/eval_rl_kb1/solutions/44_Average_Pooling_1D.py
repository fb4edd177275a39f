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
def triton_kernel(x_ptr, out_ptr, n_elements, kernel_size: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 6
    o2 = (offs // 6) % 9
    o3 = offs % 6
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < 6))
        v6 = tl.load(v0_ptr + o1 * 80 + o2 * 6 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(x, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, _, _ = v0.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out = torch.empty((batch_size, 6, 8), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 6 * 6, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * 6 * 6, kernel_size, stride, padding, out_N_size, BLOCK=1024)
    return out
