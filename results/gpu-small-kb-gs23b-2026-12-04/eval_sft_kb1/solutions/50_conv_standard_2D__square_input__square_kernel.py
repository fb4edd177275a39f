import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_inputs=10):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=num_filters, out_channels=14, kernel_size=5, stride=stride, padding=padding)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v1 = launch_triton(v0)
        v2 = launch_triton_2(v1)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, float('-inf'))
        y9 = tl.exp(x8 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y9, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 6, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 6, 4, BLOCK_ROWS=32, BLOCK_COLS=32)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    best = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, float('-inf'))
        blk = tl.max(x2, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x2 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk > best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res3 = best_idx
    tl.store(out_ptr + rows, res3.to(tl.int64), mask=row_mask)


def launch_triton_2(v1):
    batch_size, _, _ = v1.shape
    out = torch.empty((batch_size,), device=v1.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size, 4, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
