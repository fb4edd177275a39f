import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, c_in, out_channels, kernel_size, stride, padding, add_value):
        super(ModelNew, self).__init__()
        self.conv3d = nn.Conv3d(c_in, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.activation = nn.CELU(alpha=alpha)
        self.add_value = add_value

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv3d(x)
        v2 = launch_triton(v0, self.add_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, add_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y7 = tl.where(v6 >= 0.0, v6, v6 * 0.05)
    y8 = tl.where(y7 > 0.0, y7, 1.0 * (tl.exp(y7) - 1.0))
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, add_value):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), add_value, BLOCK=1024)
    return out
