import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=2, padding: int=0, output_padding: int=0, groups: int=1, bias: bool=False):
        super().__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose1d.weight, self.conv_transpose1d.stride, self.conv_transpose1d.dilation, self.conv_transpose1d.padding, self.conv_transpose1d.output_padding, self.conv_transpose1d.groups, self.conv_transpose1d.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_transpose1d_weight_ptr, conv_transpose1d_bias_ptr, out_ptr, M, N, K, channels: tl.constexpr, seq_len: tl.constexpr, out_channels: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, groups: tl.constexpr, kernel_size: tl.constexpr, out_seq_len: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_seq_len
    o2 = offs_m % out_seq_len
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        ci5 = group * (channels // groups) + k3
        tp6 = o2 + padding - k4 * dilation
        ip7 = tp6 // stride
        ok8 = ((tp6 >= 0) & (ip7 < seq_len) & (tp6 % stride == 0))
        x9 = tl.load(x_ptr + o1 * (channels * seq_len) + ci5 * seq_len + ip7, mask=mask_ka & mask_m & ok8, other=0.0)
        a10 = tl.where(mask_m & mask_ka & ok8, x9, 0.0)
        wc11 = offs_kb // kernel_size
        w12 = tl.load(conv_transpose1d_weight_ptr + (group * (channels // groups) + wc11) * ((out_channels // groups) * kernel_size) + offs_n * kernel_size + offs_kb % kernel_size, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a10, w12, input_precision="ieee")
    if HAS_BIAS:
        v13 = tl.load(conv_transpose1d_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v13
    tl.store(out_ptr + o1 * (out_channels * out_seq_len) + (group * (out_channels // groups) + offs_n) * out_seq_len + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose1d_weight, conv_transpose1d_stride, conv_transpose1d_dilation, conv_transpose1d_padding, conv_transpose1d_output_padding, conv_transpose1d_groups, conv_transpose1d_bias):
    batch_size, channels, seq_len = x.shape
    _, out_channels_per_group, kernel_size = conv_transpose1d_weight.shape
    stride = conv_transpose1d_stride[0]
    dilation = conv_transpose1d_dilation[0]
    padding = conv_transpose1d_padding[0]
    output_padding = conv_transpose1d_output_padding[0]
    groups = conv_transpose1d_groups
    out_channels = out_channels_per_group * groups
    out_seq_len = (seq_len - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1
    out = torch.empty((batch_size, out_channels, out_seq_len), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_seq_len, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv_transpose1d_weight, conv_transpose1d_bias, out, batch_size * out_seq_len, out_channels // groups, (channels // groups) * kernel_size, channels, seq_len, out_channels, stride, dilation, padding, groups, kernel_size, out_seq_len, HAS_BIAS=conv_transpose1d_bias is not None, BLOCK_M=64, BLOCK_N=16, BLOCK_K=16)
    return out
