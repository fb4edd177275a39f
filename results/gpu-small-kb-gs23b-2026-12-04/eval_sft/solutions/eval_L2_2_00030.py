import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm2d(3, 4, 3, stride=2, padding=0, groups=3)
        self.bn = nn.BatchNorm1d(3, 4, 3, stride=2, padding=0,0)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v3 = launch_triton(v0, self.bn.weight, self.bn.bias)
        return v3


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (height * dim2)
        sp2 = cols % (height * dim2)
        i3 = sp2 // dim2
        i4 = sp2 % dim2
        v5 = tl.load(v0_ptr + n1 * (height * height * dim2) + rows * (height * dim2) + i3 * dim2 + i4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * height * dim2) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // (height * dim2)
        sp8 = cols % (height * dim2)
        i9 = sp8 // dim2
        i10 = sp8 % dim2
        v11 = tl.load(v0_ptr + n7 * (height * height * dim2) + rows * (height * dim2) + i9 * dim2 + i10, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b15 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y16 = y13 * b14 + b15
        tl.store(out_ptr + n7 * (height * height * dim2) + rows * (height * dim2) + i9 * dim2 + i10, y16, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, height, dim2, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(height, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, height, batch_size * height * dim2, batch_size, height, dim2, BLOCK_ROWS=16, BLOCK_COLS=128)
    return out
