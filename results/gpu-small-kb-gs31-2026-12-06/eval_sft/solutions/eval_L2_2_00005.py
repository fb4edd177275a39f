import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduction_dim, kernel_shape=(4, 11, 17)):
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(kernel_shape))
        self.reduction_dim = reduction_dim

    def forward(self, A):
        # bmm stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(A, self.kernel)
        v1 = launch_triton(v0)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    ss = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        ss += tl.sum(x4 * x4, axis=1, keep_dims=True)
    inv = 1.0 / tl.maximum(tl.sqrt(ss), 1e-12)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        y9 = x8 * inv
        tl.store(out_ptr + rows * n_cols + cols, y9, mask=col_mask & row_mask)


def launch_triton(v0):
    A_d0, A_d1, kernel_d2 = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(A_d0 * A_d1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, A_d0 * A_d1, kernel_d2, BLOCK_ROWS=64, BLOCK_COLS=16)
    return out
