import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features=1, bias=True, add_value=0.1, add_value=0.1, add_value=0.1):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(in_features, out_features=out_features, bias=True)
        self.silu = nn.SiLU()
        self.add_value = add_value

    def forward(self, x):
        v2 = launch_triton(x, self.bn.weight, self.bn.bias, self.bn.bias, self.bn.padding, self.bn.padding, self.bn.bias)
        return v2


@triton.jit
def triton_kernel(x_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_features: tl.constexpr, add_value: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // in_features
        sp2 = cols % in_features
        x3 = tl.load(x_ptr + n1 * (in_features * in_features) + rows * in_features + sp2, mask=col_mask & row_mask, other=0.0)
        y4 = x3 * 0.1
        x5 = tl.where(row_mask & col_mask, y4, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x5, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x5 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * in_features) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n6 = cols // in_features
        sp7 = cols % in_features
        x8 = tl.load(x_ptr + n6 * (in_features * in_features) + rows * in_features + sp7, mask=col_mask & row_mask, other=0.0)
        y9 = x8 + add_value
        x10 = tl.where(row_mask & col_mask, y9, 0.0)
        y11 = (x10 - mean) * rstd
        b12 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b13 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y14 = y11 * b12 + b13
        y15 = y14 + add_value
        tl.store(out_ptr + n6 * in_features + rows, y15, mask=col_mask & row_mask)


def launch_triton(x, bn_weight, bn_bias):
    batch_size, in_features, _ = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(in_features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bn_weight, bn_bias, out, in_features, batch_size * in_features, batch_size, in_features, add_bias, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
