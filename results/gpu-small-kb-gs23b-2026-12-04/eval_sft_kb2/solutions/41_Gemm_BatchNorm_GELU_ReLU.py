import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.batch_norm = nn.BatchNorm1d(in_features)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.batch_norm.weight, self.batch_norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, batch_norm_weight_ptr, batch_norm_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_ptr + cols * 56 + rows, mask=col_mask & row_mask, other=0.0)
        y2 = 0.5 * v1 * (1.0 + tl.erf(v1 * 0.7071067811865476))
        x3 = tl.where(row_mask & col_mask, y2, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x3, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x3 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / batch_size + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n5 = cols // 1
        sp6 = cols % 3
        v7 = tl.load(v0_ptr + n6 * 45 + rows * 9 + sp7, mask=col_mask & row_mask, other=0.0)
        y8 = 0.5 * v7 * (1.0 + tl.erf(v7 * 0.7071067811865476))
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        y10 = (x9 - mean) * rstd
        b11 = tl.load(batch_norm_weight_ptr + rows, mask=row_mask, other=0.0)
        b12 = tl.load(batch_norm_bias_ptr + rows, mask=row_mask, other=0.0)
        y13 = y12 * b12 + b12
        tl.store(out_ptr + n6 * 48 + rows * 11 + sp7, y13, mask=col_mask & row_mask)


def launch_triton(v0, batch_norm_weight, batch_norm_bias):
    batch_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(5, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, batch_norm_weight, batch_norm_bias, out, 5, batch_size, batch_size, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
