import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, True)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.linear(x)
        v2 = launch_triton(v0)
        v3 = launch_triton_2(v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // 4
        r2 = rows % 4
        v3 = tl.load(v0_ptr + r1 * 444 + cols * 44 + r2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        acc += tl.sum(x4, axis=1, keep_dims=True)
    res5 = acc
    y8 = tl.sqrt(res5)
    tl.store(out_ptr + rows, y8, mask=row_mask)


def launch_triton(v0):
    batch_size, _ = v0.shape
    out = torch.empty((batch_size, 4), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 4, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 44, BLOCK_ROWS=32, BLOCK_COLS=8)
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
        v1 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, float('-inf'))
        m_new = tl.maximum(m, tl.max(x2, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x2 - m_new), axis=1, keep_dims=True)
        m = m_new
    res3 = m + tl.log(s)
    tl.store(out_ptr + rows, res3, mask=row_mask)


def launch_triton_2(v1):
    out = torch.empty((4), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, 1, N_size, BLOCK_ROWS=32, BLOCK_COLS=4)
    return out
