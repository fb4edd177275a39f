import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=bias2)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0)
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
        y5 = 0.5 * v4 * (1.0 + tl.erf(v4 * 0.7071067811865476))
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        acc += tl.sum(x6, axis=1, keep_dims=True)
    res7 = acc / 16
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * batch_size * batch_size * batch_size, BLOCK_ROWS=64, BLOCK_COLS=16)
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
        r1 = rows // 4
        r2 = rows % 4
        v3 = tl.load(v1_ptr + r1 * 44 + r1 * 4 + r2 * 4 + r3, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('inf'))
        acc = tl.minimum(acc, tl.min(x4, axis=1, keep_dims=True))
    res5 = acc
    tl.store(out_ptr + rows, res5, mask=row_mask)


def launch_triton_2(v1):
    batch_size, _, _, _ = v1.shape
    out = torch.empty((batch_size, 4), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(44, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, 444, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
