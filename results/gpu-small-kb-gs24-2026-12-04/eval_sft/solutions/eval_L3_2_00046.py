import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, channels_in: int, out_channels: int, kernel_size: int, stride: int, padding: int, output_padding: int, groups: int, bias: bool, dilation: int, offset_shape: tuple=(5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 12, 1_d3, 1_d4, 1_d3, 1_d4, 1_d4, 1_d4, 1_d4, 1_d4, 1_d4, 1_d4, 1_out14, 1, 1, 1, 1, 1)2, 1_2
   4 = 1
   4 = 1
   4 = 1
   4 = (height422 = (channels3 * depth * height * width)) // depth
    o5 = (offs // (height * width)) % depth
    o6 = (offs // width) % height
    o7 = offs % width
    o1 = offs // depth
    o1 = i2 // depth
    i3 = i3 % depth
    x12 = tl.load(x_ptr + i1 * (depth * height * width) + i2 * (height * width) + i3 * width + i5, mask=mask, other=0.0)
    v13 = tl.load(offset_ptr + i1 * (depth * height * width) + i2 * (height * width) + i4 * width + i5, mask=mask, other=0.0)
    y14 = x6 * o12
    tl.store(out_ptr + offs, y13, mask=mask)


def launch_triton(x, offset):
    batch_size, channels, depth, height, width = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, offset, out, out.numel(), channels, depth, height, width, BLOCK=2048)
    return out
