import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, bias=False):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, groups=groups, bias=bias)
        self.relu = nn.ReLU()
        self.group_norm = nn.RMSNorm(num_groups, num_channels)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.group_norm.weight, self.group_norm.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, group_norm_weight_ptr, group_norm_bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    ss = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = tl.minimum(tl.maximum(v5, 0.0), 6.0)
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        ss += tl.sum(x7 * x7, axis=1, keep_dims=True)
    inv = tl.rsqrt(ss / 16 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v12 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y13 = tl.minimum(tl.maximum(v12, 0.0), 6.0)
        x14 = tl.where(row_mask & col_mask, y13, 0.0)
        y15 = x14 * inv
        g16 = tl.load(rms_norm_weight_ptr + ch11 * 8 + cols, mask=col_mask, other=0.0)
        y17 = y15 * g16
        tl.store(out_ptr + rows * n_cols + cols, y17, mask=col_mask & row_mask)


def launch_triton(v0, group_norm_weight):
    batch_size, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, group_norm_weight, group_norm_bias, out, batch_size * 2, 10, BLOCK_ROWS=8, BLOCK_COLS=32)
    return out
