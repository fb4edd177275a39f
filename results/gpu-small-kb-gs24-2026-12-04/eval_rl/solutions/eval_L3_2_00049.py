import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, channels_out: int, kernel_size: int, stride: int, padding: int, dilation: int=0, groups: int=0, bias: bool=True, alpha: float=0.5):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels=channels_out, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.max_pool = nn.MaxPool1d(kernel_size2, padding=padding)
        self.alpha = alpha

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v2 = launch_triton(v0, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.dilation)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (2 * 3)
    o2 = (offs // 3) % 3
    o3 = offs % 3
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0 * dilation
        ok5 = ((ip4 >= 0) & (ip4 < 3))
        v6 = tl.load(v0_ptr + o1 * (2 * 3) + o2 * 3 + ip4, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v6, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_dilation):
    x_d0, _, _, _ = v0.shape
    kernel_size = max_pool_kernel_size
    stride = max_pool_stride
    padding = max_pool_padding
    dilation = max_pool_dilation
    out = torch.empty((x_d0, 3, 3), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * 3 * 3, meta['BLOCK']),)
    triton_kernel[grid](v0, out, x_d0 * 3 * 3, kernel_size, stride, padding, dilation, BLOCK=128)
    return out
