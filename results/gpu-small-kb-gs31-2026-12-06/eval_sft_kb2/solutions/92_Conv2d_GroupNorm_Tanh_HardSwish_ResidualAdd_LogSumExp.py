import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dim=3):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv1d(input_channels, out_channels, kernel_size, bias=False)
        self.conv = nn.Conv1d(out_channels, out_channels, out_channels, eps=1e-05, momentum=0.1)
        self.conv = nn.Conv1d(out_channels, out_channels, eps=1e-05, momentum=0.1)

    def forward(self, x):
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0)
        v3 = launch_triton_2(v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    res5 = m + tl.log(s)
    y8 = 1.0 - 2.0 / (tl.exp(2.0 * res5) + 1.0)
    tl.store(out_ptr + rows, y8, mask=row_mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 8, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 8 * 8, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 8 * 8, 8, BLOCK_ROWS=128, BLOCK_COLS=16)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v1_ptr + offs, mask=mask, other=0.0)
    y5 = v4 - (1.0 - 2.0 / (tl.exp(2.0 * v4) + 1.0))
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(v1):
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), BLOCK=1024)
    return out
