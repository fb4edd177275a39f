import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        v0 = launch_triton(x)
        v1 = launch_triton_2(v0)
        return v1


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, batch_size: tl.constexpr, x_d1: tl.constexpr, x_d3: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (x_d1 * x_d1 * x_d1)
    i2 = (offs // (x_d1 * x_d1)) % x_d1
    i3 = (offs // x_d1) % x_d2
    i4 = offs % x_d1
    x5 = tl.load(x_ptr + i1 * (x_d1 * x_d1 * x_d1) + i2 * (x_d1 * x_d1) + i3 * x_d1 + i4, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x5, mask=mask)


def launch_triton(x):
    x_d0, x_d1, _ = x.shape
    out = torch.empty((x_d0, x_d1, x_d1), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), x_d0, x_d1, x_d3, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    carry = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        y7 = tl.cumsum(x6, axis=1) + carry
        carry += tl.sum(x6, axis=1, keep_dims=True)
        tl.store(out_ptr + rows * n_cols + cols, y7, mask=col_mask & row_mask)


def launch_triton_2(v1):
    x_d0, x_d1, _, _, _ = v1.shape
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1 * x_d1, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, x_d0 * x_d1 * x_d1 * x_d1 * x_d1 * x_d1, x_d0, x_d1, BLOCK_ROWS=8, BLOCK_COLS=64)
    return out
