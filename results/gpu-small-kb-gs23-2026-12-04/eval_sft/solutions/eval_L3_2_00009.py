import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias, gn_num_groups=1, norm_num_groups=1, norm_eps=1e-05):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        self.norm = nn.LayerNorm(norm_num_groups, num_channels=norm_eps)
        self.norm = nn.LayerNorm(norm_normalized_shape, num_norm_eps)

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
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = tl.abs(v5)
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (x_d0 * x_d0) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g9 = rows % 2
        cl10 = cols // (x_d0 * x_d0)
        j10 = cols % (x_d0 * x_d0)
        i11 = sp10 // x_d0
        i12 = sp10 % x_d0
        v13 = tl.load(v0_ptr + n9 * (x_d0 * x_d0 * x_d0) + ch10 * (x_d0 * x_d0) + j10 * x_d0 + j11, mask=col_mask & row_mask, other=0.0)
        n14 = tl.load(norm_weight_ptr + j10 * x_d0 + j11, mask=col_mask, other=0.0)
        y15 = tl.abs(v12)
        x16 = tl.where(row_mask & col_mask, y15, 0.0)
        y17 = (x16 - mean) * rstd
        n18 = tl.load(norm_weight_ptr + j11, mask=row_mask, other=0.0)
        n19 = tl.load(norm_bias_ptr + j11, mask=row_mask, other=0.0)
        y20 = y17 * n18 + n19
        tl.store(out_ptr + rows * n_cols + cols, y20, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    x_d0, _, _, x_d2, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d0 * x_d2 * x_d0, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, x_d0 * x_d0 * x_d2 * x_d0, x_d0, x_d2, BLOCK_ROWS=4, BLOCK_COLS=128)
    return out
