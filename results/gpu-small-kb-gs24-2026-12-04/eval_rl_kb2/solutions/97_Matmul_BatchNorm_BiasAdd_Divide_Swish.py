import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bn_value=0.1, add_value=1.0, weight_shape=(1, 10)):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(out_features, eps=1e-05, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(out_features, eps=bn_value)
        self.add_value = nn.BatchNorm1d(out_features, eps=norm_value, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(add_bias_shape, eps=norm_eps, momentum=momentum)
        self.add_value = nn.BatchNorm1d( add_bias_shape, eps=norm_eps, momentum=norm_momentum)
        self.add_value = nn.BatchNorm1d(norm_num_features, eps=norm_momentum)
        self.add_bias_ptr norm_weight_ptr, norm_bias_ptr, bias_ptr, norm_bias_ptr, bias_ptr, bias_ptr, n_rows, n_cols, batch_size: tl.constexpr, in_features: tl.constexpr, add_value: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // in_features
        sp2 = cols % in_features
        i3 = sp2 // in_features
        i4 = sp2 % in_features
        x5 = tl.load(x_ptr + n1 * (in_features * in_features) + rows * in_features + i3, mask=col_mask & row_mask, other=0.0)
        x6 = tl.where(row_mask & col_mask, x5, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x6, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x6 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * in_features) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n7 = cols // in_features
        sp8 = cols % in_features
        i9 = sp8 // in_features
        i10 = sp8 % in_features
        x11 = tl.load(x_ptr + n7 * (in_features * in_features) + rows * in_features + i9, mask=col_mask & row_mask, other=0.0)
        x12 = tl.where(row_mask & col_mask, x11, 0.0)
        y13 = (x12 - mean) * rstd
        b14 = tl.load(bn_weight_ptr + rows, mask=row_mask, other=0.0)
        n15 = tl.load(bn_bias_ptr + rows, mask=row_mask, other=0.0)
        y16 = y13 * b14 + b15
        tl.store(out_ptr + n7 * (in_features * in_features) + rows * in_features + sp8, y16, mask=col_mask & row_mask)


def launch_triton(x, bn_weight, bn_bias, add_bias, add_bias):
    batch_size, in_features = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(in_features, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, batch_norm_weight, batch_norm_bias, out, in_features, batch_size * in_features, batch_size, in_features, in_features, add_bias, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out
