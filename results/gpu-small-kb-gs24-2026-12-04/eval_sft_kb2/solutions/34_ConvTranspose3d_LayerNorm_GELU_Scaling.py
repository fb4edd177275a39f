import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias, scale_factor=1.0, scaling_shape=(5, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=bias)
        self.layer_norm = nn.LayerNorm(normalized_shape=hidden)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.layer_norm.weight, self.layer_norm.bias, self.clamp_max)
        return v2


@triton.jit
def triton_kernel(v0_ptr, layer_norm_weight_ptr, layer_norm_bias_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    rstd = tl.rsqrt(m2 / in_channels + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v11 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        l14 = tl.load(layer_norm_weight_ptr + cols, mask=col_mask, other=0.0)
        l15 = tl.load(layer_norm_bias_ptr + cols, mask=col_mask, other=0.0)
        y16 = y13 * l14 + l15
        tl.store(out_ptr + rows * n_cols + cols, y16, mask=col_mask & row_mask)


def launch_triton(v0, layer_norm_weight, layer_norm_bias, threshold):
    batch_size, _, in_channels, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * in_channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, layer_norm_weight, layer_norm_bias, out, batch_size * in_channels * in_channels, in_channels, BLOCK_ROWS=1024, BLOCK_COLS=8)
    return out
