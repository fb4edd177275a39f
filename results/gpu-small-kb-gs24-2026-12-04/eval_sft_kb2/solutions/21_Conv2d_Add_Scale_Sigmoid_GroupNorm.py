import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias, scale_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(group_norm_normalized_shape, eps=eps)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.group_norm.weight, self.group_norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, group_norm_weight_ptr, group_norm_bias_ptr, out_ptr, n_rows, n_cols, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    rstd = tl.rsqrt(m2 / (height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        cl10 = cols // width
        ch12 = 0 * height + cl10
        v13 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, v13, 0.0)
        y15 = (x14 - mean) * rstd
        g16 = tl.load(group_norm_weight_ptr + ch12, mask=col_mask, other=0.0)
        g17 = tl.load(group_norm_bias_ptr + ch12, mask=col_mask, other=0.0)
        y18 = y15 * g16 + g17
        y19 = tl.sigmoid(y18)
        tl.store(out_ptr + rows * n_cols + cols, y19, mask=col_mask & row_mask)


def launch_triton(v0, group_norm_weight, group_norm_bias, bias):
    batch_size, _, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, group_norm_weight, group_norm_bias, out, batch_size, height * width, height * width, height, width, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
