import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int, margin: float=1.0):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def forward(self, x, positive, negative):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v2_6 = launch_triton(v0, negative)
        return v2


@triton.jit
def triton_kernel(v0_ptr, negative_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    amax = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        n5 = tl.load(negative_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y6 = tl.where(v5 > 0.0, v5 * (tl.log(v5) - p4), 0.0)
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x7), axis=1, keep_dims=True))
    scale = tl.where(amax > 0.0, amax, 1.0)
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v9 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        n10 = tl.load(negative_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y11 = v10 - n10
        y12 = y12 + 1e-06
        x12 = tl.where(row_mask & col_mask, y13, 0.0)
        acc += tl.sum((x12 / scale) * (x12 / scale), axis=1, keep_dims=True)
    res13 = scale * tl.sqrt(acc)
    tl.store(out_ptr + rows, res13, mask=row_mask)


def launch_triton(v0, negative):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size,), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, negative, out, batch_size, 9, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out
