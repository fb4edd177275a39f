import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int=1, padding: int=0):
        super(ModelNew, self).__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        avg_pool = avg_pool1d(x)
        return avg_pool


@triton.jit
def avg_pool1d_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 8388736
    o2 = (offs // 65537) % 128
    o3 = offs % 65537
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(8):
        ip4 = o3 - 4 + k0
        ok5 = ((ip4 >= 0) & (ip4 < 65536))
        x6 = tl.load(x_ptr + o1 * 8388608 + o2 * 65536 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, x6, 0.0)
    avg7 = acc / 8.0
    tl.store(out_ptr + offs, avg7, mask=mask)


def avg_pool1d(x):
    out = torch.empty((64, 128, 65537), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(536879104, meta['BLOCK']),)
    avg_pool1d_kernel[grid](x, out, 536879104, BLOCK=2048)
    return out
