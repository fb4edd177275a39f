import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, momentum=0.5):
        super(ModelNew, self).__init__()
        self.instance_norm = nn.InstanceNorm2d(in_features, out_features, bias=False)
        self.instance_norm = nn.InstanceNorm2d(out_features, eps=eps, momentum=momentum)

    def forward(self, x, y, y):
        v2 = launch_triton(x, y, self.group_norm.weight, y, y)
        v2 = launch_triton_2(v2_1)
        return v2


@triton.jit
def triton_kernel(x_ptr, y_ptr, y_ptr, out_ptr, n_rows, n_cols, in_features: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x5 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, x5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (in_features * dim) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        j9 = cols // dim
        j10 = cols % dim
        x11 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, x11, 0.0)
        y13 = (x12 - mean) * rstd
        v14 = tl.load(y_weight_ptr + j9 * dim + j10, mask=col_mask, other=0.0)
        g15 = tl.load(group_norm_bias_ptr + j9 * dim + j10, mask=col_mask, other=0.0)
        y16 = y13 * g14 + g15
        y17 = tl.where(y16 > 0.0, y16, 1.0 * (tl.exp(y16) - 1.0))
        tl.store(out_ptr + rows * n_cols + cols, y17, mask=col_mask & row_mask)


def launch_triton(x, group_norm_weight, group_norm_bias):
    batch_size, in_features = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, group_norm_weight, group_norm_bias, out, batch_size, in_features * dim, in_features, dim, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_rows, n_cols, in_features: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v2_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, 0.0)
        acc += tl.sum(x5, axis=1, keep_dims=True)
    res6 = acc
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton_2(v2_1):
    batch_size, in_features = v2_1.shape
    out = torch.empty((batch_size, in_features), device=v2.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v2, y, out, batch_size, in_features, in_features, BLOCK_ROWS=8, BLOCK_COLS=8)
    return out
