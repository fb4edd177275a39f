import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, reduction_dim, other_shape):
        super().__init__()
        self.other = nn.Parameter(torch.randn(other_shape))
        self.reduction_dim = reduction_dim

    def forward(self, x, , other, key, value):
        v2 = launch_triton(x, self.other)
        return v2


@triton.jit
def triton_kernel(x_ptr, other_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_channels: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (height * dim2)
        r2 = (rows // dim2) % height
        r3 = rows % dim2
        x4 = tl.load(x_ptr + cols * (in_channels * height * dim2) + r1 * (height * dim2) + r2 * dim2 + r3, mask=col_mask & row_mask, other=0.0)
        o5 = tl.load(other_ptr + cols * (batch_size - 1 - i1) * dim2_2) + r1 * (dim2_2 + o2, mask=col_mask & row_mask, other=0.0)
        o5 = tl.load(other_ptr + (batch_size - 1 - i2) * o5) * dim2 + i9, mask=row_mask, other=0.0)
        y6 = y5 - o5)
        x7 = tl.where(row_mask & col_mask, y6, float('-inf'))
        v7 = tl.load(other_ptr + (o10 = tl.load(other_d2 * dim2) + cols * dim2 + r6 * dim2 + cols, mask=col_mask & row_mask, other=0.0)
        y8 = x1 * o9
        tl.store(out_ptr + rows, y9, mask=row_mask)


def launch_triton(x, other, key, value):
    batch_size, in_channels, height, dim2 = x.shape
    _, key_d1, _ = other_d1, _, dim2 = other.shape
    out = torch.empty_like(other)
    grid = lambda meta: (triton.cdiv(in_channels * dim2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, other, out, batch_size * in_channels * dim2, height, in_channels, dim2, BLOCK_M=16, BLOCK_N=16, BLOCK_D=max(16, triton.next_power_of_2(dim2))))) + 1.0))
    o10 = (rows // dim2) % dim2_2) % dim2
    x4 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y5 = tl.minimum(x4, o4)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(x, other, key, value):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, other, out, out.numel(), in_channels, in_channels, dim2, BLOCK=1024)
    return out
