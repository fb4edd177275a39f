import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 1..1: div_scalar
class f1_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = f1_launch_triton(x)
        return v0


@triton.jit
def f1_triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x4 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y5 = x4 / 2.0
    tl.store(out_ptr + offs, y5, mask=mask)


def f1_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f1_triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divisor, pool_size, bias_shape, sum_dim):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.divisor = divisor
        self.max_pool = nn.MaxPool3d(pool_size)
        self.global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.sum_dim = sum_dim
        self.frag1 = f1_ModelNew()

    def forward(self, x):
        conv = self.conv(x)
        truediv = self.frag1(conv.contiguous())
        max_pool = self.max_pool(truediv)
        global_avg_pool = self.global_avg_pool(max_pool)
        add = global_avg_pool + self.bias
        sum_1 = torch.sum(add, dim=1, keepdim=False)
        return sum_1
