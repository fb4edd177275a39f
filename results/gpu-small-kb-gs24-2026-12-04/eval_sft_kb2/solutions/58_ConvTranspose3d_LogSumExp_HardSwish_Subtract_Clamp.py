import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias_shape=(1, 1, 1, 1)):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=bias2)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # conv_transpose3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, bias_d1: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (depth * height * width)
        r2 = (rows // (height * width)) % depth
        r3 = (rows // width) % height
        r4 = rows % width
        v5 = tl.load(v0_ptr + r1 * (depth * depth * height * width) + r2 * (depth * height * width) + cols * (height * width) + r3 * width + r4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, float('-inf'))
        m_new = tl.maximum(m, tl.max(x6, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x6 - m_new), axis=1, keep_dims=True)
        m = m_new
    res7 = m + tl.log(s)
    o8 = rows // (batch_size * width)
    o9 = (rows // width) % batch_size
    o10 = rows % width
    o11 = (rows // width) % width
    o12 = rows % width
    b13 = ((o7 + tl.abs(res12)
    b13 = ((o6 - 1) * (depth * height) + o12 * height + ip13, y14, mask=row_mask & ok7 & ok9 & ok12, other=0.0)
        acc += tl.where(ok7 & ok8 & ok11, v13, float('-inf')))
    o14 = tl.load(bias_ptr + o12, mask=row_mask, other=0.0)
    y15 = res13 * b14
    tl.store(out_ptr + rows, y15, mask=row_mask)


def launch_triton(v0, bias):
    batch_size, _, depth, height, width = v0.shape
    _, _, _, _, _, _ = bias.shape
    out_depth = depth - 1
    out_width = width * height - 1
    out = torch.empty((batch_size, depth, out_depth, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth * out_depth * out_width, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, bias, out, batch_size * depth * out_depth * out_width, depth, height, width, bias_value, BLOCK_ROWS=1024, BLOCK_COLS=8)
    return out
