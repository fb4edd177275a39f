import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: logsumexp
class f3_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = f3_launch_triton(x)
        return v0


@triton.jit
def f3_triton_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x1 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, x1, float('-inf'))
        m_new = tl.maximum(m, tl.max(x2, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x2 - m_new), axis=1, keep_dims=True)
        m = m_new
    res3 = m + tl.log(s)
    tl.store(out_ptr + rows, res3, mask=row_mask)


def f3_launch_triton(x):
    M_size, K_size = x.shape
    out = torch.empty((M_size,), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M_size, meta['BLOCK_ROWS']),)
    f3_triton_kernel[grid](x, out, M_size, K_size, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(ModelNew, self).__init__()
        self.linear1 = nn.Linear(input_size, hidden_size)
        self.linear2 = nn.Linear(hidden_size, output_size)
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        linear1 = self.linear1(x)
        sigmoid = torch.sigmoid(linear1)
        linear2 = self.linear2(sigmoid)
        logsumexp = self.frag3(linear2.contiguous())
        return logsumexp
