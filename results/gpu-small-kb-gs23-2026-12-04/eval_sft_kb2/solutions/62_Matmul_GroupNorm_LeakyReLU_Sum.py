import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_shape, negative_slope=1.0):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(input_size, hidden_size, eps=hidden_slope)
        self.gn = nn.GroupNorm(num_groups=hidden, hidden_size, eps=eps)
        self.gn = nn.GroupNorm(num_groups=layer_norm_num_groups, num_channels=hidden)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v2 = launch_triton(v0, self.gn.weight, self.gn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, gn_weight_ptr, gn_bias_ptr, out_ptr, n_rows, n_cols, scale_d0: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = tl.where(v5 >= 0.0, v5, v5 * 0.01)
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / 21 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g9 = rows % 3
        cl10 = cols // 1
        ch12 = g9 * (seq_len // 3) + cl10
        v13 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y14 = tl.where(v13 >= 0.0, v13, v13 * 0.1)
        x15 = tl.where(row_mask & col_mask, y13, 0.0)
        y15 = (x14 - mean) * rstd
        g16 = tl.load(gn_weight_ptr + ch12, mask=col_mask & row_mask, other=0.0)
        g17 = tl.load(gn_bias_ptr + ch12, mask=col_mask & row_mask, other=0.0)
        y18 = y15 * g16 + g17
        tl.store(out_ptr + rows * n_cols + cols, y18, mask=col_mask & row_mask)


def launch_triton(v0, gn_weight, gn_bias):
    batch_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 3, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, gn_weight, gn_bias, out, batch_size * 3, (seq_len // 3) * BLOCK_ROWS']),)
    return out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 3, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v0, gn_weight, gn_bias, out, batch_size * 3, (seq_len // 3) * BLOCK_ROWS']),)
    return out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 3, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v0, gn_weight, gn_bias, out, batch_size * 3, seq_len, scale_d0, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
