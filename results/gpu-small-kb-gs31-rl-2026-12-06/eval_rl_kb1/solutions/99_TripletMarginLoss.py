import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, margin=1.0):
        super(ModelNew, self).__init__()
        self.loss_fn = nn.CrossEntropyLoss(reduction='mean')

    def forward(self, anchor, positive, negative):
        v0 = launch_triton(anchor, negative)
        v1 = launch_triton_2(v0)
        v2 = launch_triton_3(v1)
        return v2


@triton.jit
def triton_kernel(predictions_ptr, targets_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    amax = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        p3 = tl.load(predictions_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        v4 = tl.load(negative_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = (p3 - v4) * (p3 - v4)
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x6), axis=1, keep_dims=True))
    scale = tl.where(amax > 0.0, amax, 1.0)
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        p7 = tl.load(predictions_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y8 = y9 - n7 - p8 - p10 - p10 - v17)
        tl.store(out_ptr + rows * n_cols + cols, y8, mask=col_mask & row_mask)


def launch_triton(anchor, negative):
    batch_size, predictions_d1 = predictions.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](anchor, negative, out, M_size, predictions_d1, BLOCK_ROWS=1, BLOCK_COLS=64)
    return out


@triton.jit
def triton_2_kernel(anchor_ptr, positive_ptr, v0_6_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    amax = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        a1 = tl.load(anchor_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        p2 = tl.load(positive_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y3 = a1 - p2
        y4 = y3 + 1e-06
        x5 = tl.where(row_mask & col_mask, y4, 0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x5), axis=1, keep_dims=True))
    scale = tl.where(amax > 0.0, amax, 1.0)
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        a6 = tl.load(anchor_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        p7 = tl.load(positive_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y8 = a6 - p7
        y9 = y8 + 1e-06
        x10 = tl.where(row_mask & col_mask, y9, 0.0)
        acc += tl.sum((x10 / scale) * (x10 / scale), axis=1, keep_dims=True)
    res11 = scale * tl.sqrt(acc)
    v12 = tl.load(v0_6_ptr + rows, mask=row_mask, other=0.0)
    y13 = res11 - v12
    y14 = y13 + 1.0
    y15 = tl.maximum(y14, 0.0)
    tl.store(out_ptr + rows, y15, mask=row_mask)


def launch_triton_2(anchor, positive, v0_6):
    batch_size, anchor_d1 = anchor.shape
    out = torch.empty_like(predictions)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](anchor, positive, v0_6, out, batch_size, anchor_d1, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out


@triton.jit
def triton_3_kernel(v0_9_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_9_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, 0.0)
        acc += tl.sum(x2, axis=1, keep_dims=True)
    res3 = acc
    tl.store(out_ptr + rows, res3, mask=row_mask)


def launch_triton_3(v0_9):
    batch_size = v0_9.shape[0]
    out = torch.empty((), device=v0_9.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_3_kernel[grid](v0_9, out, 1, batch_size, BLOCK_ROWS=1, BLOCK_COLS=8)
    return out
