import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        mean_out = mean(x)
        truediv = div(x, mean_out)
        return truediv


@triton.jit
def mean_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y2 = tl.abs(x1)
        x3 = tl.where(row_mask & col_mask, y2, 0.0)
        acc += tl.sum(x3, axis=1, keep_dims=True)
    res4 = acc / 65535
    tl.store(out_ptr + rows, res4, mask=row_mask)


def mean(x):
    out = torch.empty((32768, 1), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(32768, meta['BLOCK_ROWS']),)
    mean_kernel[grid](x, out, 32768, 65535, BLOCK_ROWS=2, BLOCK_COLS=2048, num_warps=8)
    return out


@triton.jit
def div_kernel(x_ptr, mean_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // 65535
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    m4 = tl.load(mean_ptr + i1, mask=mask, other=0.0)
    y5 = x3 / m4
    tl.store(out_ptr + offs, y5, mask=mask)


def div(x, mean):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    div_kernel[grid](x, mean, out, out.numel(), BLOCK=2048)
    return out
