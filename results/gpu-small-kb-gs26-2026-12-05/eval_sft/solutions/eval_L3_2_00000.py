import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, proj_shape):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(in_features=in_features, out_features=out_features)
        self.proj = nn.Parameter(torch.randn(proj_shape))
        self.proj = nn.Parameter(torch.randn(proj_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v2 = launch_triton(v0, self.proj)
        return v2


@triton.jit
def triton_kernel(v0_ptr, proj_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v6 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x7 = tl.where(row_mask & col_mask, v6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (width * 8) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v13 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, v13, 0.0)
        y15 = (x14 - mean) * rstd
        y16 = y15 / (1.0 + tl.abs(y14))
        tl.store(out_ptr + rows * n_cols + cols, y16, mask=col_mask & row_mask)


def launch_triton(v0, proj):
    batch_size, width, proj_d1 = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, proj, out, batch_size * width, batch_size, batch_size, batch_size, width, BLOCK_ROWS=32, BLOCK_COLS=128)
    return out
