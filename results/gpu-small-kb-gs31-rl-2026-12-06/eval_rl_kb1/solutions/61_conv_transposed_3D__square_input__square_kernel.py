import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, padding: int=0, output_padding: int=0, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose3d = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose3d.weight, self.conv_transpose3d.stride, self.conv_transpose3d.dilation, self.conv_transpose3d.padding, self.conv_transpose3d.output_padding, self.conv_transpose3d.groups, self.conv_transpose3d.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_transpose3d_weight_ptr, conv_transpose3d_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_channels: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, groups: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // (out_depth * out_height * out_width)
    o2 = (offs_m // (out_height * out_width)) % out_depth
    o3 = (offs_m // out_width) % out_height
    o4 = offs_m % out_width
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
        ci9 = group * (in_channels // groups) + k5
        tp10 = o2 + padding_d - k6 * dilation_d
        ip11 = tp10 // stride_d
        ok12 = ((tp10 >= 0) & (ip11 < depth) & (tp10 % stride_d == 0))
        tp13 = o3 + padding_h - k7 * dilation_h
        ip14 = tp13 // stride_h
        ok15 = ((tp13 >= 0) & (ip14 < height) & (tp13 % stride_h == 0))
        tp16 = o4 + padding_w - k8 * dilation_w
        ip17 = tp16 // stride_w
        ok18 = ((tp16 >= 0) & (ip17 < width) & (tp16 % stride_w == 0))
        x19 = tl.load(x_ptr + o1 * (in_channels * depth * height * width) + ci9 * (depth * height * width) + ip11 * (height * width) + ip14 * width + ip17, mask=mask_ka & mask_m & ok12 & ok15 & ok18, other=0.0)
        a20 = tl.where(mask_m & mask_ka & ok12 & ok15 & ok18, x19, 0.0)
        wc21 = offs_kb // (kernel_d * kernel_h * kernel_w)
        w22 = tl.load(conv_transpose3d_weight_ptr + (group * (in_channels // groups) + wc21) * ((out_channels // groups) * kernel_d * kernel_h * kernel_w) + offs_n * (kernel_d * kernel_h * kernel_w) + offs_kb % (kernel_d * kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a20, w22, input_precision="ieee")
    if HAS_BIAS:
        v23 = tl.load(conv_transpose3d_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v23
    tl.store(out_ptr + o1 * (out_channels * out_depth * out_height * out_width) + (group * (out_channels // groups) + offs_n) * (out_depth * out_height * out_width) + o2 * (out_height * out_width) + o3 * out_width + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose3d_weight, conv_transpose3d_stride, conv_transpose3d_dilation, conv_transpose3d_padding, conv_transpose3d_output_padding, conv_transpose3d_groups, conv_transpose3d_bias):
    batch_size, in_channels, depth, height, width = x.shape
    _, out_channels_per_group, kernel_d, kernel_h, kernel_w = conv_transpose3d_weight.shape
    stride_d, stride_h, stride_w = conv_transpose3d_stride
    dilation_d, dilation_h, dilation_w = conv_transpose3d_dilation
    padding_d, padding_h, padding_w = conv_transpose3d_padding
    output_padding_d, output_padding_h, output_padding_w = conv_transpose3d_output_padding
    groups = conv_transpose3d_groups
    out_channels = out_channels_per_group * groups
    out_depth = (depth - 1) * stride_d - 2 * padding_d + dilation_d * (kernel_d - 1) + output_padding_d + 1
    out_height = (height - 1) * stride_h - 2 * padding_h + dilation_h * (kernel_h - 1) + output_padding_h + 1
    out_width = (width - 1) * stride_w - 2 * padding_w + dilation_w * (kernel_w - 1) + output_padding_w + 1
    out = torch.empty((batch_size, out_channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_depth * out_height * out_width, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv_transpose3d_weight, conv_transpose3d_bias, out, batch_size * out_depth * out_height * out_width, out_channels // groups, (in_channels // groups) * kernel_d * kernel_h * kernel_w, in_channels, depth, height, width, out_channels, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, groups, kernel_d, kernel_h, kernel_w, out_depth, out_height, out_width, HAS_BIAS=conv_transpose3d_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
