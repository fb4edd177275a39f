import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, c_in: int, out_channels: int, kernel_size: int, stride: int, padding: int, dilation: int, groups: int, bias: bool=False):
        super().__init__()
        self.conv = nn.Conv1d(c_in, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv.weight, self.conv.stride, self.conv.dilation, self.conv.padding, self.conv.groups, self.conv.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_weight_ptr, conv_bias_ptr, out_ptr, M, N, K, seq_len: tl.constexpr, dim2: tl.constexpr, out_channels: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, groups: tl.constexpr, kernel_size: tl.constexpr, out_dim2: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_dim2
    o2 = offs_m % out_dim2
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        ci5 = group * (seq_len // groups) + k3
        ip6 = o2 * stride - padding + k4 * dilation
        ok7 = ((ip6 >= 0) & (ip6 < dim2))
        x8 = tl.load(x_ptr + o1 * (seq_len * dim2) + ci5 * dim2 + ip6, mask=mask_ka & mask_m & ok7, other=0.0)
        a9 = tl.where(mask_m & mask_ka & ok7, x8, 0.0)
        w10 = tl.load(conv_weight_ptr + (group * (out_channels // groups) + offs_n) * ((seq_len // groups) * kernel_size) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a9, w10, input_precision="ieee")
    if HAS_BIAS:
        v11 = tl.load(conv_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v11
    tl.store(out_ptr + o1 * (out_channels * out_dim2) + (group * (out_channels // groups) + offs_n) * out_dim2 + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_weight, conv_stride, conv_dilation, conv_padding, conv_groups, conv_bias):
    B, seq_len, dim2 = x.shape
    out_channels, _, kernel_size = conv_weight.shape
    stride = conv_stride[0]
    dilation = conv_dilation[0]
    padding = conv_padding[0]
    groups = conv_groups
    out_dim2 = (dim2 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((B, out_channels, out_dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(B * out_dim2, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv_weight, conv_bias, out, B * out_dim2, out_channels // groups, (seq_len // groups) * kernel_size, seq_len, dim2, out_channels, stride, dilation, padding, groups, kernel_size, out_dim2, HAS_BIAS=conv_bias is not None, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    return out
