import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, c_in, out_channels, kernel_size, reduction_dim, reduction_dim=3):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels=c_in, out_channels=out_channels, kernel_size=kernel_size)
        self.reduction_dim = reduction_dim

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v2 = launch_triton(v0)
        v3 = launch_triton_2(v2)
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
        r1 = rows // 4
        r2 = rows % 4
        v3 = tl.load(v0_ptr + r1 * (2 * 4 * 4) + cols * 4 + r2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r5 = rows // 4
        r6 = rows % 4
        v7 = tl.load(v0_ptr + r5 * (2 * 4) + cols * 4 + r6, mask=col_mask & row_mask, other=0.0)
        y8 = tl.log(v7)
        x9 = tl.where(row_mask & col_mask, y8, float('-inf'))
        y10 = x9 - m - tl.log(s)
        tl.store(out_ptr + r5 * (2 * 4 * 4) + cols * 4 + r6, y10, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 4, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 4, 4, BLOCK_ROWS=32, BLOCK_COLS=4)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v2_ptr + offs, mask=mask, other=0.0)
    y5 = tl.exp(v4)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(v2):
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, out, out.numel(), BLOCK=256)
    return out
