import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.max_pool = nn.MaxPool3d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v3 = launch_triton(v0, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.dilation)
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
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    res7 = m + tl.log(s)
    y12 = res7 * tl.minimum(tl.maximum(res7 + 3.0, 0.0), 6.0) / 6.0
    tl.store(out_ptr + rows, y12, mask=row_mask)


def launch_triton(v0, max_pool_kernel_size, max_pool_stride, max_pool_padding, max_pool_dilation):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty((batch_size, depth, 1, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * depth, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * batch_size * batch_size * depth, 7, BLOCK_ROWS=2048, BLOCK_COLS=8)
    return out
