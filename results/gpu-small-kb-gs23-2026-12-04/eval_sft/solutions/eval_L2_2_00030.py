import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(3, 3, 3, stride=2, padding=0, groups=3, bias=True)
        self.bn = nn.BatchNorm1d(3, 3, 3, stride=2, padding=0, groups=3, bias=True)

    def forward(self, x):
        v0 = launch_triton(x, self.bn.weight, self.bn.bias)
        v1 = launch_triton_2(v0, self.bn.weight, self.bn.bias)
        v2 = launch_triton_2(v1)
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.bn(v2)
        return v3


@triton.jit
def triton_kernel(x_ptr, bn_weight_ptr, bn_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_channels: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (height * dim2)
        sp2 = cols % (height * dim2)
        i3 = sp2 // dim2
        i4 = sp2 % dim2
        x5 = tl.load(x_ptr + n1 * (in_channels * height * dim2) + rows * (height * dim2) + i3 * dim2 + i4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, x5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * height * dim2) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // (height * dim2)
        sp8 = cols % (height * dim2)
        i9 = sp8 // dim2
        i10 = sp8 % dim2
        x11 = tl.load(x_ptr + n7 * (in_channels * height * dim2) + rows * (height * dim2) + i9 * dim2 + i10, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, x11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        b15 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y16 = y13 * b14 + b15
        tl.store(out_ptr + n7 * (in_channels * height * dim2) + rows * (height * dim2) + i9 * dim2 + i10, y16, mask=col_mask & row_mask)


def launch_triton(x, bn_weight, bn_bias):
    batch_size, in_channels, height, dim2 = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(in_channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, bn_weight, bn_bias, out, in_channels, batch_size * height * dim2, batch_size, in_channels, height, dim2, BLOCK_ROWS=2, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, batch_size: tl.constexpr, in_channels: tl.constexpr, height: tl.constexpr, dim2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (in_channels * height * dim2)
    i2 = (offs // (height * dim2)) % in_channels
    i3 = offs % (height * dim2)
    i4 = i3 // dim2
    i5 = i3 % dim2
    v6 = tl.load(v1_ptr + i1 * (in_channels * height * dim2) + i2 * (height * dim2) + i4 * dim2 + i5, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v6, mask=mask)


def launch_triton_2(v1):
    batch_size, in_channels, _, height, dim2 = v1.shape
    out = torch.empty((batch_size, in_channels, height * dim2), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), batch_size, in_channels, height, dim2, BLOCK=1024)
    return out
