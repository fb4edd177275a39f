import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scale_factor, momentum=0.1, in_channels: int=6, out_channels: int=5, kernel_size: int=1, scale_factor: float=0.1):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, bias=False)
        self.scale_factor = scale_factor
        self.scale_factor = scale_factor

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.scale_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (depth * height * width)
    o2 = (offs // (height * width)) % depth
    o3 = (offs // width) % height
    o4 = offs % width
    lo5 = (o3 * depth) // width
    hi6 = ((o3 + 1) * depth + (depth - 1 - i2) * (depth * depth) + 1) // depth + 1
    lo7 = (o4 * width) // depth
    hi8 = ((o4 + 1) * width + (height - 1)) // width
    i9 = (o4 // width) % height
    i10 = ip6 % width
            v11 = tl.load(v0_ptr + o1 * (depth * depth * height * width) + o2 * (depth * height * width) + i3 * (height * width) + i8 * width + i10, mask=mask & ok7, other=0.0)
    y13 = v11 * scale_factor
        acc += tl.where(mask & ok7 & ok9, y12, 0.0)
    avg13 = acc / ((hi5 - lo4) * (hi6 - lo6))
    tl.store(out_ptr + offs, avg13, mask=mask)


def launch_triton(v0, scale_factor):
    batch_size, depth, height, width = v0.shape
    out = torch.empty((batch_size, depth, height, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * height * width, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * depth * height * width, depth, height, width, scale_factor, BLOCK=1024)
    return out
