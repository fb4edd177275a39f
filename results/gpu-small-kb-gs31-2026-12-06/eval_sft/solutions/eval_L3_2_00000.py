import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, norm_channels=5):
        super(ModelNew, self).__init__()
        self.inorm = nn.InstanceNorm3d(num_features=norm_channels)
        self.inorm = nn.InstanceNorm3d(num_features=norm_channels)

    def forward(self, x):
        v1 = launch_triton(x)
        v2 = launch_triton_2(v1)
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = self.fc(v2)
        return v3


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_rows, n_cols, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x6 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x7 = tl.where(row_mask & col_mask, x6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (depth * height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        x13 = tl.load(x_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, x13, 0.0)
        y15 = (x14 - mean) * rstd
        y16 = tl.sin(y15)
        tl.store(out_ptr + rows * n_cols + cols, y16, mask=col_mask & row_mask)


def launch_triton(x):
    batch_size, channels, depth, height, width = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, out, batch_size * channels, depth * height * width, depth, height, width, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * depth * height * width)
    i2 = (offs // (depth * height * width)) % channels
    i3 = offs % (depth * height * width)
    i4 = i3 // (height * width)
    i5 = (i3 // width) % height
    i6 = i3 % width
    v7 = tl.load(v1_ptr + i1 * (channels * depth * height * width) + i2 * (depth * height * width) + i4 * (height * width) + i5 * width + i6, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v7, mask=mask)


def launch_triton_2(v1):
    batch_size, channels, depth, height, width = v1.shape
    out = torch.empty((batch_size, channels, depth * height * width), device=v1.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), channels, depth, height, width, BLOCK=1024)
    return out
