import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_ch: int, kernel_size: int, stride: int, padding: int, output_padding: int=0, groups: int=0, bias: bool=True, dilation: int=0, gap_num_groups: int=4, num_channels: int=4, out_ch: int=4, kernel_size2: int=kernel_size2, stride2: int=stride: int=output_padding, groups: int=groups: int=bias, bias: bool=bias, kernel_size2: int=kernel_size2, padding: int=padding):
        super().__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, out_ch, kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias, dilation=dilation)
        self.group_norm = nn.GroupNorm(num_groups=gn_num_groups, num_channels=out_ch)

    def forward(self, x):
        # conv_transpose1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose1d(x)
        v1 = launch_triton(v0, self.group_norm.weight, self.group_norm.bias)
        return v1


@triton.jit
def triton_kernel(v0_ptr, group_norm_weight_ptr, group_norm_bias_ptr, out_ptr, n_rows, n_cols, x_d0: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        v7 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x8 = tl.where(row_mask & col_mask, v7, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x8, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x8 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (x_d0 * x_d0) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        cl10 = cols // x_d0
        ch12 = 0 * x_d0 + cl11
        v13 = tl.load(v0_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, v13, 0.0)
        y15 = (x14 - mean) * rstd
        g16 = tl.load(group_norm_weight_ptr + ch12, mask=col_mask & row_mask, other=0.0)
        g17 = tl.load(group_norm_bias_ptr + ch12, mask=col_mask & row_mask, other=0.0)
        y18 = y15 * g16 + g17
        tl.store(out_ptr + rows * n_cols + cols, y18, mask=col_mask & row_mask)


def launch_triton(v0, group_norm_weight, group_norm_bias):
    x_d0, _, x_d1, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d0, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, group_norm_weight, group_norm_bias, out, x_d0 * x_d1, x_d0, x_d1, BLOCK_ROWS=2, BLOCK_COLS=128)
    return out
