import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = launch_triton(x)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, features: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + cols * features + rows, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, x1, float('inf'))
        acc = tl.minimum(acc, tl.min(x2, axis=1, keep_dims=True))
    res3 = acc
    tl.store(out_ptr + rows, res3, mask=row_mask)


def launch_triton(x):
    M_size, features = x.shape
    out = torch.empty((1, features), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, features, M_size, features, BLOCK_ROWS=32, BLOCK_COLS=4)
    return out
