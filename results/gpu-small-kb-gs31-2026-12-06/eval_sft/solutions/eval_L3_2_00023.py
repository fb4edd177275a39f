import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, divide_by=4=3.0):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(num_channels)
        self.divide_by = divide_by

    def forward(self, A, B):
        # einsum stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.einsum('bij,bjk->bik', A, B)
        v2 = launch_triton(v0, self.bn.weight, self.bn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, M_size: tl.constexpr, N_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // N_size
        sp2 = cols % N_size
        v3 = tl.load(v0_ptr + n1 * (M_size * N_size) + rows * N_size + sp2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x4, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x4 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * N_size) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n5 = cols // N_size
        sp6 = cols % N_size
        v7 = tl.load(v0_ptr + n5 * (M_size * N_size) + rows * N_size + sp6, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        y9 = (x8 - mean) * rstd
        b10 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b11 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y12 = y9 * b10 + b11
        y13 = y12 * tl.minimum(tl.maximum(y12 + 3.0, 0.0), 6.0) / 6.0
        tl.store(out_ptr + n5 * (M_size * N_size) + rows * N_size + sp6, y13, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, M_size, N_size = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(M_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, M_size, batch_size * N_size, batch_size, M_size, N_size, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
