import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x, residual):
        v0 = launch_triton(x, self.dim)
        v1 = launch_triton_2(v0, residual)
        return v1


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, batch_size: tl.constexpr, x_d1: tl.constexpr, x_d3: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (x_d1 * x_d3)
    i2 = (offs // x_d3) % x_d1
    i3 = offs % x_d3
    x4 = tl.load(x_ptr + (x_d0 - 1 - i1) * (features * x_d3) + i2 * x_d3 + i3, mask=mask, other=0.0)
    r6 = tl.load(residual_ptr + i1 * (x_d1 * x_d3) + i2 * x_d3 + i3, mask=mask, other=0.0)
    y7 = x5 + r6
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(x, residual):
    x_d0, x_d1, _, x_d3 = x.shape
    out = torch.empty((x_d0, x_d1, x_d3), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), x_d0, x_d1, x_d3, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v2_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, 0.0)
        acc += tl.sum(x2, axis=1, keep_dims=True)
    res3 = acc
    tl.store(out_ptr + rows, res3, mask=row_mask)


def launch_triton_2(v2_9):
    x_d0, x_d1, _, x_d3 = x.shape
    out = torch.empty((x_d0, x_d1, x_d3), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1 * x_d3, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v2, residual, out, x_d1 * x_d3, x_d0, x_d3, BLOCK_ROWS=256, BLOCK_COLS=8)
    return out
