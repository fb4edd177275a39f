import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: hardswish
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
    x4 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y5 = x4 * tl.minimum(tl.maximum(x4 + 3.0, 0.0), 6.0) / 6.0
    tl.store(out_ptr + offs, y5, mask=mask)


def f3_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f3_triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, eps=1e-05):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(groups, out_channels, eps=eps)
        self.tanh = nn.Tanh()
        self.hard_swish = nn.Hardswish()
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        conv = self.conv(x)
        group_norm = self.group_norm(conv)
        tanh = torch.tanh(group_norm)
        hard_swish = self.frag3(tanh.contiguous())
        add = conv + hard_swish
        logsumexp = torch.logsumexp(add, dim=1, keepdim=True)
        return logsumexp
