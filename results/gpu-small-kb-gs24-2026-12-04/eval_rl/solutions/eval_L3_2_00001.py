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
        v1 = launch_triton(x)
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = torch.matmul(v1, self.bias)
        return v2


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
        x3 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y4 = tl.minimum(x3, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x4)))
        x5 = tl.where(row_mask & col_mask, y4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x8 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y9 = tl.minimum(x8, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x8)))
        x10 = tl.where(row_mask & col_mask, y9, float('-inf'))
        y11 = x10 - m - tl.log(s)
        tl.store(out_ptr + rows * n_cols + cols, y11, mask=col_mask & row_mask)


def launch_triton(x):
    batch_size, channels, length = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bias, out, batch_size * channels, length, BLOCK_ROWS=64, BLOCK_COLS=8)
    return out
