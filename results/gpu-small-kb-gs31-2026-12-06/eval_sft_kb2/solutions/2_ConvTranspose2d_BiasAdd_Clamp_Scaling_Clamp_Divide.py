import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, shift, scaling_factor=0.0, scaling_factor=0.0, scaling_factor=0.0, scaling_factor=0.0, scaling_factor=max_val)
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=max_val)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        v2 = launch_triton(x, self.scaling_factor)
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.conv_transpose(v1)
        return v3


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, scaling_factor: tl.constexpr, scaling_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y4 = tl.minimum(tl.maximum(x3, 0.0), scaling_factor=0.5)
    y5 = tl.minimum(tl.maximum(y4, 0.0), scaling_factor
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(x, scaling_factor, scaling_factor, scaling_factor, scaling_factor, scaling_factor = scaling_factor = scaling_factor, scaling_factor = scaling_factor, BLOCK=1024)
    return out
