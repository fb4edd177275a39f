import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_channels, c_out, kernel_size, subtract_shape):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels=input_channels, out_channels=c_out, kernel_size=kernel_size, bias=False)
        self.sub_value = sub_value
        self.sub_value = sub_value

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v2 = launch_triton(v0, self.sub_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, sub_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = v5 - sub_value
    y7 = tl.where(y6 > 0.0, y6, 1.0 * (tl.exp(y6) - 1.0))
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, sub_value):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), sub_value, BLOCK=1024)
    return out
