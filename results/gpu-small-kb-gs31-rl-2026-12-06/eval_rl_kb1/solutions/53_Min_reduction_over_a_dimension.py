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
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, dim1: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (dim1 * dim2)
        r2 = (rows // dim2) % dim1
        r3 = rows % dim2
        x4 = tl.load(x_ptr + cols * (in_channels * dim1 * dim2) + r1 * (dim1 * dim2) + r2 * dim2 + r3, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, x4, 0.0)
        acc += tl.sum(x5, axis=1, keep_dims=True)
    res6 = acc / dim1
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(x):
    batch_size, in_channels, dim1, dim2 = x.shape
    out = torch.empty((in_channels, dim1, dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(in_channels * dim1 * dim2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, in_channels * dim1 * dim2, batch_size, in_channels, dim1, dim2, BLOCK_ROWS=256, BLOCK_COLS=8)
    return out
