import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int=1, dilation: int=1, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv1d = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv1d.weight, self.conv1d.stride, self.conv1d.dilation, self.conv1d.padding, self.conv1d.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv1d_weight_ptr, conv1d_bias_ptr, out_ptr, M, N, K, dim: tl.constexpr, out_channels: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_length: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
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
        ip5 = o2 * stride - padding + k4 * dilation
        ok6 = ((ip5 >= 0) & (ip5 < length))
        x7 = tl.load(x_ptr + o1 * (in_channels * length) + k3 * length + ip5, mask=mask_ka & mask_m & ok6, other=0.0)
        a8 = tl.where(mask_m & mask_ka & ok6, x7, 0.0)
        w9 = tl.load(conv1d_weight_ptr + offs_n * (seq_len * kernel_size) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a8, w9, input_precision="ieee")
    if HAS_BIAS:
        v10 = tl.load(conv1d_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v10
    tl.store(out_ptr + o1 * (out_channels * out_length) + offs_n * out_length + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, conv1d_weight, conv1d_stride, conv1d_dilation, conv1d_padding, conv1d_bias):
    batch_size, in_channels, length = x.shape
    out_channels, _, kernel_size = conv1d_weight.shape
    stride = conv1d_stride[0]
    dilation = conv1d_dilation[0]
    padding = conv1d_padding[0]
    out_length = (length + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, out_channels, out_length), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_length, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, conv1d_weight, conv1d_bias, out, batch_size * out_length, out_channels, seq_len * kernel_size, seq_len, dim2, out_channels, stride, dilation, padding, kernel_size, out_length, HAS_BIAS=conv1d_bias is not None, BLOCK_M=32, BLOCK_N=16, BLOCK_K=16)
    return out
