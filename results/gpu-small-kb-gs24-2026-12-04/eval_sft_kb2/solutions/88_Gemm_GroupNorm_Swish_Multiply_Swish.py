import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, num_outputs, num_outputs):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(d_in, out_features)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.gemm(x)
        v3 = launch_triton(v0, self.group_norm.weight, self.group_norm.bias)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    rstd = tl.rsqrt(m2 / 18 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        cl5 = cols // 1
        ch6 = 0 * 9 + cl5
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        y9 = (x8 - mean) * rstd
        g10 = tl.load(group_norm_weight_ptr + ch8, mask=col_mask, other=0.0)
        g11 = tl.load(group_norm_bias_ptr + ch8, mask=col_mask, other=0.0)
        y12 = y9 * g10 + g11
        y13 = y12 * tl.sigmoid(y12)
        tl.store(out_ptr + rows * n_cols + cols, y13, mask=col_mask & row_mask)


def launch_triton(v0, group_norm_weight, group_norm_bias):
    batch_size, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, group_norm_weight, group_norm_bias, out, batch_size, 18, BLOCK_ROWS=2, BLOCK_COLS=64)
    return out
