import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias2, bias, other_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v3 = launch_triton(v0, self.bias)
        return v3


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    res7 = m + tl.log(s)
    o8 = rows // 20
    o8
    o9 = (rows // 8) % 8
    o9 = (rows // 8) % 8
        r10 = rows % 8
        v11 = tl.load(bias_ptr + o8 * 8 + o10 * 8 + o11, mask=col_mask & row_mask, other=0.0)
    y13 = res7 + b11
    tl.store(out_ptr + rows, y13, mask=row_mask)


def launch_triton(v0, bias):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty_like(bias)
    grid = lambda meta: (triton.cdiv(batch_size * 7 * 7 * 8, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, out, batch_size * 7 * 8, 8, BLOCK_ROWS=256, BLOCK_COLS=8)
    return out
