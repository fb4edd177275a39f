import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, kernel_size, stride, padding):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v1 = launch_triton(v0)
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = self.conv_transpose(v1)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('inf'))
        acc = tl.minimum(acc, tl.min(x6, axis=1, keep_dims=True))
    res7 = acc
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0):
    batch_size, depth, _, depth, _ = v0.shape
    out = torch.empty((batch_size, depth, depth, height), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * depth * depth * height, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth * depth * depth * depth, height, BLOCK_ROWS=2048, BLOCK_COLS=8)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('inf'))
        acc = tl.minimum(acc, tl.min(x6, axis=1, keep_dims=True))
    res7 = acc
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton_2(v1):
    batch_size, depth, _, depth, _ = v1.shape
    out = torch.empty((batch_size, depth, depth, height), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * depth * height, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size * depth * depth * depth * depth * depth, depth, depth, depth, BLOCK_ROWS=2048, BLOCK_COLS=8)
    return out
