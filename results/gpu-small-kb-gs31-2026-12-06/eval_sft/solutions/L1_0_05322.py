import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x):
        v0 = launch_triton(x, self.ln.weight, self.ln.bias)
        return v0


@triton.jit
def triton_kernel(x_ptr, ln_weight_ptr, ln_bias_ptr, out_ptr, n_rows, n_cols, dim: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, x1, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x2, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x2 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / dim + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x3 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, 0.0)
        y5 = (x4 - mean) * rstd
        l6 = tl.load(ln_weight_ptr + cols, mask=col_mask, other=0.0)
        l7 = tl.load(ln_bias_ptr + cols, mask=col_mask, other=0.0)
        y8 = y5 * l6 + l7
        tl.store(out_ptr + rows * n_cols + cols, y8, mask=col_mask & row_mask)


def launch_triton(x, ln_weight, ln_bias):
    N_size, dim = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(N_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, ln_weight, ln_bias, out, N_size, dim, dim, BLOCK_ROWS=2, BLOCK_COLS=32)
    return out
