import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bn_value=0.1, add_value=1.0, weight_shape=(1, eps=1e-05, eps_shape=(1, shift_shape=(1, shift_shape=(1, 1)):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(out_features, eps=norm_value)
        self.add_value = nn.BatchNorm1d(out_features, eps=norm_value, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=momentum)
        self.add_value = add_value

    def forward(self, x):
        v2 = launch_triton(x, self.add_value, self.add_value)
        v3 = launch_triton_2(v2, self.add_value)
        return v3


@triton.jit
def triton_kernel(x_ptr, add_weight_ptr, add_bias_ptr, out_ptr, n_rows, n_cols, batch_size: tl.constexpr, add_value: tl.constexpr, add_value: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // 7
        sp2 = cols % 7
        x3 = tl.load(x_ptr + n1 * (in_features * 7) + rows * 7 + sp2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, x3, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x4, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x4 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * 7) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n5 = cols // 7
        sp6 = cols % 7
        x7 = tl.load(x_ptr + n5 * (in_features * 7) + rows * 7 + sp6, mask=col_mask & row_mask, other=0.0)
        y8 = x7 + x7
        x9 = tl.where(row_mask & col_mask, y8, 0.0)
        y9 = (x9 - mean) * rstd
        b10 = tl.load(add_weight_ptr + rows, mask=row_mask, other=0.0)
        b11 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y12 = y9 * b10 + b11
        y13 = y12 + add_value
        tl.store(out_ptr + n7 * (in_features * 7) + rows * 7 + sp8, y13, mask=col_mask & row_mask)


def launch_triton(x, add_value, add_value):
    batch_size, in_features, _ = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(in_features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, add_bias, out, in_features, batch_size * 7, batch_size, batch_size, in_features, add_value, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v2_ptr, out_ptr, n_elements, batch_size: tl.constexpr, in_features: tl.constexpr, add_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (in_features * batch_size)
    i2 = (offs // batch_size) % in_features
    i3 = offs % batch_size
    v4 = tl.load(v2_ptr + i1 * (in_features * batch_size) + i2 * batch_size + i3, mask=col_mask & row_mask, other=0.0)
    y5 = v4 + add_value
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(v2, add_value):
    batch_size, in_features = v2.shape
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v2, add_bias, out, out.numel(), batch_size, in_features, BLOCK=256)
    return out
