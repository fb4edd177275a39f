import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, subtract_value, kernel_size2):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size, bias=False)
        self.avgpool = nn.AvgPool2d(kernel_size, bias)
        self.subtract_value = subtract_value

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v2 = launch_triton(v0, self.subtract_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, batch_size: tl.constexpr, subtract_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (batch_size * 3)
    o2 = (offs // 3) % batch_size
    o3 = offs % 3
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = ((ip4 >= 0) & (ip4 < 3))
        v6 = tl.load(v0_ptr + o1 * (batch_size * 3) + o2 * 3 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v6, 0.0)
    avg7 = acc / kernel_size
    y8 = avg7 / 4.0
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, subtract_value):
    batch_size, _, _, _ = v0.shape
    kernel_size = maxpool_kernel_size[0]
    stride = maxpool_stride[0]
    padding = maxpool_padding[0]
    out_batch_size = (batch_size + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, batch_size, out_batch_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * out_batch_size, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * batch_size * out_batch_size, batch_size, kernel_size, stride, padding, out_batch_size, subtract_value, BLOCK=128)
    return out
