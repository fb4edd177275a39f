import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features=1, momentum=0.1):
        super(ModelNew, self).__init__()
        self.instance_norm = nn.InstanceNorm2d(in_features, out_features, momentum=1e-05, momentum=momentum)
        self.instance_norm = nn.InstanceNorm2d(out_features, eps=eps, momentum=momentum)

    def forward(self, x, y):
        v2 = launch_triton(x, y)
        return v2


@triton.jit
def triton_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x3 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y4 = tl.where(v3 > 0.0, v3, 1.0 * (tl.exp(x3 / 1.0) - 1.0))
        y5 = tl.minimum(tl.maximum(y4, -1.0), 0.5)
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / 11 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x4 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = tl.minimum(x4, v4)
        x8 = tl.where(row_mask & col_mask, y5, 0.0)
        y9 = (x6 - mean) * rstd
        tl.store(out_ptr + rows * n_cols + cols, y9, mask=col_mask & row_mask)


def launch_triton(x, y):
    batch_size, _ = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, y, out, batch_size, 11, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
