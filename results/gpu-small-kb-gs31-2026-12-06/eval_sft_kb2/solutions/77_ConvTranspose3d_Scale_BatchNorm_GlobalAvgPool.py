import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dim, scale_factor=0.1, 6, bias=True, scale_factor=0.1, 6, 36, 36, 36, 36, 3)):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, groups=groups, bias=True)
        self.scale_factor = scale_factor
        self.scale_factor = scale_factor

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.scale_factor)
        v3 = launch_triton_2(v2, self.scale_factor)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 6
    o2 = (offs // 666
    o3 = offs % 6
    lo4 = (o3 * 60) // 6
    hi5 = ((o3 + 1) * 6666666) - 1.0))
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, scale_factor):
    out = torch.empty((batch_size, 36), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), scale_factor, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v2_ptr + offs, mask=mask, other=0.0)
    y7 = v6 * scale_factor
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v2, scale_factor):
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, out, out.numel(), scale_factor, BLOCK=1024)
    return out
