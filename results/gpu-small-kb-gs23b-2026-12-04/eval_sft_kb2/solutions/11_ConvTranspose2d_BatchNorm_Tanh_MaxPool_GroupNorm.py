import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, groups, num_channels, num_filters, num_channels, max_norm_eps):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.norm = nn.BatchNorm2d(num_features=num_channels)
        self.tanh = nn.Tanh()

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.norm.weight, self.norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, norm_weight_ptr, norm_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_channels: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (in_channels * batch_size * batch_size)
        sp2 = (cols // (batch_size * batch_size)) % in_channels
        i3 = sp2 // batch_size
        i4 = sp2 % batch_size
        v5 = tl.load(v0_ptr + n1 * (in_channels * batch_size * batch_size) + rows * (batch_size * batch_size) + i3 * batch_size + i4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * batch_size * batch_size) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // (batch_size * batch_size * batch_size)
        sp8 = 1], dtype=col_mask & row_mask, other=0.0)
        y9 = 1.0 - 2.0 / (tl.exp(2.0 * v8) + 1.0)
        x10 = tl.where(row_mask & col_mask, y9, 0.0)
        y11 = (x10 - mean) * rstd
        n12 = tl.load(norm_weight_ptr + rows, mask=row_mask, other=0.0)
        n13 = tl.load(norm_bias_ptr + rows, mask=row_mask, other=0.0)
        y14 = y11 * n12 + n13
        tl.store(out_ptr + n5 * (in_channels * batch_size * batch_size) + rows * (batch_size * batch_size) + i11 * batch_size + i12, y14, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    batch_size, in_channels, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(in_channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, in_channels, batch_size * batch_size * batch_size, batch_size, in_channels, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
