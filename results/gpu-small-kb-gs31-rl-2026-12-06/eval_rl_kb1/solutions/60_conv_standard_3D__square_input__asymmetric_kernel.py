import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int=1, stride: int=1, padding: int=0, dilation: int=1, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv3d = nn.Conv3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        v0 = launch_triton(x, self.conv3d.weight, self.conv3d.stride, self.conv3d.dilation, self.conv3d.padding, self.conv3d.groups, self.conv3d.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv3d_weight_ptr, conv3d_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_channels: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, groups: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
        ip10 = o2 * stride_d - padding_d + k6 * dilation_d
        ok11 = ((ip10 >= 0) & (ip10 < depth))
        ip12 = o3 * stride_h - padding_h + k7 * dilation_h
        ok13 = ((ip12 >= 0) & (ip12 < height))
        ip14 = o4 * stride_w - padding_w + k8 * dilation_w
        ok15 = ((ip14 >= 0) & (ip14 < width))
        x16 = tl.load(x_ptr + o1 * (in_channels * depth * height * width) + ci9 * (depth * height * width) + ip10 * (height * width) + ip12 * width + ip14, mask=mask_ka & mask_m & ok11 & ok13 & ok15, other=0.0)
        a17 = tl.where(mask_m & mask_ka & ok11 & ok13 & ok15, x16, 0.0)
        w18 = tl.load(conv3d_weight_ptr + (group * (out_channels // groups) + offs_n) * ((in_channels // groups) * kernel_d * kernel_h * kernel_w) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a17, w18, input_precision="ieee")
    if HAS_BIAS:
        v19 = tl.load(conv3d_bias_ptr + group * (out_channels // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v19
    tl.store(out_ptr + o1 * (out_channels * out_depth * out_height * out_width) + (group * (out_channels // groups) + offs_n) * (out_depth * out_height * out_width) + o2 * (out_height * out_width) + o3 * out_width + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, conv3d_weight, conv3d_stride, conv3d_dilation, conv3d_padding, conv3d_groups, conv3d_bias):
    batch_size, in_channels, depth, height, width = x.shape
    out_channels, _, kernel_d, kernel_h, kernel_w = conv3d_weight.shape
    stride_d, stride_h, stride_w = conv3d_stride
    dilation_d, dilation_h, dilation_w = conv3d_dilation
    padding_d, padding_h, padding_w = conv3d_padding
    groups = conv3d_groups
    out_depth = (depth + 2 * padding_d - dilation_d * (kernel_d - 1) - 1) // stride_d + 1
    out_height = (height + 2 * padding_h - dilation_h * (kernel_h - 1) - 1) // stride_h + 1
    out_width = (width + 2 * padding_w - dilation_w * (kernel_w - 1) - 1) // stride_w + 1
    out = torch.empty((batch_size, out_channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_depth * out_height * out_width, meta['BLOCK_M']), triton.cdiv(out_channels // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, conv3d_weight, conv3d_bias, out, batch_size * out_depth * out_height * out_width, out_channels // groups, (in_channels // groups) * kernel_d * kernel_h * kernel_w, in_channels, depth, height, width, out_channels, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, groups, kernel_d, kernel_h, kernel_w, out_depth, out_height, out_width, HAS_BIAS=conv3d_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
