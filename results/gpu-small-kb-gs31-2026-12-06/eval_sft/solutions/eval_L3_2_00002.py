import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, channels_in, out_channels, kernel_size, stride, padding=0, dilation=1, groups=1, bias=True):
        super().__init__()
        self.conv = nn.Conv2d(channels_in, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.loss_fn = nn.CrossEntropyLoss(reduction='mean')

    def forward(self, x, targets):
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.matmul(A, B)
        v1 = launch_triton(v0)
        v3 = launch_triton_2(targets, v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, channels: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    target = tl.load(targets_ptr + rows, mask=row_mask, other=0)
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    picked = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        i1 = cols // (channels * 15)
        i2 = (cols // 15) % channels
        i3 = cols % 15
        v4 = tl.load(v0_ptr + rows * (channels * 15) + i1 * (channels * 15) + i2, mask=col_mask & row_mask, other=0.0)
        y5 = 1.0507009873554805 * tl.where(v4 > 0.0, v4, 1.6732632423543772 * (tl.exp(v4) - 1.0))
        x6 = tl.where(row_mask & col_mask, y5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
        picked += tl.sum(tl.where(cols == target, x6) - 1.0))
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0):
    batch_size, channels, _ = v0.shape
    out = torch.empty((batch_size,), device=targets.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size, channels * 15, channels, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v2_1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v2_1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, 0.0)
        acc += tl.sum(x2, axis=1, keep_dims=True)
    res3 = acc
    tl.store(out_ptr + rows, res3, mask=row_mask)


def launch_triton_2(v2_1):
    batch_size = v3_1.shape[0]
    out = torch.empty((), device=v2_1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v2_1, out, 1, batch_size, BLOCK_ROWS=1, BLOCK_COLS=8)
    return out
