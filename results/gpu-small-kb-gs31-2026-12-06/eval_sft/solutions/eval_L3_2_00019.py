import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, c_out, kernel_size, stride, padding, reduce_dim):
        super(ModelNew, self).__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, c_out, kernel_size, stride=stride, padding=padding)
        self.negative_slope = negative_slope
        self.reduce_dim = reduce_dim

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v2 = launch_triton(v0, self.negative_slope)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, negative_slope: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // 9
        r2 = rows % 9
        v3 = tl.load(v0_ptr + cols * 96 + r1 * 9 + r2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('inf'))
        acc = tl.minimum(acc, tl.min(x4, axis=1, keep_dims=True))
    res5 = acc
    y8 = tl.where(res5 > 0.0, res5, y7, y10, mask=row_mask, other=0.0)
        y11 = tl.minimum(tl.maximum(res5, -0.5), 0.5)
    tl.store(out_ptr + rows, y8, mask=row_mask)


def launch_triton(v0, negative_slope):
    B, _, _ = v0.shape
    out = torch.empty((2, 9), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(36, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, 36, batch_size, negative_slope, BLOCK_ROWS=32, BLOCK_COLS=16)
    return out
