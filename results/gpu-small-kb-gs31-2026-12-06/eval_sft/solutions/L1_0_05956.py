import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduce_dim):
        super().__init__()
        self.reduce_dim = reduce_dim

    def forward(self, x):
        v0 = launch_triton(x)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x4 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, x4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    res6 = m + tl.log(s)
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(x):
    batch_size, in_channels, dim1, dim2 = x.shape
    out = torch.empty((batch_size, in_channels, dim1), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * dim1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, batch_size * in_channels * dim1, dim2, BLOCK_ROWS=64, BLOCK_COLS=16)
    return out
