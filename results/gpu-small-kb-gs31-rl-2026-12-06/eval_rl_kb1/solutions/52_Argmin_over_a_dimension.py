import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        v0 = launch_triton(x, self.dim)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, n_inner, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    outer = rows // n_inner
    inner = rows % n_inner
    best = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + outer * (n_cols * n_inner) + cols * n_inner + inner, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, x1, float('inf'))
        blk = tl.min(x2, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x2 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk < best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res3 = best_idx
    tl.store(out_ptr + rows, res3.to(tl.int64), mask=row_mask)


def launch_triton(x, dim):
    dim = dim % x.dim()
    n_cols = x.shape[dim]
    n_inner = x.stride(dim)   # the elements after the reduced dim (x is contiguous)
    n_rows = x.numel() // n_cols
    out = torch.empty(x.shape[:dim] + x.shape[dim + 1:], device=x.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(n_rows, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, n_rows, n_cols, n_inner, BLOCK_ROWS=256, BLOCK_COLS=16)
    return out
