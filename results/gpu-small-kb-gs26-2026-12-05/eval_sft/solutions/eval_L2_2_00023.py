import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, kernel_size: int, stride: int, padding: int, groups: int, bias: bool, kernel_size2: int):
        super(ModelNew, self).__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, out_channels=out_channels, kernel_size=kernel_size, padding=padding, groups=groups, bias=False)
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, out_channels=out_channels, kernel_size=kernel_size2, stride=stride, padding=padding, bias=False)

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v1 = self.conv_transpose1d(v0)
        v2 = launch_triton(v1)
        return v2


@triton.jit
def triton_kernel(v1_ptr, out_ptr, n_elements, x_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (x_d0 * 8)
    i2 = (offs // 8) % x_d0
    i3 = offs % 8
    v4 = tl.load(v1_ptr + i1 * (x_d0 * 8) + i2 * 8 + i3, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v4, mask=mask)


def launch_triton(v1):
    x_d0, x_d2, _ = v0.shape
    out = torch.empty((x_d0, x_d0, x_d0), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v1, out, out.numel(), x_d0, BLOCK=1024)
    return out
