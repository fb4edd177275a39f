import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, groups, num_groups):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.tanh = nn.Tanh()
        self.norm = nn.BatchNorm2d(num_features=out_channels)

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.batch_norm.weight, self.batch_norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, batch_norm_weight_ptr, batch_norm_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (height * width)
        sp2 = cols % (height * width)
        i3 = sp2 // width
        i4 = sp2 % width
        v5 = tl.load(v0_ptr + n1 * (height * height * width) + rows * (height * width) + i3 * width + i4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // (height * width)
        sp8 = cols % (height * width)
        i9 = sp8 // width
        i10 = sp8 % width
        v11 = tl.load(v0_ptr + n7 * (height * height * width) + rows * (height * width) + i9 * width + i10, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(batch_norm_weight_ptr + rows, mask=row_mask, other=0.0)
        b15 = tl.load(batch_norm_bias_ptr + rows, mask=row_mask, other=0.0)
        y16 = y13 * b14 + b15
        tl.store(out_ptr + n7 * (height * height * width) + rows * (height * width) + i9 * width + i10, y16, mask=col_mask & row_mask)


def launch_triton(v0, batch_norm_weight, batch_norm_bias):
    batch_size, _, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(height, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, batch_norm_weight, batch_norm_bias, out, height, batch_size * height * width, batch_size, height, width, BLOCK_ROWS=2, BLOCK_COLS=128)
    return out
