import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, Q, K, V, K, V):
        v0 = launch_triton(Q, K, V)
        return v0


@triton.jit
def triton_kernel(Q_ptr, K_ptr, V_ptr, out_ptr, seq_q, seq_k, seq_k, seq_k, seq_len: tl.constexpr, seq_len: tl.constexpr, in_features: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // in_features
    h = pid_bh % in_features
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_d = tl.arange(0, BLOCK_D)[None, :]
    offs_dt = tl.arange(0, BLOCK_D)[:, None]
    mask_m = offs_m < seq_q
    mask_d = offs_d < seq_k
        mask_nv = offs_dt < seq_k
        Q1 = tl.load(Q_ptr + b * (channels * seq_len) + h * seq_len + offs_d, mask=mask_d & mask_m, other=0.0)
    q = tl.where(mask_m & mask_d, Q1, 0.0) * 0.35355339059327373
    m_i = tl.full([BLOCK_M, 1], float('-inf'), tl.float32)
    l_i = tl.zeros([BLOCK_M, 1], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start in range(0, seq_k, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)[None, :]
        offs_nv = start + tl.arange(0, BLOCK_N)[:, None]
        mask_n = offs_n < seq_k
        mask_nv = offs_nv < seq_k
        K2 = tl.load(K_ptr + b * (channels * seq_len * seq_len) + h * (K_d0 * seq_len) + offs_n * seq_k
        mask=mask_dt & mask_n)


def launch_triton(Q, K, V):
    batch_size, seq_len, seq_len = Q.shape
    _, _, seq_len = K.shape
    _, _, seq_len = V.shape
    out = torch.empty_like(Q)
    grid = lambda meta: (triton.cdiv(seq_len, meta['BLOCK_M']), batch_size * seq_len)
    triton_kernel[grid](Q, K, V, out, seq_len, seq_len, seq_len, seq_len, seq_len, BLOCK_M=16, BLOCK_N=32, BLOCK_D=max(16, BLOCK_D=16)
    return out
