import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, hidden_size, num_outputs=5, num_outputs=0, num_outputs=0, num_features=22, num_outputs=0, hidden_size=0, hidden_dim=0):
        super(ModelNew, self).__init__()
        self.gn = nn.GroupNorm(num_groups=input_channels, out_features=hidden_size)
        self.leaky_relu = nn.LeakyReLU(negative_slope=negative_slope)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v2 = launch_triton(v0, self.gn.weight, self.gn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, gn_weight_ptr, gn_bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    rstd = tl.rsqrt(m2 / 45 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g8 = rows % 2
        ch10 = g8 * 1 + 0
        v11 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        g14 = tl.load(gn_weight_ptr + ch10, mask=row_mask, other=0.0)
        g15 = tl.load(gn_bias_ptr + ch10, mask=row_mask, other=0.0)
        y16 = y13 * g14 + g15
        y17 = tl.where(y16 >= 0.0, y16, y16 * 0.01)
        tl.store(out_ptr + rows * n_cols + cols, y17, mask=col_mask & row_mask)


def launch_triton(v0, gn_weight, gn_bias):
    batch_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, gn_weight, gn_bias, out, batch_size * 2, 21, BLOCK_ROWS=8, BLOCK_COLS=64)
    return out
