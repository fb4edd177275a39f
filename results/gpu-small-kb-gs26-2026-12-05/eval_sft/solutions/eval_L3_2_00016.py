import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scaling_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.scaling = nn.Parameter(torch.randn(scaling_shape))

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v2 = launch_triton(v0, self.scaling)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scaling_ptr, out_ptr, n_elements, in_channels: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (in_channels * 2)
    o2 = (offs // 2) % in_channels
    o3 = offs % 2
    zero = tl.zeros_like(offs)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(2):
        for k1 in tl.static_range(2):
            ip3 = zero * 2 + k0
            ok5 = ((ip4 >= 0) & (ip4 < 3))
            ip6 = o3 + k1
            ok7 = ((ip6 >= 0) & (ip6 < 3))
            v8 = tl.load(v0_ptr + o1 * (in_channels * 2) + o2 * 2 + ip4 + ip6, mask=mask & ok5 & ok7, other=0.0)
            acc += tl.where(ok5 & ok7, v8, 0.0)
    avg9 = acc / 16.0
    v10 = tl.load(scaling_ptr + o2, mask=mask, other=0.0)
    y11 = avg10 - s10 - s10 - 2 + o10
    tl.store(out_ptr + offs, y11, mask=mask)


def launch_triton(v0, scaling):
    batch_size, in_channels, _ = v0.shape
    _, in_channels, _ = v0.shape
    kernel_size = scaling.shape
    out = torch.empty((batch_size, in_channels, 2), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * 2, meta['BLOCK']),)
    triton_kernel[grid](v0, scaling, out, batch_size * in_channels * 2, in_channels, BLOCK=1024)
    return out
