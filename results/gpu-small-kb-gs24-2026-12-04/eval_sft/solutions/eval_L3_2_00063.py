import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_channels, kernel_size, bias, norm_num_features, norm_eps):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv3d(in_ch, out_channels, kernel_size=kernel_size, bias=bias)
        self.norm = nn.InstanceNorm2d(norm_num_features, eps=norm_eps, momentum=0.1)

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
        i4 = cols % (height * width)
        i5 = i4 // width
        i6 = i4 % width
        v7 = tl.load(v0_ptr + n1 * (depth * depth * height * width) + ch2 * (depth * height * width) + i3 * (height * width) + i5 * width + i6, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x8, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x8 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (depth * height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n9 = rows // depth
        ch10 = rows % depth
        i11 = cols // (height * width)
        i12 = cols % (height * width)
        i13 = i12 // width
        i14 = i12 % width
        v15 = tl.load(v0_ptr + n9 * (depth * depth * height * width) + ch10 * (depth * height * width) + i11 * (height * width) + i13 * width + i14, mask=col_mask & row_mask, other=0.0)
        x16 = tl.where(row_mask & col_mask, v15, 0.0)
        y17 = (x16 - mean) * rstd
        y18 = tl.erf(y18)
        tl.store(out_ptr + rows * n_cols + cols, y18, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, depth, _, height, width = v0.shape
    out = torch.empty((batch_size, depth, height, width * width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * depth, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * depth, depth * height * width, depth, height, width, BLOCK_ROWS=32, BLOCK_COLS=128)
    return out
