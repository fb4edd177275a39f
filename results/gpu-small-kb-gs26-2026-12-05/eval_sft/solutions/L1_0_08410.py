import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding):
        super(ModelNew, self).__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=False)

    def forward(self, x):
        v0 = launch_triton(x, self.deconv.weight, self.deconv.stride, self.deconv.dilation, self.deconv.padding, self.deconv.output_padding, self.deconv.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, deconv_weight_ptr, deconv_bias_ptr, out_ptr, M, N, K, seq_len: tl.constexpr, dim2: tl.constexpr, out_channels: tl.constexpr, stride: tl.constexpr, dilation: tl.constexpr, padding: tl.constexpr, kernel_size: tl.constexpr, out_dim2: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_dim2
    o2 = offs_m % out_dim2
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
        ok7 = ((tp5 >= 0) & (ip6 < dim2) & (tp5 % stride == 0))
        x8 = tl.load(x_ptr + o1 * (seq_len * dim2) + k3 * dim2 + ip6, mask=mask_ka & mask_m & ok7, other=0.0)
        a9 = tl.where(mask_m & mask_ka & ok7, x8, 0.0)
        wc10 = offs_kb // kernel_size
        w11 = tl.load(deconv_weight_ptr + wc10 * (out_channels * kernel_size) + offs_n * kernel_size + offs_kb % kernel_size, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a9, w11, input_precision="ieee")
    if HAS_BIAS:
        v12 = tl.load(deconv_bias_ptr + offs_n, mask=mask_n, other=0.0)
        acc = acc + v12
    tl.store(out_ptr + o1 * (out_channels * out_dim2) + offs_n * out_dim2 + o2, acc, mask=mask_m & mask_n)


def launch_triton(x, deconv_weight, deconv_stride, deconv_dilation, deconv_padding, deconv_output_padding, deconv_bias):
    batch_size, seq_len, dim2 = x.shape
    _, out_channels, kernel_size = deconv_weight.shape
    stride = deconv_stride[0]
    dilation = deconv_dilation[0]
    padding = deconv_padding[0]
    output_padding = deconv_output_padding[0]
    out_dim2 = (dim2 - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1
    out = torch.empty((batch_size, out_channels, out_dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * out_dim2, meta['BLOCK_M']), triton.cdiv(out_channels, meta['BLOCK_N']))
    triton_kernel[grid](x, deconv_weight, deconv_bias, out, batch_size * out_dim2, out_channels, seq_len * kernel_size, seq_len, dim2, out_channels, stride, dilation, padding, kernel_size, out_dim2, HAS_BIAS=deconv_bias is not None, BLOCK_M=64, BLOCK_N=16, BLOCK_K=16)
    return out
