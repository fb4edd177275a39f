import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias, gn_num_groups=1, norm_channels=5):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        self.norm = nn.GroupNorm(gn_num_groups, num_channels=norm_channels)
        self.norm = nn.BatchNorm2d(norm_channels)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v2 = launch_triton(v0, self.norm.weight, self.norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, norm_weight_ptr, norm_bias_ptr, out_ptr, n_rows, n_cols, x_d0: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x8, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x8 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (x_d0 * x_d0) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        cl10 = cols // x_d0
        ch14 = 0 * x_d0 + cl10
        v15 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x16 = tl.where(row_mask & col_mask, v15, 0.0)
        y17 = (x16 - mean) * rstd
        n18 = tl.load(norm_weight_ptr + ch14, mask=col_mask, other=0.0)
        n19 = tl.load(norm_bias_ptr + ch14, mask=col_mask, other=0.0)
        y20 = y17 * n18 + n19
        y21 = tl.minimum(tl.maximum(y20, clamp_min), clamp_max)
        tl.store(out_ptr + rows * n_cols + cols, y21, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    x_d0, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(x_d0 * 2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, x_d0 * 2, x_d0 * 2, x_d0, x_d0, x_d0, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
