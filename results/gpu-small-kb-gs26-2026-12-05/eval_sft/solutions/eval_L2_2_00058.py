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
        v3 = launch_triton(v0)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * out_height * out_width)
    o2 = (offs // (out_height * out_width)) % 2
    o3 = (offs // out_width) % out_height
    o4 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(4):
        for k1 in tl.static_range(4):
            ip5 = o3 * 2 - 1 + k0
            ok6 = ((ip5 >= 0) & (ip5 < height))
            ip7 = o4 * 2 - 1 + k1
            ok8 = ((ip7 >= 0) & (ip7 < width))
            v9 = tl.load(v0_ptr + o1 * (6 * depth * height * width) + o2 * (depth * height * width) + ip5 * width + ip7, mask=mask & ok6 & ok8, other=0.0)
            y10 = tl.where(x6 * 1.0 > 20.0, v8, float('-inf')))
    y12 = tl.where(x6 * 1.0 > 20.0, acc, tl.log(1.0 + tl.exp(acc * 1.0)) / 1.0)
    tl.store(out_ptr + offs, y12, mask=mask)


def launch_triton(v0):
    batch_size, depth, _, height, width = v0.shape
    out_height = (height - 2) // 2 + 1
    out_width = (width - 2) // 2 + 1
    out = torch.empty((batch_size, depth, 1, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * depth * out_height * out_width, depth, height, width, out_height, out_width, BLOCK=1024)
    return out
