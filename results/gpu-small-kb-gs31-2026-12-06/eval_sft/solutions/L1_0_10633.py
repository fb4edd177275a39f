import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch: int, out_channels: int, kernel_size: int, stride: int=2, padding: int=0, dilation: int=2, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_ch, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv.weight, self.conv.stride, self.conv.dilation, self.conv.padding, self.conv.groups, self.conv.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_weight_ptr, conv_bias_ptr, out_ptr, M, N, K, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, x_d4: tl.constexpr, out_channels: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, groups: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_x_d2: tl.constexpr, out_x_d3: tl.constexpr, out_x_d4: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // (out_x_d2 * out_x_d3 * out_x_d4)
    o2 = (offs_m // (out_x_d3 * out_x_d4)) % out_x_d2
    o3 = (offs_m // out_x_d4) % out_x_d3
    o4 = offs_m % out_x_d4
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k5 = offs_ka // (kernel_d * kernel_h * kernel_w)
        k6 = (offs_ka // (kernel_h * kernel_w)) % kernel_d
        k7 = (offs_ka // kernel_w) % kernel_h
        k8 = offs_ka % kernel_w
        ci9 = group * (x_d1 // groups) + k5
        ip10 = o2 * stride_d - padding_d + k6 * dilation_d
        ok11 = ((ip10 >= 0) & (ip10 < x_d2))
        ip12 = o3 * stride_h - padding_h + k7 * dilation_h
        ok13 = ((ip12 >= 0) & (ip12 < x_d3))
        ip14 = o4 * stride_w - padding_w + k8 * dilation_w
        ok15 = ((ip14 >= 0) & (ip14 < x_d4))
        x16 = tl.load(x_ptr + o1 * (x_d1 * x_d2 * x_d3 * x_d4) + ci9 * (x_d2 * x_d3 * x_d4) + ip10 * (x_d3 * x_d4) + ip12 * x_d4 + ip14, mask=mask_ka & mask_m & ok11 & ok13 & ok15, other=0.0)
        a17 = tl.where(mask_m & mask_ka & ok11 & ok13 & ok15, x16, 0.0)
        w18 = tl.load(conv_weight_ptr + (group * (out_channels // groups) + offs_n) * ((x_d1 // groups) * kernel_d * kernel_h * kernel_w) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a17, w18, input_precision="ieee")
    if HAS_BIAS:
        v19 = tl.load(conv_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v19
    tl.store(out_ptr + o1 * (out_channels * out_x_d2 * out_x_d3 * out_x_d4) + (group * (out_channels // groups) + offs_n) * (out_x_d2 * out_x_d3 * out_x_d4) + o2 * (out_x_d3 * out_x_d4) + o3 * out_x_d4 + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_weight, conv_stride, conv_dilation, conv_padding, conv_groups, conv_bias):
    x_d0, x_d1, x_d2, x_d3, x_d4 = x.shape
    out_channels, _, kernel_d, kernel_h, kernel_w = conv_weight.shape
    stride_d, stride_h, stride_w = conv_stride
    dilation_d, dilation_h, dilation_w = conv_dilation
    padding_d, padding_h, padding_w = conv_padding
    groups = conv_groups
    out_x_d2 = (x_d2 + 2 * padding_d - dilation_d * (kernel_d - 1) - 1) // stride_d + 1
    out_x_d3 = (x_d3 + 2 * padding_h - dilation_h * (kernel_h - 1) - 1) // stride_h + 1
    out_x_d4 = (x_d4 + 2 * padding_w - dilation_w * (kernel_w - 1) - 1) // stride_w + 1
    out = torch.empty((x_d0, out_channels, out_x_d2, out_x_d3, out_x_d4), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3 * out_x_d4, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv_weight, conv_bias, out, x_d0 * out_x_d2 * out_x_d3 * out_x_d4, out_channels // groups, (x_d1 // groups) * kernel_d * kernel_h * kernel_w, x_d1, x_d2, x_d3, x_d4, out_channels, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, groups, kernel_d, kernel_h, kernel_w, out_x_d2, out_x_d3, out_x_d4, HAS_BIAS=conv_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
