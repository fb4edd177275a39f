import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, norm_channels, out_features, normalized_shape):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(in_features=c_in, out_features=out_features)
        self.inorm = nn.InstanceNorm3d(num_features=norm_num_features)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v2 = launch_triton(v0)
        v3 = launch_triton_2(v2, self.gn.weight, self.gn.bias)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, channels: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = rows // channels
        ch2 = rows % channels
        i3 = cols // channels
        i4 = cols % channels
        v5 = tl.load(v0_ptr + n1 * (channels * batch_size * channels) + ch2 * (batch_size * channels) + i3 * channels + i4, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, v5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * channels) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = rows // channels
        ch8 = rows % channels
        i9 = cols // channels
        i10 = cols % channels
        v11 = tl.load(v0_ptr + n7 * (channels * channels * channels) + ch8 * (channels * channels) + i9 * channels + i10, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, v11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(gn_weight_ptr + ch9 * (channels * channels) + j10 * channels + j11, mask=col_mask, other=0.0)
        y15 = y13 * r14
        tl.store(out_ptr + rows * n_cols + cols, y15, mask=col_mask & row_mask)


def launch_triton(v0, gn_weight):
    batch_size, channels, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, gn_weight, gn_bias, out, batch_size, batch_size * channels * channels, batch_size, channels, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, channels: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * channels * channels)
    i2 = (offs // channels) % channels
    i3 = offs % channels
    v4 = tl.load(v2_ptr + i1 * (channels * channels * channels) + i2 * (channels * channels) + i3 * channels + i4, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v5, mask=mask)


def launch_triton_2(v2):
    batch_size, channels, _, _ = v2.shape
    out = torch.empty((batch_size, channels, channels * channels), device=v2.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, out, out.numel(), channels, BLOCK=256)
    return out
