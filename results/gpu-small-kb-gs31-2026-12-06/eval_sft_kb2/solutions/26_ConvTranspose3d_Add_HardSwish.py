import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias, bias_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x, bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x, bias, self.bias)
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v1 = self.conv_transpose(v0)
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = self.conv_transpose(v1)
        return v2


@triton.jit
def triton_kernel(x_ptr, bias_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x6 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b7 = tl.load(bias_ptr + offs, mask=mask, other=0.0)
    y8 = tl.minimum(x6, o7)
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(x, bias):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, bias, out, out.numel(), BLOCK=1024)
    return out
