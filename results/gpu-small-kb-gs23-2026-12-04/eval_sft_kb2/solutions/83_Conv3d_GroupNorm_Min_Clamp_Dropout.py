import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, hidden_value, max_value):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.norm = nn.GroupNorm(hidden, out_channels, eps=eps)
        self.norm = nn.GroupNorm(hidden, out_channels, eps)
        self.norm = nn.GroupNorm(min_val, max_value)
        self.norm = nn.GroupNorm(group_norm_num_groups, out_channels, eps)
        self.relu = nn.ReLU()
        self.min_val = min_value

    def forward(self, x):
        v2 = launch_triton(x, self.norm.weight, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.weight, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.bias, self.norm.weight, self.norm.bias, self.norm.bias)
        v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
        y7 = tl.minimum(tl.maximum(v6, 0.0), max_val)
        y8 = y7 - s7
        y9 = tl.minimum(tl.maximum(y8, 0.0), max_val)
        tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0, norm_weight, norm_bias_ptr, shift_ptr, max_norm_bias_ptr, shift_ptr, out.: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        g8 = rows % 3
        cl9 = cols // 1
        ch10 = g8 * 1 + cl9
        v11 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y11 = tl.minimum(tl.maximum(v10, 0.0), max_val)
        x12 = tl.where(row_mask & col_mask, y11, 0.0)
        y13 = (x12 - mean) * rstd
        n14 = tl.load(norm_weight_ptr + ch10, mask=col_mask & row_mask, other=0.0)
        y15 = y13 * n14 + n15
        v16 = tl.load(divisor_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y17 = y15 + v16
        v17 = tl.load(divisor_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y18 = y16 / v17
        tl.store(out_ptr + rows * n_cols + cols, y18, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias, divisor):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, divisor, out, batch_size * 2, divisor, shift, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
