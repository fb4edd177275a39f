import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_channels, kernel_size, bias, norm_num_features, eps=eps, eps=1e-05):
        super(ModelNew, self).__init__()
        self.conv1 = nn.Conv3d(in_ch, out_channels, kernel_size=kernel_size, bias=bias)
        self.norm = nn.InstanceNorm2d(norm_num_features, eps=eps, momentum=0.1)

    def forward(self, x):
        # conv3d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv1(x)
        v1 = launch_triton(v0)
        v3 = launch_triton_2(v1)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = rows // 6
        ch2 = rows % 6
        i3 = cols // 6
        i4 = cols % 6
        i5 = i4 // 6
        i6 = i4 % 6
        v7 = tl.load(v0_ptr + n1 * 120 + ch2 * 6 + i3 * 6 + i5 * 6 + i6, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x8, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x8 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / 96 + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n9 = rows // 6
        ch10 = rows % 6
        i11 = cols // 6
        i12 = cols % 62
        i12 = cols % 63
        i14 = i12 // 6
        i14 = i12 // 6
        i14 = i12 % 6
        v15 = tl.load(v0_ptr + n9 * 60 + ch10 * 6 + i14, mask=col_mask & row_mask, other=0.0)
        x16 = tl.where(row_mask & col_mask, v15, 0.0)
        y17 = (x16 - mean) * rstd
        tl.store(out_ptr + rows * n_cols + cols, y17, mask=col_mask & row_mask)


def launch_triton(v0):
    batch_size, _, _, _, _ = v0.shape
    out = torch.empty((batch_size, 6, 6), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 6, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * 6, 86, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v2_ptr + offs, mask=mask, other=0.0)
    y5 = v4 - 1.0
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(v2):
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, out, out.numel(), BLOCK=1024)
    return out
