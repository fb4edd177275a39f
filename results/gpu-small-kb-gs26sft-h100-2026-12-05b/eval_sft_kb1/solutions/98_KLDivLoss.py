import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, predictions, targets):
        v0 = launch_triton(predictions, targets)
        return v0


@triton.jit
def triton_kernel(predictions_ptr, targets_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        p5 = tl.load(predictions_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        v6 = tl.load(targets_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y7 = (p5 - v6) * (p5 - v6)
        x8 = tl.where(row_mask & col_mask, y7, float('-inf'))
        m_new = tl.maximum(m, tl.max(x8, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x8 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        p13 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        v14 = tl.load(targets_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y15 = (y14 - v10) * (p
        x8 = tl.where(row_mask & col_mask, y7, float('-inf'))
        y9 = tl.exp(x16 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y9, mask=col_mask & row_mask)


def launch_triton(predictions, targets):
    predictions_d0, predictions_d1, predictions_d3 = predictions.shape
    out = torch.empty_like(predictions)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](predictions, targets, out, 1, predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d1, predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d0 * predictions_d2)))
    rstd = tl.rsqrt(m2 / predictions_d2)
        i2 = rows % in_channels
        v5 = tl.load(targets_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        v6 = tl.load(targets_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y7 = (p5 - v6) * (v5 - v6)
        x8 = tl.where(row_mask & col_mask, y7, 0.0)
        acc += tl.sum(x8, axis=1, keep_dims=True)
    res9 = acc
    tl.store(out_ptr + rows, res9, mask=row_mask)


def launch_triton_2(v0_1):_1):
    predictions_d1, predictions_d1, predictions_d1, predictions_d2, predictions_d3 = predictions.shape
    out = torch.empty((), device=predictions.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](x, target, out, 1, predictions_d0 * predictions_d0 * predictions_d0 * predictions_d1, predictions_d2, BLOCK_ROWS=1, BLOCK_COLS=128)
    return out
