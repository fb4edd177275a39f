import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_channels, kernel_size, stride, padding):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_ch, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, channels: tl.constexpr, out_channels: tl.constexpr, out_channels: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * out_channels * out_channels * out_channels)
    o2 = (offs // (out_channels * out_channels * out_channels)) % channels
    o3 = (offs // out_channels) % out_channels
    o4 = offs % out_channels
    zero = tl.zeros_like(offs)
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(4):
        for k1 in tl.static_range(4):
            ip5 = zero * 4 + k0
            ok6 = ((ip5 >= 0) & (ip5 < channels))
            ip7 = o3 * 4 + k1
            ok8 = ((ip7 >= 0) & (ip7 < channels))
            i9 = ip7 // 4
            i10 = ip7 % 4
            v11 = tl.load(v0_ptr + o1 * (channels * 4 * 4 * 4) + o2 * (3 * 4 * 4) + ip5 * (3 * 4) + i9 * 4 + i10, mask=mask & ok6 & ok8, other=0.0)
            acc = tl.maximum(acc, tl.where(ok6 & ok8, v11, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0):
    batch_size, channels, _, _, _ = v0.shape
    out_channels = (channels - 4) // 4 + 1
    out = torch.empty((batch_size, channels, out_channels, out_channels), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * out_channels * out_channels, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * channels * out_channels * out_channels, channels, out_channels, BLOCK=256)
    return out
