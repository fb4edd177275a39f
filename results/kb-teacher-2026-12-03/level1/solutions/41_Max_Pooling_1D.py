import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int=None, padding: int=0, dilation: int=1, return_indices: bool=False):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, return_indices=return_indices)

    def forward(self, x):
        maxpool = max_pool1d(x)
        return maxpool


@triton.jit
def max_pool1d_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 12580416
    o2 = (offs // 65523) % 192
    o3 = offs % 65523
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(8):
        ip4 = o3 - 4 + k0 * 3
        ok5 = ((ip4 >= 0) & (ip4 < 65536))
        x6 = tl.load(x_ptr + o1 * 12582912 + o2 * 65536 + ip4, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, x6, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def max_pool1d(x):
    out = torch.empty((64, 192, 65523), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(805146624, meta['BLOCK']),)
    max_pool1d_kernel[grid](x, out, 805146624, BLOCK=2048)
    return out
