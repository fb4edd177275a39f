import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.batch_norm = nn.AvgPool3d(kernel_size=kernel_size)
        self.avg_pool = nn.AvgPool3d(kernel_size, stride2, padding=padding)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, in_channels: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * 24)
    o2 = (offs // 24) % in_channels
    o3 = offs % 12
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < 60))
        v6 = tl.load(v0_ptr + o1 * (in_channels * 60) + o2 * 60 + ip4 * 25 + ip5, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def launch_triton(v0, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, _, _, _, _ = v0.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out = torch.empty((batch_size, in_channels, 24), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * 12, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * 12, in_channels, kernel_size, stride, padding, BLOCK=256)
    return out
