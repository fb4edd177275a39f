import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, channels_in, out_channels, kernel_size, stride, padding=0, dilation=1, groups=1, bias=True):
        super().__init__()
        self.conv = nn.Conv2d(channels_in, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
        self.loss_fn = nn.CrossEntropyLoss(reduction='sum')

    def forward(self, x, targets):
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2_1 = launch_triton(v0)
        v3 = launch_triton_2(v3_1)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, features: tl.constexpr, dim1: tl.constexpr, width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (features * dim1 * width)
    i2 = (offs // (dim1 * width)) % features
    i3 = offs % (dim1 * width)
    i4 = i3 // width
    i5 = i3 % width
    v6 = tl.load(v0_ptr + (i1 < features * (features * dim1 * width) + i4 * width + i5, mask=mask, other=0.0)
    tl.store(out_ptr + offs, v6, mask=mask)


def launch_triton(v0):
    batch_size, features, dim1, _ = v0.shape
    out = torch.empty((batch_size, features, dim1 * width), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), features, dim1, width, BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v2_1_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    target = tl.load(targets_ptr + offs, mask=mask, other=0.0)
        o4 = tl.load(targets_ptr + rows * n_cols + cols, mask=col_mask & row_mask, other=0.0)
        y5 = v4 - 0.25
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton_2(v2_1):
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(1, meta['BLOCK_ROWS']),)
    triton_2_kernel[grid](v2, targets, out, out.numel(), width * out_width, BLOCK=1024)
    return out
