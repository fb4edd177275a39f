import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, num_filters, kernel_size, stride, padding):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels=num_filters, kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v1 = launch_triton(v0)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v0_ptr + (0 + 3) * 6 * 6 + (2 + 3) * 6 + i2, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v6, mask=mask)


def launch_triton(v0):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty((batch_size, 3, 1, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), BLOCK=2048)
    return out
