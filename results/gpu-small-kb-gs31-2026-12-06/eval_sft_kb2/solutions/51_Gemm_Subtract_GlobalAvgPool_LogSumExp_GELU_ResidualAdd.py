import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias, dim, output_size, bias, dim, dim=1):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, True)
        self.subtract = nn.Parameter(torch.randn(subtract_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.subtract)
        return v2


@triton.jit
def triton_kernel(v0_ptr, subtract_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    res5 = m + tl.log(s)
    y8 = 0.5 * res5 * (1.0 + tl.erf(res5 * 0.7071067811865476))
    tl.store(out_ptr + rows, y8, mask=row_mask)


def launch_triton(v0, subtract):
    batch_size, _, _ = v0.shape
    out = torch.empty((batch_size, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, subtract, out, batch_size * batch_size, 3, BLOCK_ROWS=32, BLOCK_COLS=16)
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
        v3 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    res5 = m + tl.log(s)
    tl.store(out_ptr + rows, res5, mask=row_mask)


def launch_triton_2(v1):
    batch_size, _, out__ = v1.shape
    out = torch.empty((batch_size, 1), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 15, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size * 15, 4, BLOCK_ROWS=32, BLOCK_COLS=8)
    return out
