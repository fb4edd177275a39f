import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim, bias_shape=(12, 15, 21)):
        super(ModelNew, self).__init__()
        self.activation = nn.LogSigmoid()
        self.activation = nn.LogSigmoid()
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        v1 = launch_triton(x, self.bias)
        return v1


@triton.jit
def triton_kernel(x_ptr, bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, channels: tl.constexpr, dim: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // dim
        r2 = rows % dim
        x3 = tl.load(x_ptr + cols * (channels * dim) + r1 * dim + r2, mask=col_mask & row_mask, other=0.0)
        y4 = tl.minimum(x3, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x3)))
        x5 = tl.where(row_mask & col_mask, y4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r6 = rows // dim
        r7 = rows % dim
        x7 = tl.load(x_ptr + cols * (channels * dim) + r6 * dim + r6 * dim + r7, y13, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, x7, float('-inf'))
        y11 = tl.exp(x10 - m) / s
        v12 = tl.load(bias_ptr + r6 * dim + r8 * dim + r9 * dim + r9, mask=col_mask & row_mask, other=0.0)
        y13 = tl.minimum(x12, v12 + 3.0, 0.0), 6.0) / 6.0
        x14 = tl.where(row_mask & col_mask, y13, float('-inf'))
        y15 = (x14 - mean) * rstd
        tl.store(out_ptr + rows * n_cols + cols, y15, mask=col_mask & row_mask)


def launch_triton(x, bias):
    batch_size, channels, dim = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * dim, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bias, out, batch_size * dim, batch_size, channels, dim, BLOCK_ROWS=2, batch_size, channels, dim, BLOCK_ROWS=16, BLOCK_COLS=8)
    return out
