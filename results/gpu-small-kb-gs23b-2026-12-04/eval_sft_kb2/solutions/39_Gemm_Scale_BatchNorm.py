import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features=15, scale_shape=(5, scale_shape=(5, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features=out_features)
        self.scale = nn.Parameter(torch.randn(scale_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.bn.weight, self.bn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_features: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_ptr + cols * in_features + rows, mask=col_mask & row_mask, other=0.0)
        y2 = v1 * 0.1
        x3 = tl.where(row_mask & col_mask, y2, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x3, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x3 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * in_features) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n4 = cols // in_features
        sp5 = cols % in_features
        v6 = tl.load(v0_ptr + n4 * (in_features * in_features) + rows * in_features + sp5, mask=col_mask & row_mask, other=0.0)
        y7 = v6 * 0.1
        x8 = tl.where(row_mask & col_mask, y7, 0.0)
        y9 = (x8 - mean) * rstd
        b10 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b11 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y12 = y9 * b10 + b11
        tl.store(out_ptr + n6 * in_features + rows, y12, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, in_features = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(in_features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, in_features, batch_size, batch_size, in_features, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
