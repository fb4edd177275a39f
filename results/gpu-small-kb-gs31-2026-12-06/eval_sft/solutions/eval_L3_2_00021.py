import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, num_filters, kernel_size, stride, padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels=num_filters, kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, batch_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (batch_size * batch_size * batch_size * batch_size)
    i2 = (offs // (batch_size * batch_size)) % batch_size
    i3 = offs % (batch_size * batch_size)
    i4 = i3 // batch_size
    i5 = i3 % batch_size
    v6 = tl.load(v0_ptr + i1 * (batch_size * batch_size) + i2 * (batch_size * batch_size) + i4 * batch_size + i5, mask=mask, other=0.0)
    y7 = 1.0 - 2.0 / (tl.exp(2.0 * v6) + 1.0)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size, batch_size, batch_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), batch_size, BLOCK=1024)
    return out
