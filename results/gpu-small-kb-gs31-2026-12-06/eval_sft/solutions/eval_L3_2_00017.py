import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int, groups: int, dim: int=0, dim: int=0, dim: int=0):
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
def triton_kernel(v0_ptr, other_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    o7 = rows // 20
    o8 = (rows // 8) % 5
    o8 = (rows // 8) % 5
    o8 = (rows // 8) % 5
    o8 = tl.load(other_ptr + o6 * other_d2) + o9, mask=row_mask, other=0.0)
    y9 = res6 + o8
    tl.store(out_ptr + rows, y9, mask=row_mask)


def launch_triton(v0, other):
    batch_size, _, _, _ = v0.shape
    _, other_d0, _, _ = other.shape
    out = torch.empty_like(other)
    grid = lambda meta: (triton.cdiv(batch_size * other_d0, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, other, out, batch_size * other_d1, BLOCK_ROWS=2048, BLOCK_COLS=8)
    return out
