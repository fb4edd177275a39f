import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, channels_out, kernel_size, stride, padding, dilation, groups, bias, normalized_shape):
        super(ModelNew, self).__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels=channels_out, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v1 = launch_triton(v0, self.ln.weight, self.ln.bias)
        return v1


@triton.jit
def triton_kernel(v0_ptr, ln_weight_ptr, ln_bias_ptr, out_ptr, n_rows, n_cols, x_d0: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    rstd = tl.rsqrt(m2 / (x_d0 * x_d0) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        j9 = cols // x_d0
        j10 = cols % x_d0
        v11 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        l14 = tl.load(ln_weight_ptr + j9 * x_d0 + j10, mask=col_mask, other=0.0)
        l15 = tl.load(ln_bias_ptr + j9 * x_d0 + j10, mask=col_mask, other=0.0)
        y16 = y13 * l14 + l15
        tl.store(out_ptr + rows * n_cols + cols, y16, mask=col_mask & row_mask)


def launch_triton(v0, ln_weight, ln_bias):
    x_d0, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(x_d0, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, ln_weight, ln_bias, out, x_d0, x_d0 * x_d0 * x_d0, x_d0, x_d0, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
