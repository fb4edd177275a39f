import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size=58, clamp_min=1.0, clamp_max, scale_factor):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(input_size, hidden_size, True)
        self.scale_factor = scale_factor
        self.scale_factor = scale_factor

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.matmul(x)
        v2 = launch_triton(v0, self.clamp_min, self.scale_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, scale_factor: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y4 = v3 * (1.0 - 2.0 / (tl.exp(2.0 * tl.where(v3 > 20.0, v3, tl.log(1.0 + tl.exp(v3)))) + 1.0))
        x5 = tl.where(row_mask & col_mask, y4, float('-inf'))
        m_new = tl.maximum(m, tl.max(x5, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x5 - m_new), axis=1, keep_dims=True)
        m = m_new
    res6 = m + tl.log(s)
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(v0, scale_factor):
    batch_size, _, _ = v0.shape
    out = torch.empty((batch_size, 3), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 3, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 3, features, offset, BLOCK_ROWS=32, BLOCK_COLS=16)
    return out
