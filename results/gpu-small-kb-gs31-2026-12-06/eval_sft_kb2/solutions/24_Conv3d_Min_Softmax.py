import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dim):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.dim = dim

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
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
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v9 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x10 = tl.where(row_mask & col_mask, v9, float('-inf'))
        y11 = x10 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y11, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * 10, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * batch_size * batch_size * 10, BLOCK_ROWS=128, BLOCK_COLS=16)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v9 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x10 = tl.where(row_mask & col_mask, v9, float('-inf'))
        y11 = x10 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y11, mask=col_mask & row_mask)


def launch_triton_2(v1):
    batch_size, _, _, _ = v1.shape
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * 10, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size * batch_size * batch_size * 10, 6, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
