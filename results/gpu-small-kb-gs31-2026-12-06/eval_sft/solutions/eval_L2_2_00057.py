import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(4, out_channels=6, kernel_size=3, stride=1, padding=1, bias=False)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v1 = launch_triton(v0)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v5 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('inf'))
        acc = tl.minimum(acc, tl.min(x6, axis=1, keep_dims=True))
    res7 = acc
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0):
    batch_size, depth, _, depth, _ = v0.shape
    out = torch.empty((batch_size, depth, height), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * depth * height, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth * depth * depth * height, width, BLOCK_ROWS=2048, BLOCK_COLS=8)
    return out
