import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, stride=2, padding=1, output_padding=1, groups=1, bias=False, reduce_dim=1):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose1d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)
        self.reduce_dim = reduce_dim

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v1 = launch_triton(v0)
        return v1


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
        x4 = tl.where(row_mask & col_mask, v3, float('inf'))
        blk = tl.min(x4, axis=1, keep_dims=True)
        blk_idx = tl.min(tl.where(x4 == blk, cols, n_cols), axis=1, keep_dims=True)
        take = blk < best
        best_idx = tl.where(take, blk_idx, best_idx)
        best = tl.where(take, blk, best)
    res5 = best_idx
    tl.store(out_ptr + rows, res5.to(tl.int64), mask=row_mask)


def launch_triton(v0):
    batch_size, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size), device=v0.device, dtype=torch.int64)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * batch_size, batch_size, BLOCK_ROWS=64, BLOCK_COLS=16)
    return out
