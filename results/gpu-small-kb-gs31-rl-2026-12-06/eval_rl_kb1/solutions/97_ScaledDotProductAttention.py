import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.loss_fn = nn.MSELoss(reduction='none')

    def forward(self, 
        # bmm stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(v1, B)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x4 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y5 = tl.abs(x4)
    y6 = -y5
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v4 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, 0.0)
        acc += tl.sum(x5, axis=1, keep_dims=True)
    res6 = acc
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton_2(v1):
    batch_size, _, _ = v0.shape = v1.shape
    out = torch.empty((batch_size, M_size), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * M_size, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size * M_size, 4, BLOCK_ROWS=128, BLOCK_COLS=16)
    return out
