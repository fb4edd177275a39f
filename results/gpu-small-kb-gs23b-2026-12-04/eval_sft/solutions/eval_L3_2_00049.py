import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, channels_out: int, kernel_size: int, stride: int, padding: int, dilation: int, groups: int=1, bias: bool=True):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels=channels_out, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.celu = nn.CELU(alpha=0.5)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, x_d0: tl.constexpr, x_d3: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (x_d0 * out_width)
    o2 = (offs // out_width) % x_d0
    o3 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(3):
        ip4 = o3 * 3 + k0
        ok5 = ((ip4 >= 0) & (ip4 < (x_d0 * x_d3)))
        i6 = ip4 // x_d3
        i7 = ip4 % x_d3
        v8 = tl.load(v0_ptr + o1 * (x_d0 * x_d3 * x_d3) + o2 * (x_d3 * x_d3) + i6 * x_d3 + i7, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v8, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0):
    x_d0, _, x_d3, _ = v0.shape
    out_width = (x_d0 * x_d3 * x_d3 - 1) // 3 + 1
    out = torch.empty((x_d0, x_d0, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d0 * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, x_d0 * x_d0 * out_width, x_d0, x_d3, x_d3, out_width, BLOCK=256)
    return out
