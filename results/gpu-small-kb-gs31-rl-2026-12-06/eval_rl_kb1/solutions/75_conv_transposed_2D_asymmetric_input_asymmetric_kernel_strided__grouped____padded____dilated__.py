import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int=5, stride: int=1, padding: int=1, dilation: int=1, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose2d.weight, self.conv_transpose2d.stride, self.conv_transpose2d.dilation, self.conv_transpose2d.padding, self.conv_transpose2d.output_padding, self.conv_transpose2d.groups, self.conv_transpose2d.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_transpose2d_weight_ptr, conv_transpose2d_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_channels: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, groups: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // (out_height * out_width)
    o2 = (offs_m // out_width) % out_height
    o3 = offs_m % out_width
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k4 = offs_ka // (kernel_h * kernel_w)
        k5 = (offs_ka // kernel_w) % kernel_h
        k6 = offs_ka % kernel_w
        ci7 = group * (in_channels // groups) + k4
        tp8 = o2 + padding_h - k5 * dilation_h
        ip9 = tp8 // stride_h
        ok10 = ((tp8 >= 0) & (ip9 < height) & (tp8 % stride_h == 0))
        tp11 = o3 + padding_w - k6 * dilation_w
        ip12 = tp11 // stride_w
        ok13 = ((tp11 >= 0) & (ip12 < width) & (tp11 % stride_w == 0))
        x14 = tl.load(x_ptr + o1 * (in_channels * height * width) + ci7 * (height * width) + ip9 * width + ip12, mask=mask_ka & mask_m & ok10 & ok13, other=0.0)
        a15 = tl.where(mask_m & mask_ka & ok10 & ok13, x14, 0.0)
        wc16 = offs_kb // (kernel_h * kernel_w)
        w17 = tl.load(conv_transpose2d_weight_ptr + (group * (in_channels // groups) + wc16) * ((out_channels // groups) * kernel_h * kernel_w) + offs_n * (kernel_h * kernel_w) + offs_kb % (kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a15, w17, input_precision="ieee")
    if HAS_BIAS:
        v18 = tl.load(conv_transpose2d_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v18
    tl.store(out_ptr + o1 * (out_channels * out_height * out_width) + (group * (out_channels // groups) + offs_n) * (out_height * out_width) + o2 * out_width + o3, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose2d_weight, conv_transpose2d_stride, conv_transpose2d_dilation, conv_transpose2d_padding, conv_transpose2d_output_padding, conv_transpose2d_groups, conv_transpose2d_bias):
    batch_size, in_channels, height, width = x.shape
    _, out_channels_per_group, kernel_h, kernel_w = conv_transpose2d_weight.shape
    stride_h, stride_w = conv_transpose2d_stride
    dilation_h, dilation_w = conv_transpose2d_dilation
    padding_h, padding_w = conv_transpose2d_padding
    output_padding_h, output_padding_w = conv_transpose2d_output_padding
    groups = conv_transpose2d_groups
    out_channels = out_channels_per_group * groups
    out_height = (height - 1) * stride_h - 2 * padding_h + dilation_h * (kernel_h - 1) + output_padding_h + 1
    out_width = (width - 1) * stride_w - 2 * padding_w + dilation_w * (kernel_w - 1) + output_padding_w + 1
    out = torch.empty((batch_size, out_channels, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_height * out_width, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv_transpose2d_weight, conv_transpose2d_bias, out, batch_size * out_height * out_width, out_channels // groups, (in_channels // groups) * kernel_h * kernel_w, in_channels, height, width, out_channels, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, groups, kernel_h, kernel_w, out_height, out_width, HAS_BIAS=conv_transpose2d_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
