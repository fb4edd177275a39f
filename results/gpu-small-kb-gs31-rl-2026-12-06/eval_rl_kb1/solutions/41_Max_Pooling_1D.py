import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int=0, stride: int=0, padding: int=1, dilation: int=0, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, bias=False)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(A, B)
        v2 = launch_triton(v0, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = tl.abs(v4)
        x6 = tl.where(row_mask & col_mask, y5, 0.0)
        acc += tl.sum(x6, axis=1, keep_dims=True)
    res7 = acc / 9
    tl.store(out_ptr + rows, res7, mask=row_mask)


def launch_triton(v0, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, _, _ = v0.shape
    out = torch.empty((batch_size, M_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * 4, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 4, 3, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
