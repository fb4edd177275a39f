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
        v1 = launch_triton(v0, y)
        return v1


@triton.jit
def triton_kernel(v0_ptr, y_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    best = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // batch_size
        r2 = rows % batch_size
        v3 = tl.load(v0_ptr + r1 * (batch_size * batch_size) + cols * batch_size + r2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        blk = tl.max(x4, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x4 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk > best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res5 = best_idx
    tl.store(out_ptr + rows, res5.to(tl.int64), mask=row_mask)


def launch_triton(v0, y):
    batch_size, _, height, _, _ = v0.shape
    out = torch.empty((batch_size, 1, batch_size), device=v0.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, y, out, batch_size * batch_size, batch_size, batch_size, BLOCK_ROWS=512, BLOCK_COLS=8)
    return out
