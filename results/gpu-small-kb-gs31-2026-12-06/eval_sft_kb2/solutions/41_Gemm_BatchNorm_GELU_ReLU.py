import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.batch_norm = nn.BatchNorm1d(out_features)
        self.batch_norm = nn.BatchNorm1d(out_features)

    def forward(self, x):
        v0 = launch_triton(x, self.batch_norm.weight, self.batch_norm.bias)
        v2 = launch_triton_2(v0)
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.gemm(v2)
        return v3


@triton.jit
def triton_kernel(x_ptr, batch_norm_weight_ptr, batch_norm_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, channels: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + cols * 4 + rows, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, x1, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x2, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x2 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / batch_size + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x3 = tl.load(x_ptr + cols * features + rows, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, 0.0)
        y5 = (x4 - mean) * rstd
        b6 = tl.load(batch_norm_weight_ptr + rows, mask=row_mask, other=0.0)
        b7 = tl.load(batch_norm_bias_ptr + rows, mask=row_mask, other=0.0)
        y8 = y5 * b6 + b7
        tl.store(out_ptr + cols * features + rows, y8, mask=col_mask & row_mask)


def launch_triton(x, batch_norm_weight, batch_norm_bias):
    batch_size, _ = v0.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, batch_norm_weight, batch_norm_bias, out, features, batch_size, batch_size, features, BLOCK_ROWS=16, BLOCK_COLS=2)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v1_ptr + cols * 54 + rows, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x2, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x2 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / batch_size + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v1_ptr + cols * 54 + rows, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        y5 = (x4 - mean) * rstd
        b6 = tl.load(batch_norm_weight_ptr + rows, mask=row_mask, other=0.0)
        b7 = tl.load(batch_norm_bias_ptr + rows, mask=row_mask, other=0.0)
        y8 = y5 * b6 + b7
        tl.store(out_ptr + cols * 6 + rows, y8, mask=col_mask & row_mask)


def launch_triton_2(v1, batch_norm_weight, batch_norm_bias):
    batch_size, _ = v1.shape
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(6, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, batch_norm_weight, batch_norm_bias, out, 6, batch_size, batch_size, BLOCK_ROWS=64, BLOCK_COLS=2)
    return out
