import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduction_dim, W_shape):
        super(ModelNew, self).__init__()
        self.W = nn.Parameter(torch.randn(W_shape))
        self.reduction_dim = reduction_dim

    def forward(self, A):
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.matmul(A, self.W)
        v2 = launch_triton(v0)
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
        v1 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, float('-inf'))
        m_new = tl.maximum(m, tl.max(x2, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x2 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        y5 = tl.exp(x4 - m) / s
        y6 = tl.abs(y5)
        tl.store(out_ptr + rows * n_cols + cols, y6, mask=col_mask & row_mask)


def launch_triton(v0):
    M_size, weight_d1 = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(M_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, M_size, weight_d1, BLOCK_ROWS=2, BLOCK_COLS=32)
    return out
