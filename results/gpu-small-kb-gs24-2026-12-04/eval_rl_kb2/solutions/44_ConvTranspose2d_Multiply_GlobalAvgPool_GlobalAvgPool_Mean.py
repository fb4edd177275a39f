import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, multiplier):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding)
        self.multiplier = multiplier

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.multiplier)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, multiplier: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (height * width)
        r2 = (rows // width) % height
        r3 = rows % width
        v4 = tl.load(v0_ptr + r1 * (in_channels * height * width) + r2 * (height * width) + cols * width + r3, mask=col_mask & row_mask, other=0.0)
        y5 = v4 * multiplier
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        acc += tl.sum(x6, axis=1, keep_dims=True)
    res7 = acc / in_channels
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0, multiplier):
    batch_size, in_channels, height, width = v0.shape
    out = torch.empty((batch_size, in_channels, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * width, height, in_channels, height, width, BLOCK_ROWS=256, BLOCK_COLS=8)
    return out
