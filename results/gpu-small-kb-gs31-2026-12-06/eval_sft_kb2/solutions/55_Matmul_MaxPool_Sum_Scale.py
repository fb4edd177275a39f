import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, dim, dim, scale_factor):
        super(ModelNew, self).__init__()
        self.max_pool = nn.MaxPool1d(kernel_size)
        self.max_pool = nn.MaxPool1d(kernel_size)
        self.max_pool = nn.MaxPool1d(kernel_size)
        self.max_pool = nn.MaxPool1d(kernel_size)
        self.max_pool = nn.MaxPool1d(max_pool_kernel_size, padding2)

    def forward(self, x):
        v1 = launch_triton(x, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.dilation)
        v2 = launch_triton_2(v1)
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.4(v2)
        return v3


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, channels: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * 2)
    o2 = (offs // 2) % channels
    o3 = offs % 2
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0 * dilation
        ok5 = ((ip4 >= 0) & (ip4 < 6))
        v6 = tl.load(v0_ptr + o1 * (channels * 30) + o2 * 60 + ip4, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v6, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_padding, max_pool_dilation):
    batch_size, channels, _ = v0.shape
    kernel_size = max_pool_kernel_size
    stride = max_pool_stride
    padding = max_pool_padding
    dilation = max_pool_dilation
    out = torch.empty((batch_size, channels, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * 2, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * channels * 2, channels, kernel_size, stride, padding, dilation, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, channels: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * 2)
    i2 = (offs // 2) % channels
    i3 = offs % 2
    v4 = tl.load(v1_ptr + i1 * (channels * 2) + i2 * 2 + i3, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v4, mask=mask)


def launch_triton_2(v1, max_pool_stride, max_pool_stride, max_pool_padding, max_pool_dilation):
    batch_size, channels, _ = v2.shape
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), channels, BLOCK=1024)
    return out
