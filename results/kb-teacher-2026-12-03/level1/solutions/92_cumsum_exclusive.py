import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        cumsum_out = cumsum(x)
        select_out = select(x)
        unsqueeze = select_out.unsqueeze(1).contiguous()
        cat_out = cat(unsqueeze, cumsum_out)
        return cat_out


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    carry = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + rows * 32768 + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, x1, 0.0)
        y3 = tl.cumsum(x2, axis=1) + carry
        carry += tl.sum(x2, axis=1, keep_dims=True)
        tl.store(out_ptr + rows * n_cols + cols, y3, mask=col_mask & row_mask)


def cumsum(x):
    out = torch.empty((32768, 32767), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(32768, meta['BLOCK_ROWS']),)
    cumsum_kernel[grid](x, out, 32768, 32767, BLOCK_ROWS=2, BLOCK_COLS=2048, num_warps=8)
    return out


@triton.jit
def select_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x1 = tl.load(x_ptr + offs * 32768, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x1, mask=mask)


def select(x):
    out = torch.empty((32768,), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    select_kernel[grid](x, out, out.numel(), BLOCK=128)
    return out


@triton.jit
def cat_kernel(unsqueeze_ptr, cumsum_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // 32768
    i2 = offs % 32768
    first3 = i2 < 1
    second4 = i2 >= 1
    v6 = tl.load(cumsum_ptr + i1 * 32767 + (i2 - 1), mask=mask & second4, other=0.0)
    y7 = tl.where(first3, 0.0, v6)
    tl.store(out_ptr + offs, y7, mask=mask)


def cat(unsqueeze, cumsum):
    out = torch.empty((32768, 32768), device=unsqueeze.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    cat_kernel[grid](unsqueeze, cumsum, out, out.numel(), BLOCK=1024)
    return out
