import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, reduction_dim, shift):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.shift = shift
        self.shift = shift

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v1 = launch_triton(v0, self.shift)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, shift: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    res6 = acc / 10
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(v0, shift):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, 4, 5), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 4 * 4, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 4 * 4, shift, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
