import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.linear(x)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    amax = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y2 = tl.sigmoid(v1)
        x3 = tl.where(row_mask & col_mask, y2, 0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x3), axis=1, keep_dims=True))
    scale = tl.where(amax > 0.0, amax, 1.0)
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = tl.sigmoid(v4)
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        acc += tl.sum((x6 / scale) * (x6 / scale), axis=1, keep_dims=True)
    res7 = scale * tl.sqrt(acc)
    y8 = tl.sigmoid(res6)
    tl.store(out_ptr + rows, y8, mask=row_mask)


def launch_triton(v0):
    batch_size, _ = v0.shape
    out = torch.empty((batch_size, 1, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size, 16, BLOCK_ROWS=8, BLOCK_COLS=32)
    return out
