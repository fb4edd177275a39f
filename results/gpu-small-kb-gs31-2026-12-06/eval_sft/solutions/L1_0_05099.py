import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_fn = nn.MSELoss(reduction='mean')

    def forward(self, predictions, target):
        v0 = launch_triton(predictions, target)
        return v0


@triton.jit
def triton_kernel(predictions_ptr, target_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_channels: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        p5 = tl.load(predictions_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        v6 = tl.load(target_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y7 = (p5 - v6) * (p5 - v6)
        x8 = tl.where(row_mask & col_mask, y7, 0.0)
        acc += tl.sum(x8, axis=1, keep_dims=True)
    res9 = acc / (batch_size * in_channels * height * dim2)
    tl.store(out_ptr + rows, res9, mask=row_mask)


def launch_triton(predictions, target):
    batch_size, in_channels, height, dim2 = predictions.shape
    out = torch.empty((), device=predictions.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](predictions, target, out, 1, batch_size * in_channels * height * dim2, batch_size, in_channels, height, dim2, BLOCK_ROWS=1, BLOCK_COLS=128)
    return out
