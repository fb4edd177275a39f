import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v1 = launch_triton(v0, self.bias)
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = self.gemm(v1)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
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
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(v0, bias):
    batch_size, _ = v0.shape
    out = torch.empty((batch_size, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, out, batch_size, 50, BLOCK_ROWS=8, BLOCK_COLS=64)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.full([BLOCK_ROWS, 1], float('inf'), tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v1 = tl.load(v1_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x2 = tl.where(row_mask & col_mask, v1, float('inf'))
        acc = tl.minimum(acc, tl.min(x2, axis=1, keep_dims=True))
    res3 = acc
    tl.store(out_ptr + rows, res3, mask=row_mask)


def launch_triton_2(v1):
    batch_size = v4_1):
    out = torch.empty((batch_size, 1), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v1, out, batch_size, 50, BLOCK_ROWS=4, BLOCK_COLS=64)
    return out
