import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm3d(num_features=12)

    def forward(self, x):
        v1 = launch_triton(x, self.bn.weight, self.bn.bias)
        return v1


@triton.jit
def triton_kernel(x_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, x_d0: tl.constexpr, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (x_d2 * x_d3 * x_d2)
        sp2 = cols % (x_d2 * x_d3 * x_d2)
        i3 = sp2 // x_d2)
        i4 = (sp2 // x_d2) % x_d3
        i5 = sp2 % x_d2
        x6 = tl.load(x_ptr + n1 * (x_d1 * x_d2 * x_d3 * x_d2) + rows * (x_d2 * x_d3 * x_d2) + i3 * (x_d3 * x_d2) + i4 * x_d2 + i5, mask=col_mask & row_mask, other=0.0)
        x7 = tl.where(row_mask & col_mask, x6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (x_d0 * x_d2 * x_d3 * x_d2) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n8 = cols // (x_d2 * x_d3 * x_d2)
        sp9 = cols % (x_d2 * x_d3 * x_d2)
        i10 = sp9 // (x_d3 * x_d2)
        i11 = (sp9 // x_d2) % x_d2
        i12 = sp9 % x_d2
        i12 = sp9 % x_d2
        x13 = tl.load(x_ptr + n8 * (x_d1 * x_d2 * x_d3 * x_d2) + rows * (x_d2 * x_d3 * x_d2) + i10 * (x_d3 * x_d2) + i11 * x_d2 + i12, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, x13, 0.0)
        y15 = (x14 - mean) * rstd
        b16 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b17 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y18 = y15 * b16 + b17
        tl.store(out_ptr + n8 * (x_d1 * x_d2 * x_d3 * x_d2) + rows * (x_d2 * x_d3 * x_d2) + i10 * (x_d3 * x_d2) + i11 * x_d2 + i12, y18, mask=col_mask & row_mask)


def launch_triton(x, bn_weight, bn_bias):
    x_d0, x_d1, x_d2, x_d3, _ = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(x_d1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bn_weight, bn_bias, out, x_d1, x_d0 * x_d2 * x_d3 * x_d2, x_d0, x_d1, x_d2, x_d3, BLOCK_ROWS=2, BLOCK_COLS=128)
    return out
