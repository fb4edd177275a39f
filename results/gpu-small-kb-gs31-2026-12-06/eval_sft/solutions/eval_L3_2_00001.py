import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim, bias_shape=(12, bias_shape=(12, 1)):
        super(ModelNew, self).__init__()
        self.activation = nn.LogSoftmax(dim=dim)
        self.activation = nn.LogSoftmax(dim=dim)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        v2 = launch_triton(x, self.bias)
        return v2


@triton.jit
def triton_kernel(x_ptr, bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y2 = x1 * tl.minimum(tl.maximum(x1 + 3.0, 0.0), 6.0) / 6.0
        x3 = tl.where(row_mask & col_mask, y2, float('-inf'))
        m_new = tl.maximum(m, tl.max(x3, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x3 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x4 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = x4
        x6 = tl.where(row_mask & col_mask, y5, float('-inf'))
        y7 = x6 - m) / s
        y6 = y6 / (1.0 + tl.abs(y6))
        tl.store(out_ptr + rows * n_cols + cols, y6, mask=col_mask & row_mask)


def launch_triton(x, bias):
    batch_size, dim = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bias, out, batch_size, dim, BLOCK_ROWS=2, BLOCK_COLS=16)
    return out
