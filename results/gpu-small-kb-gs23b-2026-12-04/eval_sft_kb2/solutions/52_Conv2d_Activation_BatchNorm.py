import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, eps=0.1):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps, momentum=0.1)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bn.weight, self.bn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_channels: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // in_channels
        sp2 = cols % in_channels
        v3 = tl.load(v0_ptr + n1 * (in_channels * in_channels) + rows * in_channels + sp2, mask=col_mask & row_mask, other=0.0)
        y4 = 1.0 - 2.0 / (tl.exp(2.0 * v3) + 1.0)
        x5 = tl.where(row_mask & col_mask, y4, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x5, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x5 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * in_channels) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n6 = cols // in_channels
        sp7 = cols % in_channels
        v8 = tl.load(v0_ptr + n6 * (in_channels * in_channels) + rows * in_channels + sp7, mask=col_mask & row_mask, other=0.0)
        y9 = 1.0 - 2.0 / (tl.exp(2.0 * v8) + 1.0)
        x10 = tl.where(row_mask & col_mask, y9, 0.0)
        y11 = (x10 - mean) * rstd
        b12 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b13 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y14 = y11 * b12 + b13
        tl.store(out_ptr + n6 * (in_channels * in_channels) + rows * in_channels + sp7, y14, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, in_channels, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(in_channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, in_channels, batch_size * in_channels, batch_size, in_channels, BLOCK_ROWS=4, BLOCK_COLS=64)
    return out
