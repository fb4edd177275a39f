import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, kernel_size: int, padding: int, stride: int, padding: int, groups: int, bias: bool, out_channels2: int, groups: int, bias: bool, out_channels2: int, kernel_size2: int):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, padding=padding, bias=False)
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels=in_channels, kernel_size=kernel_size2, padding2)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose.weight, self.conv_transpose.stride, self.conv_transpose.dilation, self.conv_transpose.padding, self.conv_transpose.output_padding, self.conv_transpose.bias)
        v1 = launch_triton_2(v0, self.conv_transpose.weight, self.conv_transpose.stride, self.conv_transpose.dilation, self.conv_transpose.padding, self.conv_transpose.output_padding, self.conv_transpose.groups, self.conv_transpose.bias)
        v2 = launch_triton_2(v0, self.conv_transpose.weight, self.conv_transpose.stride, self.conv_transpose.bias)
        return v2


@triton.jit
def triton_kernel(x_ptr, conv_transpose_weight_ptr, conv_transpose_bias_ptr, out_ptr, M, N, K, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, out_channels: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_x_d2: tl.constexpr, out_x_d3: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // (out_x_d2 * out_x_d3)
    o2 = (offs_m // out_x_d3) % out_x_d2
    o3 = offs_m % out_x_d3
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k4 = offs_ka // (kernel_h * kernel_w)
        k5 = (offs_ka // kernel_w) % kernel_h
        k6 = offs_ka % kernel_w
        tp7 = o2 + padding_h - k5 * dilation_h
        ip8 = tp7 // stride_h
        ok9 = ((tp7 >= 0) & (ip8 < x_d2) & (tp7 % stride_h == 0))
        tp10 = o3 + padding_w - k6 * dilation_w
        ip11 = tp10 // stride_w
        ok12 = ((tp10 >= 0) & (ip11 < x_d3) & (tp10 % stride_w == 0))
        x13 = tl.load(x_ptr + o1 * (x_d1 * x_d2 * x_d3) + k4 * (x_d2 * x_d3) + ip8 * x_d3 + ip11, mask=mask_ka & mask_m & ok9 & ok12, other=0.0)
        a14 = tl.where(mask_m & mask_ka & ok9 & ok12, x13, 0.0)
        wc15 = offs_kb // (kernel_h * kernel_w)
        w16 = tl.load(conv_transpose_weight_ptr + wc15 * (out_channels * kernel_h * kernel_w) + offs_n * (kernel_h * kernel_w) + offs_kb % (kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a14, w16, input_precision="ieee")
    if HAS_BIAS:
        v17 = tl.load(conv_transpose_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v17
    tl.store(out_ptr + o1 * (out_channels * out_x_d2 * out_x_d3) + offs_n * (out_x_d2 * out_x_d3) + o2 * out_x_d3 + o3, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose_weight, conv_transpose_stride, conv_transpose_dilation, conv_transpose_padding, conv_transpose_output_padding, conv_transpose_bias):
    x_d0, x_d1, x_d2, x_d3 = x.shape
    _, out_channels, kernel_h, kernel_w = conv_transpose_weight.shape
    stride_h, stride_w = conv_transpose_stride
    dilation_h, dilation_w = conv_transpose_dilation
    padding_h, padding_w = conv_transpose_padding
    output_padding_h, output_padding_w = conv_transpose_output_padding
    out_x_d2 = (x_d2 - 1) * stride_h - 2 * padding_h + dilation_h * (kernel_h - 1) + output_padding_h + 1
    out_x_d3 = (x_d3 - 1) * stride_w - 2 * padding_w + dilation_w * (kernel_w - 1) + output_padding_w + 1
    out = torch.empty((x_d0, out_channels, out_x_d2, out_x_d3), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, conv_transpose_weight, conv_transpose_bias, out, x_d0 * out_x_d2 * out_x_d3, out_channels, x_d1 * kernel_h * kernel_w, x_d1, x_d2, x_d3, out_channels, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w, out_x_d2, out_x_d3, HAS_BIAS=conv_transpose_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out


@triton.jit
def triton_2_kernel(v0_ptr, conv_transpose_weight_ptr, conv_transpose_bias_ptr, out_ptr, M, N, K, out_channels: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_x_d2: tl.constexpr, out_x_d3: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // (out_x_d2 * out_x_d3)
    o2 = (offs_m // out_x_d3) % out_x_d2
    o3 = offs_m % out_x_d3
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k4 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        tp5 = o2 + padding - k4 * dilation
        ip6 = tp5 // stride
        ok7 = ((tp5 >= 0) & (ip6 < x_d2) & (tp5 % stride == 0))
        i8 = ip6 // out_width
        i9 = ip6 % out_width
        v10 = tl.load(v0_ptr + o1 * (out_channels * out_x_d2 * out_x_d3) + k3 * (out_x_d2 * out_x_d3) + i8 * out_x_d3 + ip6, mask=mask_ka & mask_m & ok7, other=0.0)
        a11 = tl.where(mask_m & mask_ka & ok7, v10, 0.0)
        w13 = tl.load(conv_transpose1d_weight_ptr + wc15 * (out_x_d2 * out_x_d3) + o2 * out_x_d3 + o3, acc, mask=mask_m & mask_n)


def launch_triton_2(v0, conv_transpose_weight, conv_transpose_stride, conv_transpose_dilation, conv_transpose_padding, conv_transpose_output_padding, conv_transpose_bias):
    x_d0, out_channels, out_x_d2 * out_x_d3)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3) + o2 * out_x_d3 + o3, acc, mask=mask_m & mask_n)


def launch_triton_2(v0, conv_transpose_weight, conv_transpose_stride, conv_transpose_stride, conv_transpose_padding, conv_transpose_output_padding, conv_transpose_bias):
    x_d0, out_channels, out_x_d2 * out_x_d3, out_x_d1, out_x_d2, out_x_d3), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3, out_x_d2, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_2_kernel[grid](v0, conv_transpose_weight, conv_transpose_bias, out, x_d0 * out_x_d2 * out_x_d3, out_channels, x_d1, out_x_d3, out_channels, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w, out_x_d2, out_x_d3, out_height, dim2, out_channels, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_wout_x_d3, out_height, dim2, out_channels, stride_h, stride_w, dilation_h, dilation_w, kernel_h, kernel_wout_x_d3, out_height, out_x_d2, out_x_d3, out_channels3 * out_x_d3, out_x_d2, out_x_d3, out_channels3, out_depth, out_height, out_width, out_channels3, out_depth, out_height, out_width, out_channels3 * out_x_d3, out_ch, groups_2) + offs_ka, mask=mask_ka & mask_m & ok7, other=0.0)
        a10 = tl.where(mask_m & mask_ka & ok6, v9, 0.0)
    avg10launch_triton_3(v0, conv_transpose_weight_ptr + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) * kernel_h * kernel_w, out_channels, kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) * kernel_h * kernel_w, out_channels, kernel_h_2 * kernel_w_2) + offs_kb % (kernel_h_2 * kernel_w_2) * kernel_h * kernel_w) + offs_kb % (kernel_h_2 * kernel_w_2) * kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a14, w16, input_precision="ieee")
    if HAS_BIAS:
        v17 = tl.load(conv_transpose_bias_ptr + group * (out_channels2 // groups) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v17
    tl.store(out_ptr + o1 * (out_channels2 * out_x_d1 = conv_transpose_weight_d1 * out_dim2_2 * out_dim2_2 * out_dim2_2 * out_dim2_2 * out_dim2 - 1) * stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w, out_x_d2, out_x_d3, out_channels2, kernel_h_2, padding
    output_padding
    out_x_d2 = (x_d2 - 1) * stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w = conv_transpose_weight.shape
    stride_h, stride_w = conv_transpose_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out


@triton.jit
def triton_3_kernel(v2_ptr, conv_transpose_weight_ptr, conv_transpose_bias_ptr, out_ptr, M, N, K, out_channels2: tl.constexpr, groups: tl.constexpr, groups_2: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_channels2 * out_width)
    o2 = (offs_m // out_width_2) % out_width
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_size
        k4 = offs_ka % kernel_size
        tp5 = o2 + padding - k4 * dilation
        ip6 = tp5 // stride
        ok7 = ((tp5 >= 0) & (ip6 < (out_x_d2 * out_x_d3) + k3
        ip6 = tp5 // stride
        ok7 = ((tp5 >= 0) & (ip6 < (out_x_d2 * out_x_d3) + k3
        ip6 = tp5 // stride
        ok7 = ((tp5 >= 0) & (ip6 < (out_x_d2 * out_x_d3) + k3 * (out_x_d2 * out_x_d3)


def launch_triton_2(v2, W):
    x_d0, out_channels, out_x_d2, out_x_d3 = v0.shape
    out_features, _ = conv_transpose2_padding, conv_transpose2_output_padding, conv_transpose2_3, kernel_h_2 * kernel_w_2), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3, meta['BLOCK_M']), triton.cdiv(out_channels2, meta['BLOCK_N']))
    triton_3_kernel[grid](v2, conv_transpose_weight, conv_transpose2_bias, out, x_d0 * out_x_d2 * out_x_d3, out_channels, kernel_h_2 * kernel_w_2), device=v2.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_width, meta['BLOCK_M']), triton.cdiv(out_channels2, meta['BLOCK_N']))
    triton_3_kernel[grid](v2, conv_transpose_weight, conv_transpose2_bias, out, x_d0 * out_x_d2 * out_x_d3, out_channels, kernel_h_2 * kernel_w_2) * kernel_size, out_channels, out_x_d2, out_x_d3, out_channels2, kernel_h_2 * kernel_w_2) * kernel_size, out_x_d2 * out_x_d3)
        m2 = offs_m % out_x_d3, out_channels2, kernel_h_2 * kernel_w_2) * kernel_size, out_width, out_channels2, out_channels * kernel_h_2 * kernel_w_2) * kernel_size_2, out_channels, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w, out_x_d2, out_x_d3, out_channels2, kernel_h_2 * kernel_w_2) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a14, w16, input_precision="ieee")
    if HAS_BIAS:
        v12 = tl.load(conv_transpose2_bias_ptr + out_channels2 * out_width, out_channels2, kernel_h_2 * kernel_w_2) + offs_n, mask=mask_n, other=0.0)
        acc = acc + v17
    tl.store(out_ptr + o1 * (out_channels2 * out_width) + offs_n * out_width + o2, acc, mask=mask_m & mask_n)


def launch_triton_2(v0, conv_transpose2_weight, conv_transpose2_stride, conv_transpose_stride, conv_transpose_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
