import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv3d(2, 2, 1, 1, stride=1, groups=2, bias=True)

    def forward(self, x):
        v0 = launch_triton(x, self.conv1.weight, self.conv1.stride, self.conv1.dilation, self.conv1.padding, self.conv1.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv1_weight_ptr, conv1_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, conv1_weight_d0: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
        ip9 = o2 * stride_d - padding_d + k6 * dilation_d
        ok10 = ((ip9 >= 0) & (ip9 < depth))
        ip11 = o3 * stride_h - padding_h + k7 * dilation_h
        ok12 = ((ip11 >= 0) & (ip11 < height))
        ip13 = o4 * stride_w - padding_w + k8 * dilation_w
        ok14 = ((ip13 >= 0) & (ip13 < width))
        x15 = tl.load(x_ptr + o1 * (in_channels * depth * height * width) + k5 * (depth * height * width) + ip9 * (height * width) + ip11 * width + ip13, mask=mask_ka & mask_m & ok10 & ok12 & ok14, other=0.0)
        a16 = tl.where(mask_m & mask_ka & ok10 & ok12 & ok14, x15, 0.0)
        w17 = tl.load(conv1_weight_ptr + offs_n * (in_channels * kernel_d * kernel_h * kernel_w) + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a16, w17, input_precision="ieee")
    if HAS_BIAS:
        v18 = tl.load(conv1_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v18
    tl.store(out_ptr + o1 * (conv1_weight_d0 * out_depth * out_height * out_width) + offs_n * (out_depth * out_height * out_width) + o2 * (out_height * out_width) + o3 * out_width + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, conv1_weight, conv1_stride, conv1_dilation, conv1_padding, conv1_bias):
    batch_size, in_channels, depth, height, width = x.shape
    conv1_weight_d0, _, kernel_d, kernel_h, kernel_w = conv1_weight.shape
    stride_d, stride_h, stride_w = conv1_stride
    dilation_d, dilation_h, dilation_w = conv1_dilation
    padding_d, padding_h, padding_w = conv1_padding
    out_depth = (depth + 2 * padding_d - dilation_d * (kernel_d - 1) - 1) // stride_d + 1
    out_height = (height + 2 * padding_h - dilation_h * (kernel_h - 1) - 1) // stride_h + 1
    out_width = (width + 2 * padding_w - dilation_w * (kernel_w - 1) - 1) // stride_w + 1
    out = torch.empty((batch_size, conv1_weight_d0, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_depth * out_height * out_width, meta['BLOCK_M']), triton.cdiv(conv1_weight_d0, meta['BLOCK_N']))
    triton_kernel[grid](x, conv1_weight, conv1_bias, out, batch_size * out_depth * out_height * out_width, conv1_weight_d0, in_channels * kernel_d * kernel_h * kernel_w, in_channels, depth, height, width, conv1_weight_d0, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, kernel_d, kernel_h, kernel_w, out_depth, out_height, out_width, HAS_BIAS=conv1_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
