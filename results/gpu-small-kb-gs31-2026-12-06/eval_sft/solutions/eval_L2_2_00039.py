import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_features: int, scale: float=1.5):
        super().__init__()
        self.norm = nn.InstanceNorm2d(num_features)
        self.scale = scale

    def forward(self, x):
        v1 = launch_triton(x)
        return v1


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x5 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = x5 * 0.5
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (x_d2 * x_d3) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x13 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, x13, 0.0)
        y15 = (x14 - mean) * rstd
        tl.store(out_ptr + rows * n_cols + cols, y15, mask=col_mask & row_mask)


def launch_triton(x):
    x_d0, x_d1, x_d2, x_d3 = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, x_d0 * x_d1, x_d2 * x_d3, x_d1, x_d3, BLOCK_ROWS=32, BLOCK_COLS=64)
    return out
