import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, clamp_min, offset_shape, rms_eps):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.divide_norm = nn.RMSNorm(norm_num_channels, out_channels, kernel_size)
        self.divide_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.divide_min, self.clamp_max)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, depth: tl.constexpr, clamp_min: tl.constexpr, clamp_max: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    ss = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = tl.minimum(tl.maximum(v5, clamp_min), clamp_max)
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        ss += tl.sum(x7 * x7, axis=1, keep_dims=True)
    inv = tl.rsqrt(ss / (in_channels * depth * in_channels * depth) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v12 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y13 = tl.minimum(tl.maximum(v12, clamp_min), clamp_max)
        x14 = tl.where(row_mask & col_mask, y13, 0.0)
        y15 = x14 * inv
        tl.store(out_ptr + rows * n_cols + cols, y15, mask=col_mask & row_mask)


def launch_triton(v0, clamp_min, clamp_max):
    batch_size, _, _, _, depth = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * depth * depth * depth, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth * depth * depth, in_channels, depth, clamp_min, clamp_max, BLOCK_ROWS=512, BLOCK_COLS=8)
    return out
