import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, reduction_dim=1, reduction_dim2=0, multiplier=0.5):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding, True)
        self.multiplier = multiplier

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v1 = launch_triton(v0)
        v2 = launch_triton_2(v1)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, 0.0)
        acc += tl.sum(x5, axis=1, keep_dims=True)
    res6 = acc / 16
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 4, batch_size, height), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 4 * 4, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 4 * 4, 8, BLOCK_ROWS=256, BLOCK_COLS=8)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // 4
        r2 = rows % 4
        v3 = tl.load(v1_ptr + r1 * 44 + cols * 4 + r2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        acc += tl.sum(x4, axis=1, keep_dims=True)
    res5 = acc
    tl.store(out_ptr + rows, res5, mask=row_mask)


def launch_triton_2(v1):
    batch_size, _, _, _ = v1.shape
    out = torch.empty((batch_size, 4, 4), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 4, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size * 4, 4, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
