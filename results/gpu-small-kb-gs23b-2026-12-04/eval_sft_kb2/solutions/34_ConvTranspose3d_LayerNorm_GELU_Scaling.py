import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias, scaling_factor=1.0, scaling_factor=1.0):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=bias)
        self.layer_norm = nn.LayerNorm(normalized_shape, eps=eps)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.layer_norm.weight, self.layer_norm.bias, self.scaling_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, layer_norm_weight_ptr, layer_norm_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y4 = 0.5 * v3 * (1.0 + tl.erf(v3 * 0.7071067811865476))
        x5 = tl.where(row_mask & col_mask, y4, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x5, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x5 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * 7) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        j5 = cols // 7
        j6 = cols % 7
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y8 = 0.5 * v7 * (1.0 + tl.erf(v7 * 0.7071067811865476))
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        y10 = (x9 - mean) * rstd
        l10 = tl.load(layer_norm_weight_ptr + j5 * 5 + j6, mask=col_mask, other=0.0)
        l11 = tl.load(layer_norm_bias_ptr + j5 * 5 + j6, mask=col_mask, other=0.0)
        y12 = y9 * l10 + l11
        tl.store(out_ptr + rows * n_cols + cols, y12, mask=col_mask & row_mask)


def launch_triton(v0, layer_norm_weight, layer_norm_bias, scaling, out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(5, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, layer_norm_weight, layer_norm_bias, out, 5, batch_size * 7, batch_size, BLOCK_ROWS=4, BLOCK_COLS=128)
    return out
