import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int=1, in_channels: int=11, out_channels: int=1, kernel_size: int=1):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.activation = nn.Softsign()

    def forward(self, x, other):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv2d(x)
        v2 = launch_triton(v0, other)
        return v2


@triton.jit
def triton_kernel(v0_ptr, other_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // batch_size
        r2 = rows % batch_size
        v3 = tl.load(v0_ptr + r1 * (batch_size * batch_size) + cols * batch_size + r2, mask=col_mask & row_mask, other=0.0)
        o4 = tl.load(other_ptr + r1 * (batch_size * batch_size) + cols * batch_size + r2, mask=col_mask & row_mask, other=0.0)
        y5 = v4 / o4
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    res7 = m2 / (batch_size - 1)
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0, other):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, other, out, batch_size * batch_size, batch_size, batch_size, BLOCK_ROWS=16, BLOCK_COLS=4)
    return out
