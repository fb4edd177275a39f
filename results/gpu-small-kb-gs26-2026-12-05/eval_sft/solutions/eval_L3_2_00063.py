import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_channels, kernel_size, bias, norm_num_features, eps):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv3d(in_ch, out_channels, kernel_size=kernel_size, bias=bias)
        self.norm = nn.InstanceNorm2d(norm_num_features, eps=eps, momentum=0.1)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v3 = launch_triton(v0)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = rows // depth
        ch2 = rows % depth
        i3 = cols // (height * width)
        i4 = (cols // width) % height
        i5 = cols % width
        v6 = tl.load(v0_ptr + n1 * (depth * height * width) + ch2 * (depth * height * width) + i3 * (height * width) + i4 * width + i5, mask=col_mask & row_mask, other=0.0)
        x7 = tl.where(row_mask & col_mask, v6, 0.0)
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
        n8 = rows // depth
        ch9 = rows % depth
        i10 = cols // (height * width)
        i11 = (cols // width) % height
        i12 = cols % width
        v13 = tl.load(v0_ptr + n8 * (width * depth * height * width) + ch9 * (depth * height * width) + i10 * (height * width) + i11 * width + i12, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, v13, 0.0)
        y15 = (x14 - mean) * rstd
        y16 = tl.minimum(tl.maximum(y15, y17 + 3.0, 0.0), 6.0) / 6.0
        tl.store(out_ptr + rows * n_cols + cols, y16, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, _, depth, height, width = v0.shape
    out = torch.empty((batch_size, depth, height * width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth, depth * height * width, depth, height, width, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
