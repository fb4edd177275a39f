import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, norm_shape, adaptive_pool_output_size=1, kernel_size=0, pool_output_size=(2, ap_stride, padding=0):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=output_padding, bias=False)
        self.gelu = nn.GELU()
        self.conv2

    def forward(self, x):
        v0 = launch_triton(x, self.conv_transpose.weight, self.conv_transpose.stride, self.conv_transpose.dilation, self.conv_transpose.padding, self.conv_transpose.output_padding, self.conv_transpose.bias)
        v2 = launch_triton_2(v0, self.layer_norm.weight, self.layer_norm.bias)
        v3 = launch_triton_3(v2)
        return v3


@triton.jit
def triton_kernel(x_ptr, conv_transpose_weight_ptr, conv_transpose_bias_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    mean = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n1 = cols // (depth * height * width)
        sp2 = cols % (depth * height * width)
        i3 = sp2 // (height * width)
        i4 = (sp2 // width) % height
        i5 = sp2 % width
        x6 = tl.load(x_ptr + n1 * (in_channels * depth * height * width) + rows * (depth * height * width) + i3 * (height * width) + i4 * width + i5, mask=col_mask & row_mask, other=0.0)
        x7 = tl.where(row_mask & col_mask, x6, 0.0)
        cnt = start * 1.0
        nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0
        mb = tl.sum(x7, axis=1, keep_dims=True) / nb
        db = tl.where(row_mask & col_mask, x7 - mb, 0.0)
        delta = mb - mean
        mean += delta * (nb / (cnt + nb))
        m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))
    rstd = tl.rsqrt(m2 / (batch_size * depth * height * width) + 1e-05)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        n8 = cols // (depth * height * width)
        sp9 = cols % (depth * height * width)
        i10 = sp9 // (height * width)
        i11 = (sp9 // width) % height
        i12 = sp9 % width
        x13 = tl.load(x_ptr + n8 * (in_channels * depth * height * width) + rows * (depth * height * width) + i10 * (height * width) + i11 * width + i12, mask=col_mask & row_mask, other=0.0)
        x14 = tl.where(row_mask & col_mask, x13, 0.0)
        y15 = (x14 - mean) * rstd
        b16 = tl.load(layer_norm_weight_ptr + rows, mask=row_mask, other=0.0)
        b17 = tl.load(layer_norm_bias_ptr + j11 * (depth * height * width) + rows * (depth * height * width) + i10 * (height * width) + i11 * width + i12, y18, mask=col_mask & row_mask, other=0.0)
        y18 = y15 * b16 + b17
        tl.store(out_ptr + n8 * (in_channels * depth * height * width) + rows * (depth * height * width) + sp9, y18, mask=col_mask & row_mask)


def launch_triton(x, layer_norm_weight, batch_norm_bias):
    batch_size, in_channels, depth, height, width = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(in_channels, meta['BLOCK_ROWS']),)
    triton_kernel[grid](x, layer_norm_weight, batch_norm_bias, out, in_channels, batch_size * depth * height * width, batch_size, in_channels, depth, height, width, BLOCK_ROWS=8, BLOCK_COLS=128)
    return out


@triton.jit
def triton_2_kernel(v0_ptr, layer_norm_weight_ptr, layer_norm_bias_ptr, out_ptr, M, N, K, in_channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, layer_norm_weight_d1: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    o1 = offs_m // out_depth * out_width)
    o2 = (offs // (out_depth * out_width)) % out_depth
    o3 = (offs // (out_depth * out_height * out_width)) % in_channels
    o4 = offs_m % out_width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(3):
        for k1 in tl.static_range(3):
            for k2 in tl.static_range(3):
                ip6 = o3 * stride - padding + k0
                ok7 = ((ip6 >= 0) & (ip6 < depth))
                ip8 = o4 * stride - padding + k1
                ok9 = ((ip8 >= 0) & (ip8 < height))
                ip10 = o5 * stride - padding + k2
                ok11 = ((ip10 >= 0) & (ip10 < width))
                x12 = tl.load(x_ptr + o1 * (in_channels * depth * height * width) + o2 * (depth * height * width) + ip6 * (height * width) + ip8 * width + ip10, mask=mask & ok7 & ok9 & ok11, other=0.0)
                acc += tl.where(ok7 & ok9 & ok11, v16, 0.0)
    avg14 = acc / (kernel_size * kernel_size * kernel_size)
    tl.store(out_ptr + offs, avg14, mask=mask)


def launch_triton_2(v0, pool_kernel_size, pool_stride, pool_padding):
    batch_size, in_channels, depth, height, width = v0.shape
    kernel_size = pool_kernel_size
    stride = pool_stride
    padding = pool_padding
    out_depth = (depth + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_height = (height + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, in_channels, out_depth, out_height, out_width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_2_kernel[grid](v0, out, 1 * out_height * out_width, in_channels, depth, height, width, kernel_size, stride, padding, out_depth, out_height, out_width, BLOCK=1024)
    return out
