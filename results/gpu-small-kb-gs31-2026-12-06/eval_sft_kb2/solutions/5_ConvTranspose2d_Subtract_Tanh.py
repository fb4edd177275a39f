import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=2, padding=1, output_padding=1, bias, bias_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding, bias=True)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, height: tl.constexpr, width: tl.constexpr, bias_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (height * width)) % other_d0
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    b6 = tl.load(bias_ptr + i2, mask=mask, other=0.0)
    y7 = 1.0 - 2.0 / (tl.exp(2.0 * v6) + 1.0)
    b8 = tl.load(bias_ptr + i2, mask=mask, other=0.0)
    y9 = 1.0 - 2.0 / (tl.exp(2.0 * y8) + 1.0)
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, bias):
    batch_size, _, height, width = v0.shape
    bias_d0, _, _ = bias.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), height, dim2, bias_d0, BLOCK=1024)
    return out
