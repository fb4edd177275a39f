import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, scaling_shape, scaling_shape, 1, 1, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.bias_value = bias_factor
        self.bias_shape = bias_shape))
        self.bias_value = bias_factor

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.bias_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = v4 * scaling_factor
        x6 = tl.where(row_mask & col_mask, y5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v10 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y11 = v10 - bias_factor
        x12 = tl.where(row_mask & col_mask, y11, float('-inf'))
        y13 = x12 - m - tl.log(s)
        tl.store(out_ptr + rows * n_cols + cols, y13, mask=col_mask & row_mask)


def launch_triton(v0, bias_value):
    batch_size, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * batch_size, 6, bias_factor, BLOCK_ROWS=8, BLOCK_COLS=32)
    return out
