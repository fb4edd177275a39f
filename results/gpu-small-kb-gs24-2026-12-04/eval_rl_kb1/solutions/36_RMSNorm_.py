import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_inputs: int, hidden_size: int=1):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(num_inputs, hidden_size, bias=False)
        self.exponent = nn.Tanhshrink()

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v1 = launch_triton(v0)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, 0.0)
        acc += tl.sum(x4, axis=1, keep_dims=True)
    res5 = acc / batch_size
    tl.store(out_ptr + rows, res5, mask=row_mask)


def launch_triton(v0):
    batch_size, _, dim1, dim2 = v0.shape
    out = torch.empty((batch_size, dim1, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * dim1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * dim1, dim2, BLOCK_ROWS=8, BLOCK_COLS=16)
    return out
