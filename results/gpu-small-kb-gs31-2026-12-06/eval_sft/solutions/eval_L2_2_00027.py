import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, kernel_size: int, groups: int, bias: bool=True, num_groups: int, bias: bool=True, num_groups: int, bias: bool=True, num_channels: int):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(in_features, out_features, bias=bias)
        self.norm = nn.GroupNorm(group_norm_num_groups, num_channels)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v1 = launch_triton(v0, self.norm.weight, self.norm.bias)
        return v1


@triton.jit
def triton_kernel(v0_ptr, norm_weight_ptr, norm_bias_ptr, out_ptr, n_rows, n_cols, x_d1: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (x_d1 * 16) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g8 = rows % x_d1
        cl9 = cols // 1
        ch10 = g8 * (x_d1 // 5) + cl9
        v11 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        n14 = tl.load(norm_weight_ptr + ch10, mask=col_mask & row_mask, other=0.0)
        n15 = tl.load(norm_bias_ptr + ch10, mask=col_mask & row_mask, other=0.0)
        y16 = y13 * n14 + n15
        tl.store(out_ptr + rows * n_cols + cols, y16, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    N_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(N_size * 5, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, N_size * 5, x_d1 // 5, x_d1, BLOCK_ROWS=64, BLOCK_COLS=2)
    return out
