import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_groups, norm_channels):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups=num_groups, num_channels=norm_channels)
        self.gelu = nn.GELU()

    def forward(self, A, B):
        # bmm stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(A, B)
        v2 = launch_triton(v0, self.norm.weight, self.norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, norm_weight_ptr, norm_bias_ptr, out_ptr, n_rows, n_cols, M_size: tl.constexpr, B_d2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = 0.5 * v5 * (1.0 + tl.erf(v5 * 0.7071067811865476))
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (M_size * B_d2) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g9 = rows % 2
        ch12 = g9 * (M_size // 2) + 0
        v13 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y14 = 0.5 * v13 * (1.0 + tl.erf(v12 * 0.7071067811865476))
        x16 = tl.where(row_mask & col_mask, y13, 0.0)
        y17 = (x16 - mean) * rstd
        n18 = tl.load(norm_weight_ptr + ch12, mask=row_mask, other=0.0)
        n19 = tl.load(norm_bias_ptr + ch12, mask=row_mask, other=0.0)
        y20 = y17 * n18 + n19
        tl.store(out_ptr + rows * n_cols + cols, y20, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    batch_size, M_size, B_d2 = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, batch_size * 2, (M_size // 2) * B_d2, M_size, B_d2, BLOCK_ROWS=4, BLOCK_COLS=128)
    return out
