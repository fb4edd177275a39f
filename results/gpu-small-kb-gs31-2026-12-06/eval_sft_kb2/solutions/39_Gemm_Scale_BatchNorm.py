import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale_shape, scale_shape=(2, 1):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.bn.weight, self.bn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_ptr + cols * 54 + rows, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x2, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x2 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / batch_size + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + cols * 54 + rows, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        y5 = (x4 - mean) * rstd
        b6 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b7 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y8 = y5 * b6 + b7
        y9 = y8 - b8 + b9 + b7
        tl.store(out_ptr + cols * 6 + rows, y8, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(6, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, 6, batch_size, batch_size, BLOCK_ROWS=64, BLOCK_COLS=2)
    return out
