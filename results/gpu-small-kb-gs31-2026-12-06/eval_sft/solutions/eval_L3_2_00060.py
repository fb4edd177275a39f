import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduction_dim: int):
        super().__init__()
        self.reduction_dim = reduction_dim

    def forward(self, A, B):
        # bmm stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(A, B)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    best = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y4 = tl.minimum(tl.maximum(v3, 0.0), 6.0)
        x5 = tl.where(row_mask & col_mask, y4, float('inf'))
        blk = tl.min(x5, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x5 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk < best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res6 = best_idx
    tl.store(out_ptr + rows, res6.to(tl.int64), mask=row_mask)


def launch_triton(v0):
    batch_size, M_size, B_d2 = v0.shape
    out = torch.empty((batch_size, M_size), device=v0.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(batch_size * M_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * M_size, B_d2, BLOCK_ROWS=32, BLOCK_COLS=64)
    return out
