import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim, bias_shape=(13, 3)):
        super(ModelNew, self).__init__()
        self.activation = nn.ELU(alpha=alpha)
        self.activation = nn.LogSigmoid()
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        v2 = launch_triton(x, self.bias)
        return v2


@triton.jit
def triton_kernel(x_ptr, bias_ptr, out_ptr, n_rows, n_cols, channels: tl.constexpr, length: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // length
        r2 = rows % length
        x3 = tl.load(x_ptr + r1 * (channels * length) + cols * length + r2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r5 = rows // length
        r6 = rows % length
        x7 = tl.load(x_ptr + r5 * (channels * length) + cols * length + r6, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, x7, float('-inf'))
        y9 = x8 - m - tl.log(s)
        y10 = y9 + bias_value
        b11 = tl.load(bias_ptr + r6 * (channels * length) + cols * length + r7, mask=col_mask & row_mask, other=0.0)
        y11 = tl.where(y9 > 0.0, v10, 1.0 * (tl.exp(v10 / 1.0) - 1.0))
        x12 = tl.where(row_mask & col_mask, y11, float('-inf'))
        y13 = tl.exp(x12 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y13, mask=col_mask & row_mask)


def launch_triton(x, bias_value):
    batch_size, channels, length = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bias, out, batch_size * channels, channels * length, length, channels, length, BLOCK_ROWS=64, BLOCK_COLS=8)
    return out
