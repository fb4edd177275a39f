import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scaling_factor):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-05, momentum=0.1)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.bn.weight, self.bn.bias, self.bn.bias, self.scaling_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_channels: tl.constexpr, height: tl.constexpr, width: tl.constexpr, scaling_factor: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (height * width)
        sp2 = cols % (height * width)
        i3 = sp2 // width
        i4 = sp2 % width
        v5 = tl.load(v0_ptr + n1 * (in_channels * height * width) + rows * (height * width) + i3 * width + i4, mask=col_mask & row_mask, other=0.0)
        y6 = v5 * scaling_factor
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n8 = cols // (height * width)
        sp9 = cols % (height * width)
        i10 = sp9 // width
        i11 = sp9 % width
        v12 = tl.load(v0_ptr + n8 * (in_channels * height * width) + rows * (height * width) + i10 * width + i11, mask=col_mask & row_mask, other=0.0)
        y13 = v12 * scaling_factor
        x14 = tl.where(row_mask & col_mask, y13, 0.0)
        y15 = (x14 - mean) * rstd
        b16 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b17 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y18 = y15 * b16 + b17
        tl.store(out_ptr + n8 * (in_channels * height * width) + rows * (height * width) + i10 * width + i11, y18, mask=col_mask & row_mask)


def launch_triton(v0, bn_weight, bn_bias, scaling):
    batch_size, in_channels, height, width = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(in_channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bn_weight, bn_bias, out, in_channels, batch_size * height * width, batch_size, in_channels, height, width, BLOCK_ROWS=2, BLOCK_COLS=128)
    return out
