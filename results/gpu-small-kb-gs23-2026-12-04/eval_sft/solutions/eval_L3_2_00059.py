import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int, bias: bool, out_channels2: int, kernel_size2: int):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        self.conv2d = nn.Conv1d(in_channels=out_channels, out_channels=out_channels2, kernel_size=kernel_size2, stride=stride2, padding=padding2)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v2 = launch_triton(v0)
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.conv2d(v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 12
    o2 = (offs // 2) % 2
    o3 = offs % 2
    zero = tl.zeros_like(offs)
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(2):
        for k1 in tl.static_range(2):
            ip4 = zero * 2 + k0
            ok5 = ((ip4 >= 0) & (ip4 < 2))
            ip6 = zero * 2 + k1
            ok7 = ((ip6 >= 0) & (ip6 < 2))
            i8 = ip6 // 2
            i9 = ip6 % 2
            v10 = tl.load(v0_ptr + o1 * 2 + o2 * 2 + ip4 * 2 + ip6, mask=mask & ok5 & ok7, other=0.0)
            y11 = tl.minimum(v10, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(v10)))
            acc = tl.maximum(acc, tl.where(ok5 & ok7, y11, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 2, 2, 2), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 2 * 2 * 2, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 2 * 2 * 2, BLOCK=128)
    return out
