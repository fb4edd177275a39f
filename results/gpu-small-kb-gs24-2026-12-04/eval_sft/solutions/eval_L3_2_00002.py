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
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(targets, v0)
        return v2


@triton.jit
def triton_kernel(targets_ptr, v0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]
    row_mask = rows < n_rows
    target = tl.load(targets_ptr + rows, mask=row_mask, other=0)
    m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    picked = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_COLS):
        cols = start + tl.arange(0, BLOCK_COLS)[None, :]
        col_mask = cols < n_cols
        i1 = cols // 8
        i2 = cols % 8
        v3 = tl.load(v0_ptr + rows * (8 * 8) + i1 * 8 + i2, mask=col_mask & row_mask, other=0.0)
        x4 = tl.where(row_mask & col_mask, v3, float('-inf'))
        m_new = tl.maximum(m, tl.max(x4, axis=1, keep_dims=True))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x4 - m_new), axis=1, keep_dims=True)
        m = m_new
    res5 = m + tl.log(s)
    tl.store(out_ptr + rows, res5, mask=row_mask)


def launch_triton(targets, v0):
    batch_size, _, _, _ = v0.shape
    _, _, _, _ = targets.shape
    out = torch.empty((batch_size, 8), device=targets.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size, meta['BLOCK_ROWS']),)
    triton_kernel[grid](targets, v0, out, batch_size, 3, BLOCK_ROWS=4, BLOCK_COLS=16)
    return out
