import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(3, 5, 3, stride=2, padding=0, groups=3, bias=False)
        self.bn = nn.BatchNorm1d(3, eps=1e-05, momentum=0.1)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
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
        n1 = cols // 6
        sp2 = cols % 6
        i3 = sp2 // 3
        i4 = sp2 % 3
        v5 = tl.load(v0_ptr + n1 * (batch_size * 6) + rows * 6 + i3, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * 6) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // 6
        sp8 = cols % 6
        i9 = sp8 // 6
        i10 = sp8 % 6
        v11 = tl.load(v0_ptr + n7 * (batch_size * 6) + rows * 6 + i9, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b15 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y16 = y13 * b14 + b15
        tl.store(out_ptr + n7 * (batch_size * 6) + rows * 6 + sp8, y16, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size, 6), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, 2, batch_size * 6, batch_size, batch_size, BLOCK_ROWS=4, BLOCK_COLS=128)
    return out
