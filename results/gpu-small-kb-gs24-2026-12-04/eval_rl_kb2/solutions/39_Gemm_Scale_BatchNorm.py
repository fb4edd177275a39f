import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, eps, scale_shape):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.rand(scale_shape) + 0.5)
        self.scale = scale

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.scale)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scale_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x2, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x2 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / batch_size + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + cols * 3 + rows, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        y5 = (x4 - mean) * rstd
        s6 = tl.load(scale_ptr + rows, mask=row_mask, other=0.0)
        y7 = y5 * s6
        tl.store(out_ptr + cols * n_cols + cols, y7, mask=col_mask & row_mask)


def launch_triton(v0, scale):
    batch_size, _ = v0.shape
    scale = scale.shape[0]
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, scale, out, 1, batch_size, batch_size, BLOCK_ROWS=1, BLOCK_COLS=64)
    return out
