import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, divide_by, BLOCK_ROWS=13, BLOCK_COLS=(13, 1)):
       _mask = tl.maximum(0, 1], dtype=tl.float32)
        cols = tl.load(_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = x4 / divide_by
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        y7 = x6 * inv
        tl.store(out_ptr + rows * n_cols + cols, y7, mask=col_mask & row_mask)


def launch_triton(x, rms_by):
    batch_size, M_size, K_size = A.shape
    out = torch.empty_like(A)
    grid = lambda meta: (triton.cdiv(batch_size * M_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, rms_by, out, batch_size * M_size, K_size, M_size, BLOCK_ROWS=32, BLOCK_COLS=16)
    return v7


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, M_size: tl.constexpr, K_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (M_size * M_size)
    i2 = (offs // M_size) % M_size
    i3 = offs % M_size
    x4 = tl.load(x_ptr + i1 * (M_size * K_size) + i2 * K_size + i3, mask=mask, other=0.0)
    y5 = x4 / divide_by
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(x, divide_by):
    _, M_size, K_size = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), M_size, K_size, BLOCK=256)
    return out
