import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scaling_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.scaling = nn.Parameter(torch.randn(scaling_shape))

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v2 = launch_triton(v0, self.scaling)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scaling_ptr, out_ptr, n_elements, dim1: tl.constexpr, width: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (dim1 * out_width)
    o2 = (offs // out_width) % dim1
    o3 = offs % out_width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(2):
        ip4 = o3 * 2 + k0
        ok5 = ((ip4 >= 0) & (ip4 < (dim1 * 2)))
        i6 = ip4 // 2
        i7 = ip4 % 2
        v8 = tl.load(v0_ptr + o1 * (dim1 * 2 * 2) + o2 * (3 * 2) + i6 * 2 + i7, mask=mask & ok5, other=0.0)
        y9 = v8 * 2.0
        acc += tl.where(ok5, y9, 0.0)
    avg10 = acc / 2.0
    tl.store(out_ptr + offs, avg10, mask=mask)


def launch_triton(v0, scaling):
    batch_size, dim1, _, _ = v0.shape
    out_width = (dim1 * width - 2) // 2 + 1
    out = torch.empty((batch_size, dim1, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * dim1 * out_width, meta['BLOCK']),)
    triton_kernel[grid](v0, scaling, out, batch_size * dim1 * out_width, dim1, width, out_width, BLOCK=32)
    return out
