import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias=True):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x, y):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v2 = launch_triton(v0, y)
        return v2


@triton.jit
def triton_kernel(v0_ptr, y_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    best = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (height * dim2)
        r2 = (rows // dim2) % height
        r3 = rows % dim2
        v4 = tl.load(v0_ptr + r1 * (batch_size * height * dim2) + r2 * (height * dim2) + cols * dim2 + r3, mask=col_mask & row_mask, other=0.0)
        v5 = tl.load(y_ptr + r1 * (batch_size * height * dim2) + r2 * (height * dim2) + cols * dim2 + r3, mask=col_mask & row_mask, other=0.0)
        y6 = v4 / v5
        x7 = tl.where(row_mask & col_mask, y6, float('-inf'))
        blk = tl.max(x7, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x7 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk > best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res8 = best_idx
    tl.store(out_ptr + rows, res8.to(tl.int64), mask=row_mask)


def launch_triton(v0, y):
    batch_size, height, dim2 = v0.shape
    out = torch.empty((batch_size, height, dim2), device=v0.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(batch_size * height * dim2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, y, out, batch_size * height * dim2, batch_size, height, dim2, BLOCK_ROWS=1024, BLOCK_COLS=4)
    return out
