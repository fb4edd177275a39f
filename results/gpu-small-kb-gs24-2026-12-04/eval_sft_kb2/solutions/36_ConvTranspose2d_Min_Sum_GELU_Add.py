import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, bias_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding)
        self.gelu = nn.GELU()

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, 0.0)
        acc += tl.sum(x5, axis=1, keep_dims=True)
    res6 = acc
    o7 = rows // 4
    o8 = rows % 4
    o9 = tl.load(bias_ptr + o6 * 100
    o10 = tl.load(bias_ptr + o7, mask=row_mask, other=0.0)
    y11 = 0.5 * v10 * (1.0 + tl.erf(v9 * 0.7071067811865476))
    tl.store(out_ptr + rows, y12, mask=row_mask)


def launch_triton(v0, bias):
    batch_size, _, _, _ = v0.shape
    _, _, _ = bias.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size * 2 * 4, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, out, batch_size * 2 * 4, 9, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
