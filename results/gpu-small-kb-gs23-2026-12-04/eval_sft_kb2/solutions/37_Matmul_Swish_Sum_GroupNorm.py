import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, num_outputs, bias_shape):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features, bias)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.matmul(x)
        v2 = launch_triton(v0, self.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y2 = tl.sigmoid(v1)
        x3 = tl.where(row_mask & col_mask, y2, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x3, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x3 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / 15 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g4 = rows % 15
        cl5 = cols // 1
        ch6 = g4 + cl4
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y8 = tl.sigmoid(v6)
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        y10 = (x9 - mean) * rstd
        n10 = tl.load(norm_weight_ptr + ch6, mask=col_mask, other=0.0)
        n11 = tl.load(norm_bias_ptr + ch6, mask=col_mask, other=0.0)
        y12 = y9 * n10 + n11
        tl.store(out_ptr + rows * n_cols + cols, y12, mask=col_mask & row_mask)


def launch_triton(v0, bias):
    batch_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, norm_weight, out, batch_size, 15, BLOCK_ROWS=2, BLOCK_COLS=16)
    return out
