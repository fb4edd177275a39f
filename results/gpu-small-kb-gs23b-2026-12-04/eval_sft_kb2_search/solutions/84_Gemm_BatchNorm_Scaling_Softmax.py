import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: softmax
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
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x3 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, float('-inf'))
        y5 = tl.exp(x4 - m) / s
        tl.store(out_ptr + rows * n_cols + cols, y5, mask=col_mask & row_mask)


def f3_launch_triton(x):
    N_size, dim = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(N_size, meta['BLOCK_ROWS']),)
    f3_triton_kernel[grid](x, out, N_size, dim, BLOCK_ROWS=4, BLOCK_COLS=32)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bn_eps=1e-05, bn_momentum=0.1, scale_shape=(1,)):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=bn_momentum)
        self.scale = nn.Parameter(torch.ones(scale_shape))
        self.softmax = nn.Softmax(dim=1)
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        gemm = self.gemm(x)
        bn = self.bn(gemm)
        mul = self.scale * bn
        softmax = self.frag3(mul.contiguous())
        return softmax
