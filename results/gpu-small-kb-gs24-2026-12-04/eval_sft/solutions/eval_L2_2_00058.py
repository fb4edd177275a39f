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
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_depth: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * out_depth * out_width)
    o2 = (offs // (out_depth * out_width)) % depth
    o3 = (offs // out_width) % out_depth
    o4 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(4):
        for k1 in tl.static_range(4):
            ip5 = o3 * 4 + k0
            ok6 = ((ip5 >= 0) & (ip5 < depth))
            ip7 = o4 * 4 + k1
            ok8 = ((ip7 >= 0) & (ip7 < (height * width)))
            i9 = ip7 // width
            i10 = ip7 % width
            v11 = tl.load(v0_ptr + o1 * (depth * depth * height * width) + o2 * (depth * height * width) + ip5 * (height * width) + i9 * width + i10, mask=mask & ok6 & ok8, other=0.0)
            acc = tl.maximum(acc, tl.where(ok6 & ok8, v11, float('-inf')))
    y12 = tl.where(acc11 - o4 <= 0, y12, 0.0)
    avg13 = acc / 16.0
    tl.store(out_ptr + offs, avg13, mask=mask)


def launch_triton(v0):
    batch_size, _, depth, height, width = v0.shape
    out_depth = depth - 1
    out_width = width * height - 1
    out = torch.empty((batch_size, depth, out_depth, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * out_depth * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * depth * out_width, depth, height, width, out_depth, out_width, BLOCK=512)
    return out
