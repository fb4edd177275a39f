import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, predictions, targets):
        cross_entropy_1 = cross_entropy_row(targets, predictions)
        cross_entropy = rsum(cross_entropy_1)
        return cross_entropy


@triton.jit
def cross_entropy_row_kernel(targets_ptr, predictions_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    target = tl.load(targets_ptr + rows, mask=row_mask, other=0)
    cols = tl.arange(0, BLOCK_COLS)[None, :]
    col_mask = cols < n_cols
    p1 = tl.load(predictions_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
    x2 = tl.where(row_mask & col_mask, p1, float('-inf'))
    m = tl.max(x2, axis=1, keep_dims=True)
    s = tl.sum(tl.exp(x2 - m), axis=1, keep_dims=True)
    picked = tl.sum(tl.where(cols == target, x2, 0.0), axis=1, keep_dims=True)
    res3 = m + tl.log(s) - picked
    tl.store(out_ptr + rows, res3, mask=row_mask)


def cross_entropy_row(targets, predictions):
    out = torch.empty((32768,), device=targets.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(32768, meta['BLOCK_ROWS']),)
    cross_entropy_row_kernel[grid](targets, predictions, out, 32768, 4096, BLOCK_ROWS=1, BLOCK_COLS=4096, num_warps=8)
    return out


@triton.jit
def rsum_kernel(cross_entropy_1_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v1 = tl.load(cross_entropy_1_ptr + offs, mask=mask, other=0.0)
    part = tl.sum(tl.where(mask, v1, 0.0), axis=0)
    tl.atomic_add(out_ptr, part * 3.0517578125e-05)


def rsum(cross_entropy_1):
    out = torch.zeros((), device=cross_entropy_1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(32768, meta['BLOCK']),)
    rsum_kernel[grid](cross_entropy_1, out, 32768, BLOCK=1024, num_warps=4)
    return out
