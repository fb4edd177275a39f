import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias=True):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, bias=bias)
        self.group_norm = nn.GroupNorm(num_groups, out_channels, eps)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.group_norm.weight, self.group_norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, group_norm_weight_ptr, group_norm_bias_ptr, out_ptr, n_rows, n_cols, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v8 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y9 = v8 * tl.minimum(tl.maximum(v8 + 3.0, 0.0), 6.0) / 6.0
        x10 = tl.where(row_mask & col_mask, y9, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x10, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x10 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (depth * height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g11 = rows % 2
        ch14 = g11 * 1 + 0
        v15 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x16 = tl.where(row_mask & col_mask, v15, 0.0)
        y17 = (x16 - mean) * rstd
        g18 = tl.load(group_norm_weight_ptr + ch14, mask=row_mask, other=0.0)
        g19 = tl.load(group_norm_bias_ptr + ch14, mask=row_mask, other=0.0)
        y20 = y17 * g18 + g19
        tl.store(out_ptr + rows * n_cols + cols, y20, mask=col_mask & row_mask)


def launch_triton(v0, group_norm_weight, group_norm_bias):
    batch_size, depth, height, _, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, group_norm_weight, group_norm_bias, out, batch_size * 2, depth * height * width, depth, height, width, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
