import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_features, inorm_eps, inorm_momentum):
        super(ModelNew, self).__init__()
        self.norm = nn.InstanceNorm1d(num_features=num_features, eps=inorm_eps, momentum=0.1)

    def forward(self, A, B):
        # bmm stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(A, B)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, A_d2: tl.constexpr, B_d3: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x4, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x4 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (A_d2 * B_d3) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        y9 = (x8 - mean) * rstd
        y10 = tl.minimum(tl.maximum(y9, 0.0), 6.0)
        tl.store(out_ptr + rows * n_cols + cols, y10, mask=col_mask & row_mask)


def launch_triton(v0):
    A_d0, A_d1, A_d2, B_d3 = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(A_d0 * A_d1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, A_d0 * A_d1, A_d2 * B_d1, A_d2, B_d3, BLOCK_ROWS=32, BLOCK_COLS=16)
    return out
