import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_ch: int, kernel_size: int, stride: int, padding: int, dilation: int, groups: int, bias: bool, kernel_size2: int, stride: int, avgpool_padding: int):
        super().__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, out_ch, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.avgpool = nn.AdaptiveAvgPool1d(output_size)

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v1 = launch_triton(v0)
        v2 = launch_triton_2(v1, self.gn.weight, self.gn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, features: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // features
    o2 = offs % features
    zero = tl.zeros_like(offs)
    lo3 = (zero * 9) // 1
    hi4 = ((zero + 1) * 9 + 0) // 1
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(5):
        ip5 = lo3 + k0
        ok6 = (ip5 < hi4)
        v7 = tl.load(v0_ptr + o1 * (features * 9) + o2 * 9 + ip5, mask=mask & ok6, other=0.0)
        acc += tl.where(mask & ok6, v7, 0.0)
    avg8 = acc / ((hi4 - lo3))
    tl.store(out_ptr + offs, avg8, mask=mask)


def launch_triton(v0):
    B, features, _ = v0.shape
    out = torch.empty((B, features, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(B * features, meta['BLOCK']),)
    triton_kernel[grid](v0, out, B * features, features, BLOCK=32)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, features: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // features
    i2 = offs % features
    v3 = tl.load(v1_ptr + i1 * features + i2, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v3, mask=mask)


def launch_triton_2(v1):
    B, features = v1.shape
    out = torch.empty((B, features), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), features, BLOCK=16)
    return out


@triton.jit
def triton_3_kernel(v1_ptr, out_ptr, n_elements, features: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // features
    i2 = offs % features
    v3 = tl.load(v1_ptr + i1 * features + i2, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v3, mask=mask)


def launch_triton_2(v1):
    B, features = v1.shape
    out = torch.empty((B, features), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), features, BLOCK=16)
    return out
