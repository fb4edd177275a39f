import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, add_value):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=False)
        self.scale = scale
        self.sub_value = sub_value

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.add_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, add_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = v5 * (1.0 - 2.0 / (tl.exp(2.0 * tl.where(v5 > 20.0, v5, tl.log(1.0 + tl.exp(v5)))) + 1.0))
    y7 = y6 + add_value
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, add_value):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), add_value, BLOCK=1024)
    return out
