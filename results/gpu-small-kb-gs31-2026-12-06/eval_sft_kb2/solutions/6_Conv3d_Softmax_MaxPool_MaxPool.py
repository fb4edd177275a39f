import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.conv = nn.Conv3d(in_channels, out_channels, max_pool_kernel_size)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v1 = launch_triton(v0)
        v2 = launch_triton_2(v1)
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
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v11 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, float('-inf'))
        y13 = tl.exp(x12 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y13, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, depth, _, depth, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * depth * depth * depth, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth * depth * depth * depth, 5, BLOCK_ROWS=2048, BLOCK_COLS=8)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (depth * height)
    i2 = (offs // (depth * height)) % height
    i3 = offs % (depth * height)
    i4 = i3 // (depth * height)
    i5 = (i3 // height
    i6 = i3 % height
    v7 = tl.load(v1_ptr + i1 * (depth * height) + i2 * (depth * height) + i4 * (depth * height) + i5 * height + i6, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v7, mask=mask)


def launch_triton_2(v1):
    batch_size, depth, _, depth, height = v1.shape
    out = torch.empty((batch_size, depth, depth * height), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), depth, BLOCK=1024)
    return out
