import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, channels_in: int, channels_out: int, kernel_size: int, padding: int):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(channels_in, out_channels=channels_out, kernel_size=kernel_size, bias=True)

    def forward(self, x):
        v0 = launch_triton(x, self.deconv.weight, self.deconv.stride, self.deconv.dilation, self.deconv.padding, self.deconv.output_padding, self.deconv.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, deconv_weight_ptr, deconv_bias_ptr, out_ptr, M, N, K, channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, channels_out: tl.constexpr, stride_d: tl.constexpr, stride_h: tl.constexpr, stride_w: tl.constexpr, dilation_d: tl.constexpr, dilation_h: tl.constexpr, dilation_w: tl.constexpr, padding_d: tl.constexpr, padding_h: tl.constexpr, padding_w: tl.constexpr, kernel_d: tl.constexpr, kernel_h: tl.constexpr, kernel_w: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
        tp9 = o2 + padding_d - k6 * dilation_d
        ip10 = tp9 // stride_d
        ok11 = ((tp9 >= 0) & (ip10 < depth) & (tp9 % stride_d == 0))
        tp12 = o3 + padding_h - k7 * dilation_h
        ip13 = tp12 // stride_h
        ok14 = ((tp12 >= 0) & (ip13 < height) & (tp12 % stride_h == 0))
        tp15 = o4 + padding_w - k8 * dilation_w
        ip16 = tp15 // stride_w
        ok17 = ((tp15 >= 0) & (ip16 < width) & (tp15 % stride_w == 0))
        x18 = tl.load(x_ptr + o1 * (channels * depth * height * width) + k5 * (depth * height * width) + ip10 * (height * width) + ip13 * width + ip16, mask=mask_ka & mask_m & ok11 & ok14 & ok17, other=0.0)
        a19 = tl.where(mask_m & mask_ka & ok11 & ok14 & ok17, x18, 0.0)
        wc20 = offs_kb // (kernel_d * kernel_h * kernel_w)
        w21 = tl.load(deconv_weight_ptr + wc20 * (output_channels * kernel_d * kernel_h * kernel_w) + offs_n * (kernel_d * kernel_h * kernel_w) + offs_kb % (kernel_d * kernel_h * kernel_w), mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a19, w21, input_precision="ieee")
    if HAS_BIAS:
        v22 = tl.load(deconv_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v22
    tl.store(out_ptr + o1 * (channels_out * out_depth * out_height * out_width) + offs_n * (out_depth * out_height * out_width) + o2 * (out_height * out_width) + o3 * out_width + o4, acc, mask=mask_m & mask_n)


def launch_triton(x, deconv_weight, deconv_stride, deconv_dilation, deconv_padding, deconv_output_padding, deconv_groups, deconv_bias):
    batch_size, channels, depth, height, width = x.shape
    _, out_channels_per_group, kernel_d, kernel_h, kernel_w = deconv_weight.shape
    stride_d, stride_h, stride_w = deconv_stride
    dilation_d, dilation_h, dilation_w = deconv_dilation
    padding_d, padding_h, padding_w = deconv_padding
    output_padding_d, output_padding_h, output_padding_w = deconv_output_padding
    out_depth = (depth - 1) * stride_d - 2 * padding_d + dilation_d * (kernel_d - 1) + output_padding_d + 1
    out_height = (height - 1) * stride_h - 2 * padding_h + dilation_h * (kernel_h - 1) + output_padding_h + 1
    out_width = (width - 1) * stride_w - 2 * padding_w + dilation_w * (kernel_w - 1) + output_padding_w + 1
    out = torch.empty((batch_size, channels_out, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_depth * out_height * out_width, meta['BLOCK_M']), triton.cdiv(channels_out // groups, meta['BLOCK_N']), groups)
    triton_kernel[grid](x, deconv_weight, deconv_bias, out, batch_size * out_depth * out_height * out_width, channels_out // groups, (channels // groups) * kernel_d * kernel_h * kernel_w, channels, depth, height, width, channels_out, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w, padding_d, padding_h, padding_w, kernel_d, kernel_h, kernel_w, out_depth, out_height, out_width, HAS_BIAS=deconv_bias is not None, BLOCK_M=128, BLOCK_N=16, BLOCK_K=64)
    return out
