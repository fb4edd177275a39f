import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_features: int, num_features: int, num_features: int, num_features: int, num_features: int, num_features: int, num_channels: int=4):
        super(ModelNew, self).__init__()
        self.norm = nn.GroupNorm(gn_num_groups, num_channels=norm_num_channels, kernel_size, bias=False)
        self.power = power

    def forward(self, x):
        v1 = launch_triton(x, self.norm.weight, self.norm.bias)
        return v1


@triton.jit
def triton_kernel(x_ptr, norm_weight_ptr, norm_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, channels: tl.constexpr, dim1: tl.constexpr, dim2: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (dim1 * dim2)
        r2 = (rows // dim2) % dim1
        r3 = rows % dim2
        x4 = tl.load(x_ptr + r1 * (channels * dim1 * dim2) + cols * (dim1 * dim2) + r2 * dim2 + r3, mask=col_mask & row_mask, other=0.0)
        x5 = tl.where(row_mask & col_mask, x4, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x5, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x5 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    res6 = m2 / (batch_size - 1)
    tl.store(out_ptr + rows, res6, mask=row_mask)


def launch_triton(x, norm_weight, norm_bias):
    batch_size, channels, dim1, dim2 = x.shape
    out = torch.empty((batch_size, channels, 1, dim2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * dim2, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, norm_weight, norm_bias, out, batch_size * channels * dim2, batch_size, channels, dim1, dim2, BLOCK_ROWS=128, BLOCK_COLS=16)
    return out
