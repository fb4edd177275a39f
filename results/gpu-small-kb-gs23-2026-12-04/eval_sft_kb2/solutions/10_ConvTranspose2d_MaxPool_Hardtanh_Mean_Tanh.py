import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, maxpool_kernel_size, maxpool_stride, maxpool_padding, hardtanh_padding, hardtanh_max, hardtanh_max):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.maxpool = nn.Linear(kernel_size, max_pool_stride, max_pool_padding)
        self.maxpool = nn.MaxPool2d(kernel_size=maxpool_kernel_size, stride=maxpool_stride)

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv_transpose(x)
        v2 = launch_triton(v0, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_rows, n_cols, in_channels: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    acc = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        r1 = rows // (in_channels * in_channels * 6)
        r2 = (rows // (in_channels * 6)) % in_channels
        r3 = (rows // 6) % 6
        r4 = rows % 6
        v5 = tl.load(v0_ptr + r1 * (in_channels * 6 * 6) + r2 * 6 + cols * 6 + r4, mask=col_mask & row_mask, other=0.0)
        y6 = 1.0 - 2.0 / (tl.exp(2.0 * v5) + 1.0)
        x7 = tl.where(row_mask & col_mask, y6, 0.0)
        acc += tl.sum(x7, axis=1, keep_dims=True)
    res8 = acc / 4
    tl.store(out_ptr + rows, res8, mask=row_mask)


def launch_triton(v0, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, _, in_channels, _ = v0.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out = torch.empty((batch_size, in_channels, 6, 6), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * in_channels * 6 * 6, meta['BLOCK_ROWS']),)
    triton_kernel[grid](v0, out, batch_size * in_channels * 6 * 6, in_channels, kernel_size, stride, padding, dilation, BLOCK_ROWS=256, BLOCK_COLS=4)
    return out
