import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, padding: int=0, dilation: int=1, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv.weight, self.conv.stride, self.conv.dilation, self.conv.padding, self.conv.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_weight_ptr, conv_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, length: tl.constexpr, out_channels: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, groups: tl.constexpr, kernel_size: tl.constexpr, out_length: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_length
    o2 = offs_m % out_length
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        ci5 = group * (dim1 // groups) + k3
        ip6 = o2 * stride - padding + k4 * dilation
        ok7 = ((ip6 >= 0) & (ip6 < length))
        x8 = tl.load(x_ptr + o1 * (in_channels * length) + ci5 * length + ip6, mask=mask_ka & mask_m & ok7, other=0.0)
        a9 = tl.where(mask_m & mask_ka & ok7, x8, 0.0)
        w10 = tl.load(conv_weight_ptr + (group * (out_channels // groups) + offs_n) * ((in_channels // groups) * kernel_size) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a9, w10, input_precision="ieee")
    if HAS_BIAS:
        v11 = tl.load(conv_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v11
    tl.store(out_ptr + o1 * (out_channels * out_length) + (group * (out_channels // groups) + offs_n) * out_length + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_weight, conv_stride, conv_dilation, conv_padding, conv_groups, conv_bias):
    batch_size, in_channels, length = x.shape
    out_channels, _, kernel_size = conv_weight.shape
    stride = conv_stride[0]
    dilation = conv_dilation[0]
    padding = conv_padding[0]
    groups = conv_groups
    out_length = (length + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, out_channels, out_length), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_length, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv_weight, conv_bias, out, batch_size * out_length, out_channels // groups, (dim1 // groups) * kernel_size, channels, length, out_channels, stride, dilation, padding, groups, kernel_size, out_length, HAS_BIAS=conv_bias is not None, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    return out
