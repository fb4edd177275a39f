import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, output_channels, kernel_size, stride=1, padding=1, dilation=0, groups=0, bias=True, scale_shape=(6, 1, 1, 3, 16, 1, 1, 3, 12)):
        super().__init__()
        self.conv1 = nn.Conv3d(v0)
        self.conv1 = nn.Conv3d(v0)
        v2 = launch_triton(x, self.scale)
        return v2


@triton.jit
def triton_kernel(x_ptr, scale_ptr, out_ptr, n_elements, channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * depth * height * width)
    i2 = (offs // (depth * height * width)) % channels
    i3 = (offs // (height * width)) % depth
    i4 = (offs // (height * width)) % depth
    i4 = (offs // (height * width)) % depth
    i4 = (offs // (height * width)) % width
    i6 = i4 % width
    x7 * width + i4, mask=mask, other=0.0)
    s7 = tl.load(scale_ptr + (i5 - b7) * (channels * depth * height * width) + i2 * (depth * height * width) + i3 * (height * width) + i4 * width + i5, mask=mask, other=0.0)
    s8 = tl.load(scale_ptr + (i5 - b8) * (channels * depth * height * width) + i2 * (depth * height * width) + i3 * (height * width) + i4 * width + i5, mask=mask, other=0.0)
    y9 = tl.where(first5, x7, 7, 7, float('-inf'))
        m_new = tl.maximum(m, tl.max(x9, mask=mask)


def launch_triton(x, scale):
    batch_size, channels, depth, height, width = x.shape
    out = torch.empty((batch_size, channels, depth, width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, scale, out, out.numel(), channels, depth, height, width, BLOCK=1024)
    return out
