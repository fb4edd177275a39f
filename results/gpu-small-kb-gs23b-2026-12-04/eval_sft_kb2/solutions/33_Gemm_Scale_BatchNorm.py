import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bn_momentum=1.0, scale_shape=(5, 1, 1)):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=True)
        self.scale = nn.Parameter(torch.randn(scale_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.bn.weight, self.bn.bias, self.bn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, scale_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_features: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    rstd = tl.rsqrt(m2 / batch_size + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r5 = rows // in_features
        r6 = rows % in_features
        v7 = tl.load(v0_ptr + r5 * (in_features * in_features) + cols * in_features + r6, mask=col_mask & row_mask, other=0.0)
        y8 = v7 * scale
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        y10 = (x9 - mean) * rstd
        b11 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b12 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y13 = y12 * b12 + b12
        y14 = y13 * tl.sigmoid(y13)
        tl.store(out_ptr + n6 * (in_features * in_features) + rows * in_features + sp7, y14, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, in_features = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(in_features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, in_features, batch_size, batch_size, in_features, BLOCK_ROWS=16, BLOCK_COLS=4)
    return out
