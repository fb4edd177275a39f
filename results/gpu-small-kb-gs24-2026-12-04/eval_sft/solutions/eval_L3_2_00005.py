import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, c_in, out_channels, kernel_size, reduction_dim2, out_channels2, kernel_size2=3):
        super().__init__()
        self.conv_transpose1d = nn.ConvTranspose3d(in_channels=c_in, out_channels=out_channels, kernel_size=kernel_size, bias=False)
        self.reduction_dim = reduction_dim

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v3 = launch_triton(v0)
        return v3


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
        r1 = rows // 70
        r2 = (rows // 9) % 2
        r3 = (rows // 9) % 2
        r4 = rows % 9
        v5 = tl.load(v0_ptr + r1 * 100 + r2 * 100 + cols * 9 + r3 * 9 + r4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r7 = rows // 9
        r8 = (rows // 9) % 2
        r9 = rows % 9
        v10 = tl.load(v0_ptr + r7 * (2 * 9 * 9) + cols * (9 * 9 * 9) + r8 * 9 + r9 * 9 + r10, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, float('-inf'))
        y13 = tl.exp(x12 - m) / s
        y14 = tl.where(y13 > 0.0, y13, y13 * negative_slope)
        tl.store(out_ptr + r7 * (2 * 9 * 9 * 9) + r8 * (9 * 9 * 9) + cols * (9 * 9) + r8 * 9 + r9, y13, mask=col_mask & row_mask)


def launch_triton(v0, x_d0, _, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(x_d0 * 9 * 9 * 9, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, x_d0 * 9 * 9 * 9, 2, BLOCK_ROWS=1024, BLOCK_COLS=8)
    return out
