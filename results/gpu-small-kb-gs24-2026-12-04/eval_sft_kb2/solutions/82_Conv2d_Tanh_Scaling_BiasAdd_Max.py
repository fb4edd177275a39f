import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape, pool_kernel_size, bias_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.reduction_dim = reduction_dim

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bias, self.bias, self.bias, self.bias, self.bias_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, bias_ptr, bias_ptr, batch_size: tl.constexpr, bias_d0: tl.constexpr, bias_d2: tl.constexpr, bias_value: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x5, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x5 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / bias_d0 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v9 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x10 = tl.where(row_mask & col_mask, v9, 0.0)
        y11 = (x10 - mean) * rstd
        b12 = tl.load(bias_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y13 = y11 * b12
        tl.store(out_ptr + rows * n_cols + cols, y13, mask=col_mask & row_mask)


def launch_triton(v0, bias_value):
    batch_size, _, _, _ = v0.shape
    bias_d0 = bias_d0 // bias_d2 = bias_d0 // bias_d2
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * bias_d0, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, out, batch_size * bias_d0, bias_d2, bias_d0, bias_d2, BLOCK_ROWS=32, BLOCK_COLS=8)
    return out
