import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose.weight, self.conv_transpose.stride, self.conv_transpose.dilation, self.conv_transpose.padding, self.conv_transpose.output_padding, self.conv_transpose.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_transpose_weight_ptr, conv_transpose_bias_ptr, out_ptr, M, N, K, x_d0: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, x_d4: tl.constexpr, out_channels: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_x_d2: tl.constexpr, out_x_d3: tl.constexpr, out_x_d4: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
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
        tp9 = o2 + padding_d - k6 * dilation_d
        ip10 = tp9 // stride_d
        ok11 = ((tp9 >= 0) & (ip10 < x_d2) & (tp9 % stride_d == 0))
        tp12 = o3 + padding_h - k7 * dilation_h
        ip13 = tp12 // stride_h
        ok14 = ((tp12 >= 0) & (ip13 < x_d3) & (tp12 % stride_h == 0))
        tp15 = o4 + padding_w - k8 * dilation_w
        ip16 = tp15 // stride_w
        ok17 = ((tp15 >= 0) & (ip16 < x_d4) & (tp15 % stride_w == 0))
        x18 = tl.load(x_ptr + o1 * (x_d1 * x_d2 * x_d3 * x_d4) + k5 * (x_d2 * x_d3 * x_d4) + ip10 * (x_d3 * x_d4) + ip13 * x_d4 + ip16, mask=mask_ka & mask_m & ok11 & ok14 & ok17, other=0.0)
        a19 = tl.where(mask_m & mask_ka & ok11 & ok14 & ok17, x18, 0.0)
        wc20 = offs_kb // (kernel_d * kernel_h * kernel_w)
        w21 = tl.load(conv_transpose_weight_ptr + wc20 * (out_channels * kernel_d * kernel_h * kernel_w) + offs_n * (kernel_d * kernel_h * kernel_w) + offs_kb % (kernel_d * kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a19, w21, input_precision="ieee")
    if HAS_BIAS:
        v22 = tl.load(conv_transpose_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v22
    tl.store(out_ptr + o1 * (out_channels * out_x_d2 * out_x_d3 * out_x_d4) + offs_n * (out_x_d2 * out_x_d3 * out_x_d4) + o2 * (out_x_d3 * out_x_d4) + o3 * out_x_d4 + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose_weight, conv_transpose_stride, conv_transpose_dilation, conv_transpose_padding, conv_transpose_output_padding, conv_transpose_bias):
    x_d0, x_d1, x_d2, x_d3, x_d4 = x.shape
    _, out_channels, kernel_d, kernel_h, kernel_w = conv_transpose_weight.shape
    stride_d, stride_h, stride_w = conv_transpose_stride
    dilation_d, dilation_h, dilation_w = conv_transpose_dilation
    padding_d, padding_h, padding_w = conv_transpose_padding
    output_padding_d, output_padding_h, output_padding_w = conv_transpose_output_padding
    out_x_d2 = (x_d2 - 1) * stride_d - 2 * padding_d + dilation_d * (kernel_d - 1) + output_padding_d + 1
    out_x_d3 = (x_d3 - 1) * stride_h - 2 * padding_h + dilation_h * (kernel_h - 1) + output_padding_h + 1
    out_x_d4 = (x_d4 - 1) * stride_w - 2 * padding_w + dilation_w * (kernel_w - 1) + output_padding_w + 1
    out = torch.empty((x_d0, out_channels, out_x_d2, out_x_d3, out_x_d4), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3 * out_x_d4, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, conv_transpose_weight, conv_transpose_bias, out, x_d0 * out_x_d2 * out_x_d3 * out_x_d4, out_channels, x_d1 * kernel_d * kernel_h * kernel_w, x_d1, x_d2, x_d3, x_d4, out_channels, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, kernel_d, kernel_h, kernel_w, out_x_d2, out_x_d3, out_x_d4, HAS_BIAS=conv_transpose_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
