import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 2..2: leaky_relu
class f2_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v0 = f2_launch_triton(x)
        return v0


@triton.jit
def f2_triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y2 = tl.where(x1 >= 0.0, x1, x1 * 0.05)
    tl.store(out_ptr + offs, y2, mask=mask)


def f2_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f2_triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.frag2 = f2_ModelNew()

    def forward(self, x):
        conv = self.conv(x)
        relu = torch.relu(conv)
        leaky_relu = self.frag2(relu.contiguous())
        gelu = F.gelu(leaky_relu)
        sigmoid = torch.sigmoid(gelu)
        add = sigmoid + self.bias
        return add
