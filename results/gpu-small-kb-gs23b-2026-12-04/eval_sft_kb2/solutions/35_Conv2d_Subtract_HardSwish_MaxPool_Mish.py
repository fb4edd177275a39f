import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, subtract_value):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.subtract_value = subtract_value

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.subtract_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, batch_size: tl.constexpr, subtract_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (3 * batch_size)
    o2 = (offs // batch_size) % 2
    o3 = offs % batch_size
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < batch_size))
        v6 = tl.load(v0_ptr + o1 * (3 * batch_size) + o2 * batch_size + ip4, mask=mask & ok5, other=0.0)
        y7 = v6 * (1.0 - 2.0 / (tl.exp(2.0 * tl.where(v6 > 20.0, v6, tl.log(1.0 + tl.exp(v6)))) + 1.0))
        acc += tl.where(ok5, y7, 0.0)
    avg8 = acc / 3.0
    tl.store(out_ptr + offs, avg8, mask=mask)


def launch_triton(v0, subtract_value):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 2, 1, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 2 * 2, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 2 * 2, batch_size, subtract_value, BLOCK=64)
    return out
