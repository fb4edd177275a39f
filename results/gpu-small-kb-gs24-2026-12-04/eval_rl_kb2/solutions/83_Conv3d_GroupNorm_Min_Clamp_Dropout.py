import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, min_value, reduce_dim):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, groups=groups)
        self.norm = nn.GroupNorm(min_val, max_value)
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, groups=groups)
        self.norm = nn.GroupNorm(min_value=min_value)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.min_value, self.hardtanh_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, div_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * height * width)
    o2 = (offs // (height * width)) % depth
    o3 = (offs // width) % height
    o4 = offs % width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            for k2 in tl.static_range(kernel_size):
                ip5 = o3 * stride - padding + k0
                ok6 = ((ip5 >= 0) & (ip5 < depth))
                ip7 = o4 * stride - padding + k1
                ok8 = ((ip7 >= 0) & (ip7 < height))
                ip9 = o4 * stride - padding + k2
                ok10 = ((ip9 >= 0) & (ip9 < width))
                v11 = tl.load(v0_ptr + o1 * (depth * depth * height * width) + o2 * (depth * height * width) + ip5 * (height * width) + ip7 * width + ip9, mask=mask & ok6 & ok8 & ok10, other=0.0)
                acc += tl.where(ok6 & ok8 & ok10, v11, 0.0)
    avg12 = acc / 8.0
    tl.store(out_ptr + offs, avg12, mask=mask)


def launch_triton(v0, div_value):
    batch_size, depth, height, _, width = v0.shape
    out_depth = (depth - 2) // 2 + 1
    out_height = (height - 2) // 2 + 1
    out_width = (width - 2) // 2 + 1
    out = torch.empty((batch_size, depth, out_depth, out_height, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * depth * out_depth * out_height * out_width, depth, height, width, out_depth, out_height, out_width, BLOCK=256)
    return out
