import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        argmin_out = argmin(x)
        return argmin_out


@triton.jit
def argmin_kernel(x_ptr, out_ptr, n_inner, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    pid_outer = tl.program_id(1)
    inner = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = inner < n_inner
    rows = pid_outer * n_inner + inner
    best = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x3 = tl.load(x_ptr + pid_outer * 16773120 + cols * n_inner + inner, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, float('inf'))
        blk = tl.min(x4, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x4 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk < best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res5 = best_idx
    tl.store(out_ptr + rows, res5.to(tl.int64), mask=row_mask)


def argmin(x):
    out = torch.empty((128, 4095), device=x.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(4095, meta['BLOCK_ROWS']), 128)
    argmin_kernel[grid](x, out, 4095, 4096, BLOCK_ROWS=128, BLOCK_COLS=32, num_warps=8)
    return out
