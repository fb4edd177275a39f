import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduction_dim, channels, other_shape):
        super().__init__()
        self.reduction_dim = reduction_dim

    def forward(self, x, key, value, value, value, padding=0):
        super().__init__()
        self.reduction_dim = reduction_dim
        self.reduction_dim = reduction_dim

    def forward(self, x, y, key, value):
        v1 = launch_triton(x, y, key, value)
        v2 = launch_triton_2(v1, key, value)
        return v2


@triton.jit
def triton_kernel(x_ptr, key_ptr, value_ptr, out_ptr, seq_q, seq_k, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // in_channels
    h = pid_bh % in_channels
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_d = tl.arange(0, BLOCK_D)[None, :]
    offs_dt = tl.arange(0, BLOCK_D)[:, None]
    mask_m = offs_m < seq_q
    mask_d = offs_d < width
    mask_dt = offs_dt < width
    x1 = tl.load(x_ptr + b * (in_channels * height * width) + h * (height * width) + offs_m * width + offs_d, mask=mask_d & mask_m, other=0.0)
    q = tl.where(mask_m & mask_d, x1, 0.0) * 0.35355339059327373
    m_i = tl.full([BLOCK_M, 1], float('-inf'), tl.float32)
    l_i = tl.zeros([BLOCK_M, 1], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start in range(0, seq_k, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)[None, :]
        offs_nv = start + tl.arange(0, BLOCK_N)[:, None]
        mask_n = offs_n < seq_k
        mask_nv = offs_nv < seq_k
        k3 = tl.load(key_ptr + b * (channels * height * width) + h * (height * width) + offs_n * width + offs_dt, mask=mask_dt & mask_n, other=0.0)
        kt = tl.where(mask_dt & mask_n, k3, 0.0)
        scores = tl.where(mask_n, tl.dot(q, kt, input_precision="ieee"), float('-inf'))
        v4 = tl.load(value_ptr + b * (in_channels * height * width) + h * (height * width) + offs_nv * width + offs_d, mask=mask_d & mask_nv, other=0.0)
        vt = tl.where(mask_nv & mask_d, v4, 0.0)
        m_new = tl.maximum(m_i, tl.max(scores, axis=1, keep_dims=True))
        p = tl.exp(scores - m_new)
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1, keep_dims=True)
        acc = acc * alpha + tl.dot(p, vt, input_precision="ieee")
        m_i = m_new
    o4 = acc / l_i
    tl.store(out_ptr + b * (in_channels * height * width) + h * (height * width) + offs_m * width + offs_d, o4, mask=mask_d & mask_m)


def launch_triton(x, key, value):
    batch_size, in_channels, height, width = x.shape
    _, in_channels, height, width = key.shape
    _, in_channels, height, width = key.shape
    _, _, _, dim2 = value.shape
    out = torch.empty_like(Q)
    grid = lambda meta: (triton.cdiv(height, meta['BLOCK_M']), batch_size * in_channels)
    triton_kernel[grid](Q, K, value, out, height, height, in_channels, height, width, in_channels, height, width, BLOCK_M=16, BLOCK_N=32, BLOCK_D=max(16, triton.next_power_of_2(width)))
    return out


@triton.jit
def triton_2_kernel(v1_ptr, key_ptr, value_ptr, out_ptr + offs,m, mask=mask_d0: tl.0, v2, width, in_channels, dim1, width = v0.shape
    _, in_channels, height, width = key.shape
    _, in_channels, height, width = key_factor
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK_M']), batch_size * in_channels)
    triton_2_kernel[grid](v1, key, value, out, height, dim1_2, in_channels, height, width, in_channels, height, width, BLOCK_M=16, BLOCK_N=64, BLOCK_D=max(16, triton.next_power_of_2(width)))
    return out
