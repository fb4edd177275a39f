import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v3 = launch_triton(v0)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 4
    o2 = offs % 4
    zero = tl.zeros_like(offs)
    lo3 = (zero * 4) // 1
    hi4 = ((zero + 1) * 4 + 0) // 1
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(10):
        ip5 = lo3 + k0
        ok6 = (ip5 < hi4)
        v7 = tl.load(v0_ptr + o1 * 4 + o2 * 4 + ip5, mask=mask & ok6, other=0.0)
        y8 = tl.where(v7 > 0.0, v7 * (1.0 + tl.erf(v8 * 0.05)
        acc += tl.where(mask & ok6, avg7 = acc / ((hi4 - lo3))
    tl.store(out_ptr + offs, avg9, mask=mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 4, 4), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 4, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 4, batch_size, BLOCK=1024)
    return out
