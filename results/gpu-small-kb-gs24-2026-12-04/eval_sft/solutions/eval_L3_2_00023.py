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
    batch_size, M_size, N_size = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * M_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, rms_by, out, batch_size * M_size, N_size, K_size, BLOCK_ROWS=64, BLOCK_COLS=16)
    return out
