import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        v0 = launch_triton(x)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    amax = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x3 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, 0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x4), axis=1, keep_dims=True))
    scale = tl.where(amax > 0.0, amax, 1.0)
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x7 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, x7, 0.0)
        acc += tl.sum((x8 / scale) * (x8 / scale), axis=1, keep_dims=True)
    res9 = scale * tl.sqrt(acc)
    tl.store(out_ptr + rows, res9, mask=row_mask)


def launch_triton(x):
    batch_size, dim1, dim2 = x.shape
    out = torch.empty((batch_size, dim1, 1), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * dim1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, batch_size * dim1, dim2, BLOCK_ROWS=64, BLOCK_COLS=8)
    return out
