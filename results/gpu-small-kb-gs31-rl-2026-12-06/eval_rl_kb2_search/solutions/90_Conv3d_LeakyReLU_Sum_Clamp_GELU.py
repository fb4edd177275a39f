import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: clamp
class f3_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v1 = f3_launch_triton(x)
        return v1


@triton.jit
def f3_triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y2 = tl.minimum(tl.maximum(x1, -1.0), 1.0)
    y3 = tl.minimum(tl.maximum(y2, -1.0), 1.0)
    tl.store(out_ptr + offs, y3, mask=mask)


def f3_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f3_triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, sum_tensor_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.sum_tensor = nn.Parameter(torch.randn(sum_tensor_shape))
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        conv = self.conv(x)
        leaky_relu = F.leaky_relu(conv, negative_slope=0.2)
        add = leaky_relu + self.sum_tensor
        clamp = self.frag3(add.contiguous())
        gelu = F.gelu(clamp)
        return gelu
