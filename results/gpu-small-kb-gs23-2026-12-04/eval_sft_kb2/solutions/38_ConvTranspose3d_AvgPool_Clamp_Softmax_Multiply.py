import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, clamp_min, clamp_max, kernel_shape):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max
        self.clamp_max = clamp_max

    def forward(self, x, clamp_min, self.clamp_min, self.clamp_max = clamp_max

    def forward(self, x, other):
        v2 = launch_triton(x, other, self.clamp_min, self.clamp_max)
        v3 = launch_triton_2(v2_1)
        return v3


@triton.jit
def triton_kernel(x_ptr, other_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, clamp_min: tl.constexpr, clamp_max: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (height * width * width)
        r2 = (rows // (width * width)) % depth
        r3 = (rows // width) % height
        r4 = rows % width
        x5 = tl.load(x_ptr + r1 * (in_channels * depth * height * width) + cols * (depth * height * width) + r2 * (height * width) + r3 * width + r4, mask=col_mask & row_mask, other=0.0)
        y6 = tl.minimum(tl.maximum(x5, clamp_min), clamp_max)
        x7 = tl.where(row_mask & col_mask, y6, float('-inf'))
        m_new = tl.maximum(m, tl.max(x7, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x7 - m_new), axis=1, keep_dims=True)
        m = m_new
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r8 = rows // (in_channels * width * width)
        r9 = (rows // (width * width)) % depth
        r10 = (rows // width) % width
        r11 = rows % width
        x12 = tl.load(x_ptr + r8 * (in_channels * depth * height * width) + r9 * (depth * height * width) + cols * (height * width) + r10 * width + r11, mask=col_mask & row_mask, other=0.0)
        y13 = tl.minimum(tl.maximum(x12, clamp_min), clamp_max)
        x14 = tl.where(row_mask & col_mask, y13, float('-inf'))
        y15 = tl.minimum(tl.maximum(y14, clamp_min), clamp_max)
        tl.store(out_ptr + r9 * (in_channels * depth * height * width) + r10 * (depth * height * width) + cols * (height * width) + r11 * width + r12, y15, mask=col_mask & row_mask)


def launch_triton(x, other, clamp_min, clamp_max):
    batch_size, in_channels, depth, height, width = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(batch_size * depth * height * width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, other, out, batch_size * depth * height * width, depth, in_channels, depth, height, width, clamp_min, BLOCK_ROWS=256, BLOCK_COLS=4)
    return out


@triton.jit
def triton_2_kernel(v0_ptr, out_ptr, n_elements, clamp_min: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v6 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y7 = tl.exp(v6)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton_2(v0, other):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v0, out, out.numel(), BLOCK=1024)
    return out
