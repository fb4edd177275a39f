import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, Q, K, V):
        scaled_dot_product_attention_2 = einsum_mul(Q, K)
        scaled_dot_product_attention_3 = softmax(scaled_dot_product_attention_2)
        scaled_dot_product_attention = einsum(scaled_dot_product_attention_3, V)
        return scaled_dot_product_attention


@triton.jit
def a_split_bf16_kernel(q_ptr, lo_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    s1 = offs // 524288
    s2 = (offs // 1024) % 512
    s3 = offs % 1024
    b4 = s1 // 32
    b5 = s1 % 32
    q6 = tl.load(q_ptr + b4 * 16777216 + b5 * 524288 + s2 * 1024 + s3, mask=mask, other=0.0)
    hi = (q6).to(tl.bfloat16)
    tl.store(out_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, (q6 - hi.to(tl.float32)).to(tl.bfloat16), mask=mask)


@triton.jit
def b_split_bf16_kernel(k_ptr, lo_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    s1 = offs // 524288
    s2 = (offs // 1024) % 512
    s3 = offs % 1024
    b4 = s1 // 32
    b5 = s1 % 32
    k6 = tl.load(k_ptr + b4 * 16777216 + b5 * 524288 + s2 * 1024 + s3, mask=mask, other=0.0)
    hi = (k6).to(tl.bfloat16)
    tl.store(out_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, (k6 - hi.to(tl.float32)).to(tl.bfloat16), mask=mask)


@triton.jit
def einsum_mul_kernel(a_hi_ptr, a_lo_ptr, b_hi_ptr, b_lo_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    group_start = (pid // (GROUP_M * tiles_n)) * GROUP_M
    group_rows = tl.minimum(tiles_m - group_start, GROUP_M)
    pid_m = group_start + (pid % (GROUP_M * tiles_n)) % group_rows
    pid_n = (pid % (GROUP_M * tiles_n)) // group_rows
    pid_b = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_a = mask_m & (offs_ka < K)
        mask_b = (offs_kb < K) & mask_n
        a_off = pid_b * (M * K) + offs_m * K + offs_ka
        b_off = pid_b * (K * N) + offs_n * K + offs_kb
        a_hi = tl.load(a_hi_ptr + a_off, mask=mask_a, other=0.0)
        a_lo = tl.load(a_lo_ptr + a_off, mask=mask_a, other=0.0)
        b_hi = tl.load(b_hi_ptr + b_off, mask=mask_b, other=0.0)
        b_lo = tl.load(b_lo_ptr + b_off, mask=mask_b, other=0.0)
        acc = tl.dot(a_hi, b_lo, acc)
        acc = tl.dot(a_lo, b_hi, acc)
        acc = tl.dot(a_hi, b_hi, acc)
    b1 = pid_b // 32
    b2 = pid_b % 32
    y3 = acc * 0.03125
    tl.store(out_ptr + b1 * 8388608 + b2 * 262144 + offs_m * 512 + offs_n, y3, mask=mask_m & mask_n)


def einsum_mul(q, k):
    out = torch.empty((32, 32, 512, 512), device=q.device, dtype=torch.float32)
    a_hi = torch.empty((1024, 512, 1024), device=q.device, dtype=torch.bfloat16)
    a_lo = torch.empty_like(a_hi)
    a_split_bf16_kernel[(triton.cdiv(536870912, 2048),)](q, a_lo, a_hi, 536870912, BLOCK=2048, num_warps=4)
    b_hi = torch.empty((1024, 512, 1024), device=k.device, dtype=torch.bfloat16)
    b_lo = torch.empty_like(b_hi)
    b_split_bf16_kernel[(triton.cdiv(536870912, 2048),)](k, b_lo, b_hi, 536870912, BLOCK=2048, num_warps=4)
    grid = lambda meta: (triton.cdiv(512, meta['BLOCK_M']) * triton.cdiv(512, meta['BLOCK_N']), 1024)
    einsum_mul_kernel[grid](a_hi, a_lo, b_hi, b_lo, out, 512, 512, 1024, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)
    return out


@triton.jit
def softmax_kernel(scaled_dot_product_attention_2_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_COLS)[None, :]
    col_mask = cols < n_cols
    s4 = tl.load(scaled_dot_product_attention_2_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
    x5 = tl.where(row_mask & col_mask, s4, float('-inf'))
    m = tl.max(x5, axis=1, keep_dims=True)
    s = tl.sum(tl.exp(x5 - m), axis=1, keep_dims=True)
    y6 = tl.exp(x5 - m) / s
    tl.store(out_ptr + rows * n_cols + cols, y6, mask=col_mask & row_mask)


def softmax(scaled_dot_product_attention_2):
    out = torch.empty_like(scaled_dot_product_attention_2)
    grid = lambda meta: (triton.cdiv(524288, meta['BLOCK_ROWS']),)
    softmax_kernel[grid](scaled_dot_product_attention_2, out, 524288, 512, BLOCK_ROWS=8, BLOCK_COLS=512, num_warps=8)
    return out


@triton.jit
def a_split_bf16_2_kernel(scaled_dot_product_attention_3_ptr, lo_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    s1 = offs // 262144
    s2 = (offs // 512) % 512
    s3 = offs % 512
    b4 = s1 // 32
    b5 = s1 % 32
    s6 = tl.load(scaled_dot_product_attention_3_ptr + b4 * 8388608 + b5 * 262144 + s2 * 512 + s3, mask=mask, other=0.0)
    hi = (s6).to(tl.bfloat16)
    tl.store(out_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, (s6 - hi.to(tl.float32)).to(tl.bfloat16), mask=mask)


@triton.jit
def b_split_bf16_2_kernel(v_ptr, lo_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    s1 = offs // 524288
    s2 = (offs // 1024) % 512
    s3 = offs % 1024
    b4 = s1 // 32
    b5 = s1 % 32
    v6 = tl.load(v_ptr + b4 * 16777216 + b5 * 524288 + s2 * 1024 + s3, mask=mask, other=0.0)
    hi = (v6).to(tl.bfloat16)
    tl.store(out_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, (v6 - hi.to(tl.float32)).to(tl.bfloat16), mask=mask)


@triton.jit
def einsum_kernel(a_hi_ptr, a_lo_ptr, b_hi_ptr, b_lo_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    group_start = (pid // (GROUP_M * tiles_n)) * GROUP_M
    group_rows = tl.minimum(tiles_m - group_start, GROUP_M)
    pid_m = group_start + (pid % (GROUP_M * tiles_n)) % group_rows
    pid_n = (pid % (GROUP_M * tiles_n)) // group_rows
    pid_b = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_a = mask_m & (offs_ka < K)
        mask_b = (offs_kb < K) & mask_n
        a_off = pid_b * (M * K) + offs_m * K + offs_ka
        b_off = pid_b * (K * N) + offs_kb * N + offs_n
        a_hi = tl.load(a_hi_ptr + a_off, mask=mask_a, other=0.0)
        a_lo = tl.load(a_lo_ptr + a_off, mask=mask_a, other=0.0)
        b_hi = tl.load(b_hi_ptr + b_off, mask=mask_b, other=0.0)
        b_lo = tl.load(b_lo_ptr + b_off, mask=mask_b, other=0.0)
        acc = tl.dot(a_hi, b_lo, acc)
        acc = tl.dot(a_lo, b_hi, acc)
        acc = tl.dot(a_hi, b_hi, acc)
    b1 = pid_b // 32
    b2 = pid_b % 32
    tl.store(out_ptr + b1 * 16777216 + b2 * 524288 + offs_m * 1024 + offs_n, acc, mask=mask_m & mask_n)


def einsum(scaled_dot_product_attention_3, v):
    out = torch.empty_like(v)
    a_hi = torch.empty((1024, 512, 512), device=scaled_dot_product_attention_3.device, dtype=torch.bfloat16)
    a_lo = torch.empty_like(a_hi)
    a_split_bf16_2_kernel[(triton.cdiv(268435456, 512),)](scaled_dot_product_attention_3, a_lo, a_hi, 268435456, BLOCK=512, num_warps=4)
    b_hi = torch.empty((1024, 512, 1024), device=v.device, dtype=torch.bfloat16)
    b_lo = torch.empty_like(b_hi)
    b_split_bf16_2_kernel[(triton.cdiv(536870912, 1024),)](v, b_lo, b_hi, 536870912, BLOCK=1024, num_warps=4)
    grid = lambda meta: (triton.cdiv(512, meta['BLOCK_M']) * triton.cdiv(1024, meta['BLOCK_N']), 1024)
    einsum_kernel[grid](a_hi, a_lo, b_hi, b_lo, out, 512, 1024, 512, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)
    return out
