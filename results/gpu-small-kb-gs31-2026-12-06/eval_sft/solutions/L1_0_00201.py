import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(3, 3, stride=1, padding=1, bias=False)

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose1d.weight, self.conv_transpose1d.stride, self.conv_transpose1d.dilation, self.conv_transpose1d.padding, self.conv_transpose1d.output_padding, self.conv_transpose1d.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, conv_transpose1d_weight_ptr, conv_transpose1d_bias_ptr, out_ptr, M, N, K, channels: tl.constexpr, seq_len: tl.constexpr, conv_transpose1d_weight_d1: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_seq_len: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_seq_len
    o2 = offs_m % out_seq_len
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
        ok7 = ((tp5 >= 0) & (ip6 < seq_len) & (tp5 % stride == 0))
        x8 = tl.load(x_ptr + o1 * (channels * seq_len) + k3 * seq_len + ip6, mask=mask_ka & mask_m & ok7, other=0.0)
        a9 = tl.where(mask_m & mask_ka & ok7, x8, 0.0)
        wc10 = offs_kb // kernel_size
        w11 = tl.load(conv_transpose1d_weight_ptr + wc10 * (conv_transpose1d_weight_d1 * kernel_size) + offs_n * kernel_size + offs_kb % kernel_size, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a9, w11, input_precision="ieee")
    if HAS_BIAS:
        v12 = tl.load(conv_transpose1d_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v12
    tl.store(out_ptr + o1 * (conv_transpose1d_weight_d1 * out_seq_len) + offs_n * out_seq_len + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, conv_transpose1d_weight, conv_transpose1d_stride, conv_transpose1d_dilation, conv_transpose1d_padding, conv_transpose1d_output_padding, conv_transpose1d_bias):
    batch_size, channels, seq_len = x.shape
    _, conv_transpose1d_weight_d1, kernel_size = conv_transpose1d_weight.shape
    stride = conv_transpose1d_stride[0]
    dilation = conv_transpose1d_padding[0]
    output_padding = conv_transpose1d_output_padding[0]
    out_seq_len = (seq_len - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1
    out = torch.empty((batch_size, conv_transpose1d_weight_d1, out_seq_len), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_seq_len, meta['BLOCK_M']), triton.cdiv(conv_transpose1d_weight_d1, meta['BLOCK_N']))
    triton_kernel[grid](x, conv_transpose1d_weight, conv_transpose1d_bias, out, batch_size * out_seq_len, conv_transpose1d_weight_d1, channels * kernel_size, channels, seq_len, conv_transpose1d_weight_d1, stride, dilation, padding, kernel_size, out_seq_len, HAS_BIAS=conv_transpose1d_bias is not None, BLOCK_M=64, BLOCK_N=16, BLOCK_K=16)
    return out
