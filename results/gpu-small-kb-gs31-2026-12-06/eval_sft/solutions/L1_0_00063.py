import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(12, 2, 12, kernel_size=3, stride=2, padding=1, bias=False)

    def forward(self, x):
        v0 = launch_triton(x, self.conv.weight, self.conv.stride, self.conv.dilation, self.conv.padding, self.conv.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_weight_ptr, conv_bias_ptr, out_ptr, M, N, K, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, conv_weight_d0: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_x_d2: tl.constexpr, out_x_d3: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
        ip7 = o2 * stride_h - padding_h + k5 * dilation_h
        ok8 = ((ip7 >= 0) & (ip7 < x_d2))
        ip9 = o3 * stride_w - padding_w + k6 * dilation_w
        ok10 = ((ip9 >= 0) & (ip9 < x_d3))
        x11 = tl.load(x_ptr + o1 * (x_d1 * x_d2 * x_d3) + k4 * (x_d2 * x_d3) + ip7 * x_d3 + ip9, mask=mask_ka & mask_m & ok8 & ok10, other=0.0)
        a12 = tl.where(mask_m & mask_ka & ok8 & ok10, x11, 0.0)
        w13 = tl.load(conv_weight_ptr + offs_n * (x_d1 * kernel_h * kernel_w) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a12, w13, input_precision="ieee")
    if HAS_BIAS:
        v14 = tl.load(conv_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v14
    tl.store(out_ptr + o1 * (conv_weight_d0 * out_x_d2 * out_x_d3) + offs_n * (out_x_d2 * out_x_d3) + o2 * out_x_d3 + o3, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_weight, conv_stride, conv_dilation, conv_padding, conv_bias):
    x_d0, x_d1, x_d2, x_d3 = x.shape
    conv_weight_d0, _, kernel_h, kernel_w = conv_weight.shape
    stride_h, stride_w = conv_stride
    dilation_h, dilation_w = conv_dilation
    padding_h, padding_w = conv_padding
    out_x_d2 = (x_d2 + 2 * padding_h - dilation_h * (kernel_h - 1) - 1) // stride_h + 1
    out_x_d3 = (x_d3 + 2 * padding_w - dilation_w * (kernel_w - 1) - 1) // stride_w + 1
    out = torch.empty((x_d0, conv_weight_d0, out_x_d2, out_x_d3), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * out_x_d2 * out_x_d3, meta['BLOCK_M']), triton.cdiv(conv_weight_d0, meta['BLOCK_N']))
    triton_kernel[grid](x, conv_weight, conv_bias, out, x_d0 * out_x_d2 * out_x_d3, conv_weight_d0, x_d1 * kernel_h * kernel_w, x_d1, x_d2, x_d3, conv_weight_d0, stride_h, stride_w, dilation_h, dilation_w, padding_h, padding_w, kernel_h, kernel_w, out_x_d2, out_x_d3, HAS_BIAS=conv_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
