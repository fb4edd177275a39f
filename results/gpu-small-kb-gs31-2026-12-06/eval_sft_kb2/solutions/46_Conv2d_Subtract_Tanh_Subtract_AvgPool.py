import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, subtract_value):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, bias=True)
        self.avgpool = nn.AvgPool2d(subtract_shape))

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.subtract, self.avgpool.kernel_size, self.avgpool.stride, self.avgpool.padding)
        return v2


@triton.jit
def triton_kernel(v0_ptr, subtract_ptr, out_ptr, n_elements, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 28
    o2 = (offs // 22) % 2
    o3 = offs % 22
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < 22))
        i6 = ip4 // 2
        i7 = ip4 % 2
        v8 = tl.load(v0_ptr + o1 * (3 * 2 + o2 * 2 + i6 * 2 + i7, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v8, 0.0)
    avg9 = acc / kernel_size
    y8 = 1.0 - 2.0 / (tl.exp(2.0 * y7) + 1.0)
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, subtract):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 3, 22), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 3 * 2, meta['BLOCK']),)
    triton_kernel[grid](v0, subtract, out, batch_size * 3 * 2, BLOCK=1024)
    return out
