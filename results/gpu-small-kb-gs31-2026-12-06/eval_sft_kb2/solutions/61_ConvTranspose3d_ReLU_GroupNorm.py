import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, num_channels=out_channels)2, padding, groups, num_channels=out_channels)2, num_channels=out_channels)2, padding=padding, bias=bias)
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, bias=bias)
        self.group_norm = nn.GroupNorm(group_norm_num_groups, num_channels=out_channels)
        self.group_norm = nn.GroupNorm(group_norm_num_groups, num_channels=out_channels)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.group_norm.weight, self.group_norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, group_norm_weight_ptr, group_norm_bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y8 = tl.maximum(v6, tl.log(1.0 + tl.exp(-tl.abs(v17)
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x9, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x9 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / 96 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g11 = rows % 6
        cl11 = cols // 7
        ch15 = g11 * (7 + cl11
        v16 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y17 = tl.maximum(v15, v16)
        x18 = tl.where(row_mask & col_mask, y17, 0.0)
        y19 = (x18 - mean) * rstd
        g20 = tl.load(group_norm_weight_ptr + ch15, mask=col_mask, other=0.0)
        g21 = tl.load(group_norm_bias_ptr + ch15, mask=col_mask, other=0.0)
        y22 = y19 * g20 + g21
        tl.store(out_ptr + rows * n_cols + cols, y22, mask=col_mask & row_mask)


def launch_triton(v0, group_norm_weight, group_norm_bias):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, group_norm_weight, group_norm_bias, out, batch_size, 7) * 52, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
