import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scaling_shape):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.scaling = nn.Parameter(torch.randn(scaling_shape))

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose2d(x)
        v2 = launch_triton(v0, self.scaling)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scaling_ptr, out_ptr, n_elements, batch_size: tl.constexpr, width: tl.constexpr, scaling_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (batch_size * 5)
    o2 = (offs // 5) % batch_size
    o3 = offs % 5
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(2):
        ip4 = o3 * 2 - 1 + k0
        ok5 = ((ip4 >= 0) & (ip4 < 12))
        i6 = ip4 // 25
        i7 = ip4 % 25
        v8 = tl.load(v0_ptr + o1 * (batch_size * 250 + o2 * 25 + i6 * 25 + i7, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v8, 0.0)
    avg9 = acc / 2.0
    tl.store(out_ptr + offs, avg9, mask=mask)


def launch_triton(v0, scaling):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size, 5), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 54, meta['BLOCK']),)
    triton_kernel[grid](v0, scaling, out, batch_size * 54, batch_size, batch_size, BLOCK=1024)
    return out
