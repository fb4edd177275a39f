import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, max_pool_kernel_size=2, pool_kernel_size):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.max_pool = nn.MaxPool2d(max_pool_kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.div_value = div_value

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bias, self.bias, self.div_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, in_channels: tl.constexpr, scaling_factor: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * out_width)
    o2 = (offs // out_width) % 3
    o3 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0 * dilation
        ok5 = ((ip4 >= 0) & (ip4 < (3 * in_channels)))
        i6 = ip4 // in_channels + i7, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v6, float('-inf')))
    m9 = tl.load(bias_ptr + i7, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v8, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0, bias):
    batch_size, in_channels, _, _ = v0.shape
    bias_d0, _, _ = bias.shape
    out = torch.empty((batch_size, in_channels, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, batch_size * in_channels * out_width, in_channels, in_channels, out_width, div_value, BLOCK=1024)
    return out
