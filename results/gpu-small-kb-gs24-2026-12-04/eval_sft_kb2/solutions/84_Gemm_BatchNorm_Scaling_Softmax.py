import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bn_normalized_shape=(7, 1)):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.tanhshrink = nn.Tanhshrink()
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=0.1)
        self.tanhshrink = nn.Tanhshrink()
        self.scale = nn.Parameter(torch.randn(scale_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.scale)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scale_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v3 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, float('-inf'))
        y9 = (x8 - mean) * rstd
        s10 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b11 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y12 = y9 * b10 + b11
        tl.store(out_ptr + cols * scale_d + rows, y12, mask=col_mask & row_mask)


def launch_triton(v0, norm_weight, norm_bias):
    batch_size, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, norm_weight, norm_bias, out, batch_size, other_d0, BLOCK_ROWS=8, BLOCK_COLS=64)
    return out
