import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, 1, hardtanh_min, max_val):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.leaky_relu = nn.LeakyReLU(negative_slope=0.2)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0)
        v3 = launch_triton_2(v2)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (depth * height * width)
        r2 = (rows // (height * width)) % depth
        r3 = (rows // width) % height
        r4 = rows % width
        v5 = tl.load(v0_ptr + r1 * (batch_size * depth * height * width) + r2 * (depth * height * width) + cols * (height * width) + r3 * width + r4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        acc += tl.sum(x6, axis=1, keep_dims=True)
    res7 = acc / batch_size
    y12 = tl.sqrt(res7)
    tl.store(out_ptr + rows, y12, mask=row_mask)


def launch_triton(v0):
    batch_size, depth, _, height, width = v0.shape
    out = torch.empty((batch_size, depth, 1, depth, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * height * width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth * height * width, batch_size, depth, height, width, BLOCK_ROWS=1024, BLOCK_COLS=4)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, batch_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (batch_size * depth * width)
    i2 = (offs // (depth * width)) % batch_size
    i3 = offs % (depth * width)) % batch_size
    v4 = tl.load(v2_ptr + i1 * (batch_size * depth * width) + i2 * (depth * width) + i3 * (depth * width)) % batch_size + i3, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v4, mask=mask)


def launch_triton_2(v2):
    batch_size, depth, width = v0.shape
    out = torch.empty((batch_size, depth, batch_size, depth, width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, out, out.numel(), batch_size, depth, width, BLOCK=1024)
    return out
