import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias2, kernel_size2, ap_stride, padding, bias2, 2, kernel_size2, ap_stride, padding, bias2, kernel_size2, ap_stride, padding, bias2, kernel_size2, stride, padding, bias2, kernel_size2, stride, padding, bias2, padding=avg_pool_stride, padding, bias2, kernel_size2, stride, padding, bias2, stride, padding, bias2, padding=avg_pool_stride, padding, bias2, stride, padding, bias2, stride, padding, bias2, padding=avg_pool_stride, paddingbias=bias2)
        self.conv3d = nn.Conv3d(in_channels, out_channels, 2, padding=avg_pool_stride, paddingbias=bias2)
        self.conv1d2, padding=avg_pool_stride, paddingbias=bias2)

    def forward(self, x):
        v0 = launch_triton(x, self.conv1d.weight, self.conv1d.stride, self.conv1d.dilation, self.conv1d.padding, self.conv1d.groups, self.conv1d.bias)
        v2 = launch_triton_2(v0, self.conv1d.weight, self.conv1d.stride, self.conv1d.dilation, self.conv1d.padding, self.conv1d.bias)
        return v2


@triton.jit
def triton_kernel(x_ptr, conv1d_weight_ptr, conv1d_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_channels: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
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
        ip9 = o2 * stride_d - padding_d + k5
        ip10 = o3 * stride_h - padding_h + k6 * dilation_h
        ok11 = ((ip9 >= 0) & (ip9 < depth))
        ip11 = o3 * stride_w - padding_w + k6 * dilation_h
        ok12 = ((ip11 >= 0) & (ip11 < height))
        ip13 = o4 * stride_w - padding_w + k7 * dilation_w
        ok14 = ((ip13 >= 0) & (ip13 < width))
        x15 = tl.load(x_ptr + o1 * (in_channels * depth * height * width) + ci8 * (depth * height * width) + ip9 * (height * width) + ip11 * width + ip13, mask=mask_ka & mask_m & ok10 & ok12 & ok14, other=0.0)
        a16 = tl.where(mask_m & mask_ka & ok10 & ok12 & ok14, x15, 0.0)
        w17 = tl.load(conv1d_weight_ptr + offs_n * (in_channels * kernel_d * kernel_h * kernel_w) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a16, w17, input_precision="ieee")
    if HAS_BIAS:
        v18 = tl.load(conv1d_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v18
    tl.store(out_ptr + o1 * (out_channels * out_depth * out_height * out_width) + offs_n * (out_depth * out_height * out_width) + o2 * (out_height * out_width) + o3 * out_width + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, conv1d_weight, conv1d_stride, conv1d_dilation, conv1d_padding, conv1d_bias):
    batch_size, in_channels, depth, height, width = x.shape
    out_channels, _, kernel_d, kernel_h, kernel_w = conv1d_weight.shape
    stride_d, stride_h, stride_w = conv1d_weight.shape
    stride_d, stride_h, stride_w = conv1d_weight_d0, _, kernel_d, kernel_h, kernel_w = conv1d_weight_d0, _, kernel_d, kernel_h, kernel_w = conv1d_weight_d0, _, kernel_d, kernel_h, kernel_w = conv1d_weight_d0, out_depth * out_height * out_width, out_channels, depth, height, width = x.shape
    output_padding_h, output_padding_d + 1
    out_height = (height + 2 * padding_d - dilation_d * (kernel_d - 1) - 1) // stride + 1
    out_width = (width + 2 * padding_d - dilation_d * (kernel_d - 1) - 1) // stride + 1
    out = torch.empty((batch_size, out_channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_depth * out_height * out_width, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, conv1d_weight, conv1d_bias, out, batch_size * out_depth * out_height * out_width, out_channels, in_channels * kernel_d * kernel_h * kernel_w, in_channels, depth, height, width, out_channels, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, kernel_d, kernel_h, kernel_w, out_depth, out_height, out_width, HAS_BIAS=conv1d_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out


@triton.jit
def triton_2_kernel(v0_ptr, conv1d_weight_ptr, conv1d_bias_ptr, out_ptr, M, N, K, out_channels: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, conv1d_weight_d0: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_width_2: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_width_2
    o2 = offs_m % out_width_2
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        ip5 = o2 * stride - padding + k4 * dilation
        ok6 = ((ip5 >= 0) & (ip5 < (out_height * out_width)) & (tp4 // (out_height * out_width)
        i7 = ip5 // (out_height * out_width)
        i8 = (ip6 // out_width) % out_height
        i10 = ip6 % out_width
        v11 = tl.load(v0_ptr + o1 * (out_channels * out_depth * out_height * out_width) + ip5 * (out_height * out_width) + i7 * (out_height * out_width) + i9, mask=mask_ka & mask_m & ok6, other=0.0)
        a12 = tl.where(mask_m & mask_ka & ok7, v11, 0.0)
        w13 = tl.load(conv1d_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=16)
    return out


@triton.jit
def triton_3_kernel(v2_ptr, conv1d_weight_ptr, conv1d_bias_ptr, out_ptr, M, N, K, out_channels: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, out_channels2: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_width_2: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_width
    o2 = offs_m % out_width
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        ip5 = o2 * stride - padding + k4 * dilation
        ok6 = ((ip5 >= 0) & (ip5 < (out_height * out_width)) & (tp4 * out_height * out_width)
        i7 = ip5 * out_width + i4 * out_width + i5, mask=mask_ka & mask_m & ok6, other=0.0)
        a8 = tl.where(mask_m & mask_ka & ok6, v9, 0.0)
        w9 = tl.load(conv1d_weight_ptr + offs_n * (kernel_h * kernel_w)
        w9 = tl.load(conv1d_weight_ptr + offs_n * (kernel_h * kernel_w) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a8, w9, input_precision="ieee")
    if HAS_BIAS:
        v10 = tl.load(conv1d_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v10
    y12 = tl.where(mask_m & mask_ka & ok7, input_precision="ieee")
    v11 = tl.load(conv1d_weight_d0 * out_height * out_width) + offs_ka * kernel_size) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc = acc + v11
    tl.store(out_ptr + o1 * (out_channels2 * out_depth * out_width_2) + offs_n * (out_height * out_width) + o2 * (out_height * out_width) + o2 * (out_height * out_width) + o3 * out_width_2 + o2, acc15, mask=row_mask)


def launch_triton_2(v0, conv1d_weight, conv1d_stride, conv1d_dilation, conv1d_padding, conv1d_bias):
    batch_size, out_channels, out_depth, out_height, out_width = v0.shape
    out = torch.empty((batch_size, out_channels2, out_depth, out_height, out_width_2), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_depth * out_height * out_width * out_width_2, meta['BLOCK_M']), triton.cdiv(batch_size * out_depth * out_height * out_width + 2 * padding - dilation * (kernel_size - 1) + output_padding + 1
    out = torch.empty((batch_size, out_channels2, out_depth, out_width_2, BLOCK_M=16, BLOCK_N=16, BLOCK_K=64)
    return out
