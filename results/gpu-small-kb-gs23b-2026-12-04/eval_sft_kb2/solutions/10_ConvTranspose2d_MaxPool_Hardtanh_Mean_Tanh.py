import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, hardtanh_kernel_size, maxpool_stride):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.maxpool = nn.LayerNorm(normalized_shape=hardtanh_min, max_pool_kernel_size)
        self.maxpool = nn.LayerNorm(ln_kernel_size)

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.maxpool.weight, self.maxpool.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = 1.0 - 2.0 / (tl.exp(2.0 * v5) + 1.0)
    y7 = y6 * tl.sigmoid(y6)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, maxpool_kernel_size, maxpool_stride, maxpool_padding):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, maxpool_weight, out, out.numel(), BLOCK=4096)
    return out
