import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias, gn_num_groups=1, normalized_shape=(2,)):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        self.norm = nn.GroupNorm(gn_num_groups, num_channels=norm_channels)
        self.norm = nn.GroupNorm(gn_num_groups, num_channels=norm_channels)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v2 = launch_triton(v0, self.norm.weight, self.norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, norm_weight_ptr, norm_bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y8 = tl.sin(v7)
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x9, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x9 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / 9 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g11 = rows % 2
        cl12 = cols // 9
        ch15 = g11 * (9 + cl11
        v16 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y17 = tl.sin(v16)
        x18 = tl.where(row_mask & col_mask, y17, 0.0)
        y19 = (x18 - mean) * rstd
        n20 = tl.load(norm_weight_ptr + ch15, mask=col_mask, other=0.0)
        n21 = tl.load(norm_bias_ptr + ch15, mask=col_mask, other=0.0)
        y22 = y19 * n20 + n21
        tl.store(out_ptr + rows * n_cols + cols, y22, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    batch_size, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, batch_size, 96, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
