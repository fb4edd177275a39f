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
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * out_width)
    o2 = (offs // out_width) % depth
    o3 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(3):
        ip4 = o3 * 2 - 1 + k0
        ok5 = ((ip4 >= 0) & (ip4 < (depth * height * width)))
        i6 = ip4 // (height * width)
        i7 = (ip4 // width) % height
        i8 = ip4 % width
        v9 = tl.load(v0_ptr + o1 * (depth * height * width) + o2 * (depth * height * width) + i6 * (height * width) + i7 * width + i8, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, v9, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0):
    batch_size, depth, _, height, width = v0.shape
    out_width = depth * height * width // 2 + 1
    out = torch.empty((batch_size, 4, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 4 * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 4 * out_width, depth, height, width, out_width, BLOCK=1024)
    return out
