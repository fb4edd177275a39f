import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, min_value: float, hardtanh_max: float=2.0):
        super(ModelNew, self).__init__()
        self.hardtanh = nn.Hardtanh(min_val, hardtanh_max)
        self.bias_value = bias_value

    def forward(self, x):
        v1 = launch_triton(x, self.bias_value, self.max_value)
        return v1


@triton.jit
def triton_kernel(x_ptr, conv_weight_ptr, conv_transpose_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, bias_value: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        m1 = offs_m // in_channels
        m2 = offs_m % in_channels
        x3 = tl.load(x_ptr + m1 * (in_channels * height * width) + m2 * (height * width) + offs_ka * width + offs_ka, mask=mask_ka & mask_m, other=0.0)
        a4 = tl.load(bias_ptr + offs_m * (in_channels * height * width) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a4, w4, input_precision="ieee")
    m5 = offs_m // in_channels
    m6 = offs_m % in_channels
    v7 = tl.load(conv_bias_ptr + offs_n, mask=mask_n, other=0.0)
    acc8 = acc + v7
    y9 = tl.minimum(tl.maximum(acc9, -1.0), max_value)
    tl.store(out_ptr + offs_m * (in_channels * height * width) + offs_m * (height * width) + offs_n * width + offs_n, y9, mask=mask_m & mask_n)


def launch_triton(x, conv_weight, conv_stride, conv_dilation, conv_padding, bias, max_value):
    batch_size, in_channels, height, width = x.shape
    _, _, bias_value_d1, _ = conv_weight.shape
    stride = conv_stride[0]
    dilation = conv_dilation[0]
    padding = conv_padding[0]
    out = torch.empty((batch_size, in_channels, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_height * out_width, meta['BLOCK_M']), triton.cdiv(in_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, conv_weight, conv_bias, out, batch_size * out_height * out_width, in_channels, height, width, min_value, max_value, BLOCK_M=64, BLOCK_N=16, BLOCK_K=16)
    return out
