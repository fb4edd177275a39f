import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_channels: int, out_ch: int, kernel_size: int, stride: int, padding: int, output_padding: int, groups: int, bias: bool, dilation: int=0):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(input_channels, out_ch, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias, dilation=dilation)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose.weight, self.conv_transpose.stride, self.conv_transpose.dilation, self.conv_transpose.padding, self.conv_transpose.output_padding, self.conv_transpose.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_transpose_weight_ptr, conv_transpose_bias_ptr, out_ptr, M, N, K, x_d1: tl.constexpr, x_d2: tl.constexpr, out_ch: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_x_d2: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_x_d2
    o2 = offs_m % out_x_d2
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // kernel_w
        k4 = offs_ka % kernel_w
        tp5 = o2 + padding - k4 * dilation
        ip6 = tp5 // stride
        ok7 = ((tp5 >= 0) & (ip6 < x_d2) & (tp5 % stride_h == 0))
        tp8 = o3 + padding_w
        ip9 = tp8 // stride_w
        ok10 = ((tp8 >= 0) & (ip9 < x_d2) & (tp8 % stride_w == 0))
        x11 = tl.load(x_ptr + o1 * (x_d1 * x_d2 * x_d2) + offs_ka * (x_d2 * x_d2) + ip5 * x_d2 + ip9, mask=mask_ka & mask_m & ok7 & ok10, other=0.0)
        a12 = tl.where(mask_m & mask_ka & ok7 & ok10, x11, 0.0)
        wc13 = offs_kb // (kernel_h * kernel_w)
        w12 = tl.load(conv_transpose_weight_ptr + wc13 * (out_ch * kernel_h * kernel_w) + offs_n * (kernel_h * kernel_w) + offs_kb % (kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a12, w13, input_precision="ieee")
    v14 = tl.load(conv_transpose_bias_ptr + offs_n, mask=mask_n, other=0.0)
    acc15 = acc + v14
    tl.store(out_ptr + o1 * (out_ch * out_x_d2 * out_x_d2) + offs_n * (out_x_d2 * out_x_d2) + o2 * out_x_d2 + o3, acc14, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose_weight, conv_transpose_stride, conv_transpose_dilation, conv_transpose_padding, conv_transpose_output_padding, conv_transpose_bias):
    x_d0, x_d1, x_d2, _ = x.shape
    _, out_ch, kernel_h, kernel_w = conv_transpose_weight.shape
    stride_h, stride_w = conv_transpose_stride
    dilation_h, dilation_w = conv_transpose_dilation
    padding_h, padding_w = conv_transpose_padding
    output_padding_h, output_padding_w = conv_transpose_output_padding
    out_x_d2 = (x_d2 - 1) * stride_h - 2 * padding_h + dilation_h * (kernel_h - 1) + output_padding_h + 1
    out_x_d2 = (x_d2 - 1) * stride_w - 2 * padding_w + dilation_w * (kernel_w - 1) + output_padding_w + 1
    out = torch.empty((x_d0, out_ch, out_x_d2, out_x_d2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d2, meta['BLOCK_M']), triton.cdiv(out_ch, meta['BLOCK_N']))
    triton_kernel[grid](x, conv_transpose_weight, conv_transpose_bias, out, x_d0 * out_x_d2 * out_ch, out_x_d2 * kernel_h * kernel_w, x_d1, x_d2, out_ch, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w, out_x_d2, out_x_d2, BLOCK_M=128, BLOCK_N=16, BLOCK_K=16)
    return out
