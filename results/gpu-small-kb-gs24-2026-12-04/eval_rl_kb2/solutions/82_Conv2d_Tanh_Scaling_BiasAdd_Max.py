import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape, pool_kernel_size, bias_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.reduction_dim = reduction_dim

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bias, self.bias, self.bias, self.bias, self.bias_value)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, bias_ptr, bias_ptr, batch_size: tl.constexpr, bias_d0: tl.constexpr, bias_d0: tl.constexpr, bias_d1: tl.constexpr, bias_value: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (bias_d0 * bias_d1)
        r2 = (rows // bias_d1) % bias_d0
        r3 = rows % bias_d1
        v4 = tl.load(v0_ptr + r1 * (bias_d1 * bias_d1 * bias_d1) + r2 * (bias_d1 * bias_d1) + cols * bias_d1 + r3, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, v4, 0.0)
        acc += tl.sum(x5, axis=1, keep_dims=True)
    res6 = acc
    o7 = rows // (bias_d0 * bias_d1)
    o8 = (rows // bias_d1) % bias_d1
    o9 = rows % bias_d1
    b10 = tl.load(bias_ptr + o6 * (bias_d1 * bias_d1) + r7 * bias_d1 + o8, mask=row_mask, other=0.0)
        b11 = tl.load(bias_ptr + r7, mask=row_mask, other=0.0)
        y12 = v8 * b10
        x12 = tl.where(row_mask & col_mask, y11, 0.0)
        acc += tl.sum((x12 / scale) * (x12 / scale), axis=1, keep_dims=True)
    res13 = scale * tl.sqrt(acc)
    o14 = rows % bias_d1
    s15 = tl.load(bias_ptr + o1 * (bias_d1 * bias_d1 * bias_d1) + cols * bias_d1 + r10, mask=col_mask & row_mask, other=0.0)
    y17 = res13 - b15
        x18 = tl.where(row_mask & col_mask, y17, 0.0)
        acc += tl.sum((x16 / scale) * (x18 / scale), axis=1, keep_dims=True)
    res17 = scale * tl.sqrt(acc)
    tl.store(out_ptr + rows, res17, mask=row_mask)


def launch_triton(v0, bias_value):
    batch_size, _, _ = v0.shape
    bias_d1 = bias_d1 // bias_d1
    out = torch.empty((batch_size, bias_d1, bias_d1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * bias_d1, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, out, batch_size * bias_d1, bias_d1, bias_d1, bias_d1, bias_d1, bias_d1, dilation, bias_d1, bias_d1, dilation_value, BLOCK_ROWS=128, BLOCK_COLS=8)
    return out
