import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int, groups: int, bias: bool, other_shape: tuple):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=stride, padding=padding, groups=groups)
        self.other = nn.Parameter(torch.randn(other_shape))
        self.dim = dim

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.deconv(x)
        v2 = launch_triton(v0, self.other)
        return v2


@triton.jit
def triton_kernel(v0_ptr, other_ptr, out_ptr, n_rows, n_cols, dim1: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (dim1 * width)
        r2 = (rows // width) % dim1
        r3 = rows % width
        v4 = tl.load(v0_ptr + r1 * (dim1 * width * width) + r2 * (width * width) + cols * width + r3, mask=col_mask & row_mask, other=0.0)
        o5 = tl.load(other_ptr + r1 * (dim1 * width) + cols * width + r2, mask=col_mask & row_mask, other=0.0)
        y6 = tl.minimum(tl.maximum(v5, o5, o6)
        x7 = tl.where(row_mask & col_mask, y7, 0.0)
        acc += tl.sum(x8, axis=1, keep_dims=True)
    res8 = acc
    tl.store(out_ptr + rows, res8, mask=row_mask)


def launch_triton(v0, other):
    batch_size, dim1, width, _ = v0.shape
    _, _, _, width, _ = other.shape
    out = torch.empty((batch_size, dim1, width, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * dim1 * width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, other, out, batch_size * dim1 * width, dim1, dim1, width, BLOCK_ROWS=512, BLOCK_COLS=8)
    return out
