import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim, bias_shape=(12, 1, 1)):
        super(ModelNew, self).__init__()
        self.activation = nn.LogSigmoid()
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.dim = dim

    def forward(self, x):
        v1 = launch_triton(x, self.bias)
        return v1


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
        y4 = tl.minimum(x3, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x3)))
        x5 = tl.where(row_mask & col_mask, y4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r6 = rows // length
        r7 = rows % length
        x8 = tl.load(x_ptr + r6 * (channels * length) + cols * length + r7, mask=col_mask & row_mask, other=0.0)
        y9 = tl.minimum(x8, r8)
        x10 = tl.where(row_mask & col_mask, y9, float('-inf'))
        y11 = x10 - m - tl.log(s)
        tl.store(out_ptr + r6 * (channels * length) + cols * length + r7, y11, mask=col_mask & row_mask)


def launch_triton(x, bias):
    batch_size, channels, length = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * length, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bias, out, batch_size * length, channels, channels, length, BLOCK_ROWS=32, BLOCK_COLS=4)
    return out
