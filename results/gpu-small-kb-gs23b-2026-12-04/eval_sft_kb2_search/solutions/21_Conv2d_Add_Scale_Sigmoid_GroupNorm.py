import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: sigmoid
class f3_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = f3_launch_triton(x)
        return v0


@triton.jit
def f3_triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y2 = tl.sigmoid(x1)
    tl.store(out_ptr + offs, y2, mask=mask)


def f3_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f3_triton_kernel[grid](x, out, out.numel(), BLOCK=32)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups, bias_shape, scale_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.group_norm = nn.GroupNorm(num_groups, out_channels)
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        conv = self.conv(x)
        add = conv + self.bias
        mul = add * self.scale
        sigmoid = self.frag3(mul.contiguous())
        group_norm = self.group_norm(sigmoid)
        return group_norm
