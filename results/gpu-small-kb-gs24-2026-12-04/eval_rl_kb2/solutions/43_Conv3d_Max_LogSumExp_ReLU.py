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
        v2 = launch_triton(v0, self.max_pool.kernel_size, self.max_pool.stride, self.max_pool.padding, self.max_pool.dilation)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (in_channels * depth * height * width)
        r2 = (rows // (depth * height * width)) % in_channels
        r3 = (rows // width) % depth
        r4 = rows % width
        v5 = tl.load(v0_ptr + r1 * (in_channels * depth * height * width) + r2 * (depth * height * width) + cols * (height * width) + r3 * width + r4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    res7 = m + tl.log(s)
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0):
    batch_size, in_channels, depth, height, width = v0.shape
    out = torch.empty((batch_size, in_channels, depth, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * depth * width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * depth * height * width, in_channels, depth, height, width, BLOCK_ROWS=1024, BLOCK_COLS=8)
    return out
