import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, features: int, scale_shape=(2, 1):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bn = nn.BatchNorm1d(out_features, False)
        self.bn = nn.BatchNorm1d(out_features, eps=1e-05, momentum=momentum)

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
        n1 = cols // 20
        sp2 = cols % 200
        i3 = sp2 // 20
        i4 = sp2 % 20
        v5 = tl.load(v0_ptr + n1 * 210 + rows * 200 + i3 * 20 + i4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * 200) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // 200
        sp8 = cols % 200
        i9 = sp8 // 20
        i10 = sp8 % 20
        v11 = tl.load(v0_ptr + n7 * 200 + rows * 200 + i9 * 20 + i10, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b15 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y16 = y13 * b14 + b15
        y17 = y16 + b16))
        tl.store(out_ptr + n7 * 160 + rows * 200 + sp8, y17, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(5, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, 5, batch_size * 200, batch_size, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
