import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduction_dim, other_shape):
        super().__init__()
        self.other = nn.Parameter(torch.randn(other_shape))
        self.reduction_dim = reduction_dim

    def forward(self, x, , other, key, value):
        v1 = launch_triton(x, self.other)
        v2 = launch_triton_2(v1)
        return v2


@triton.jit
def triton_kernel(x_ptr, other_ptr, key_ptr, value_ptr, out_ptr, seq_q, seq_k, in_channels: tl.constexpr, dim1: tl.constexpr, dim2: tl.constexpr, in_channels: tl.constexpr, dim1: tl.constexpr, dim2: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // in_channels
    h = pid_bh % in_channels
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_d = tl.arange(0, BLOCK_D)[None, :]
    offs_dt = tl.arange(0, BLOCK_D)[:, None]
    mask_m = offs_m < seq_q
    mask_d = offs_d < dim2
    mask_dt = offs_dt < dim2
    x1 = tl.load(x_ptr + b * (in_channels * dim1 * dim2) + h * (dim1 * dim2) + offs_m * dim2 + offs_d, mask=mask_d & mask_m, other=0.0)
    o2 = tl.load(other_ptr + (o2) + offs_m * dim2 + offs_d, mask=mask_d & mask_m, other=0.0)
    y3 = x1 / o2 + o4
    m_i = tl.full([BLOCK_M, 1], float('-inf'), tl.float32)
    l_i = tl.zeros([BLOCK_M, 1], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start in range(0, seq_k, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)[None, :]
        offs_nv = start + tl.arange(0, BLOCK_N)[:, None]
        mask_n = offs_n < seq_k
        mask_nv = offs_nv < seq_k
        k3 = tl.load(key_ptr + b * (in_channels * dim1 * dim2) + h * (dim1 * dim2) + offs_n * dim2 + offs_dt, mask=mask_dt & mask_n, other=0.0)
        kt = tl.where(mask_dt & mask_n, k3, 0.0)
        scores = tl.where(mask_n, tl.dot(q, kt, input_precision="ieee"), float('-inf'))
        v4 = tl.load(value_ptr + b * (in_channels * dim1 * dim2) + h * (dim1 * dim2) + offs_nv * dim2 + offs_d, mask=mask_d & mask_nv, other=0.0)
        vt = tl.where(mask_nv & mask_d, v4, 0.0)
        m_new = tl.maximum(m_i, tl.max(scores, axis=1, keep_dims=True))
        p = tl.exp(scores - m_new)
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1, keep_dims=True)
        acc = acc * alpha + tl.dot(p, vt, input_precision="ieee")
        m_i = m_new
    o5 = acc / l_i
    tl.store(out_ptr + b * (in_channels * dim1 * dim2) + h * (dim1 * dim2) + offs_m * dim2 + offs_d, o5, mask=mask_d & mask_m)


def launch_triton(x, target, key, value):
    batch_size, in_channels, dim1, dim2 = x.shape
    _, in_channels, dim1, _ = key.shape
    _, in_channels, dim1, dim2 = value.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(dim1, meta['BLOCK_M']), batch_size * in_channels)
    triton_kernel[grid](x, other, key, value, out, dim1, height2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, height2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, height2, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, height2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, dim1, dim2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, 
        k5 = tl.load(v0_ptr
    return out

    def forward(self, x):
        v0 = launch_triton(x, target, in_channels
    return out


@triton.jit
def triton_2key_d2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, 
    return out

    def forward(self, x):
        v0 = launch_triton(x, target, in_channels
    return out


@triton.jit
def triton_kernel(x_ptr
    return out


@triton.jit
def triton_2keyin_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, height2, in_channels, 
    return out
    return out
    return out
    return out
    return out
    return out
    return out
    return out
    return out
    return out
    return out
    return out
    return out

    def forward(self, x):
        v0 = launch_triton
    return out
    return out
    return out
    return out
    return out
    return out


@triton.jit
def triton_2
    return out
    return out

@triton.jit
def triton_2
    return out
    return out
