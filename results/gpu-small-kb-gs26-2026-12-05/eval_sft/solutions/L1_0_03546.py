import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv1d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=False)

    def forward(self, x):
        v0 = launch_triton(x, self.conv1.weight, self.conv1.stride, self.conv1.dilation, self.conv1.padding, self.conv1.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv1_weight_ptr, conv1_bias_ptr, out_ptr, M, N, K, M_size: tl.constexpr, dim2: tl.constexpr, out_channels: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_dim2: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
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
        ip5 = o2 * stride - padding + k4 * dilation
        ok6 = ((ip5 >= 0) & (ip5 < dim2))
        x7 = tl.load(x_ptr + o1 * (M_size * dim2) + k3 * dim2 + ip5, mask=mask_ka & mask_m & ok6, other=0.0)
        a8 = tl.where(mask_m & mask_ka & ok6, x7, 0.0)
        w9 = tl.load(conv1_weight_ptr + offs_n * (M_size * kernel_size) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a8, w9, input_precision="ieee")
    if HAS_BIAS:
        v10 = tl.load(conv1_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v10
    tl.store(out_ptr + o1 * (out_channels * out_dim2) + offs_n * out_dim2 + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, conv1_weight, conv1_stride, conv1_dilation, conv1_padding, conv1_bias):
    batch_size, M_size, dim2 = x.shape
    out_channels, _, kernel_size = conv1_weight.shape
    stride = conv1_stride[0]
    dilation = conv1_dilation[0]
    padding = conv1_padding[0]
    out_dim2 = (dim2 + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, out_channels, out_dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_dim2, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, conv1_weight, conv1_bias, out, batch_size * out_dim2, out_channels, M_size * kernel_size, M_size, dim2, out_channels, stride, dilation, padding, kernel_size, out_dim2, HAS_BIAS=conv1_bias is not None, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    return out
