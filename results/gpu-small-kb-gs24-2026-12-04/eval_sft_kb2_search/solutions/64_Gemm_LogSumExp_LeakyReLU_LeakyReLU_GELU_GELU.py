import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: leaky_relu
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
    y2 = tl.where(x1 >= 0.0, x1, x1 * 0.1)
    tl.store(out_ptr + offs, y2, mask=mask)


def f3_launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f3_triton_kernel[grid](x, out, out.numel(), BLOCK=64)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        self.frag3 = f3_ModelNew()

    def forward(self, x):
        linear = self.linear(x)
        logsumexp = torch.logsumexp(linear, dim=1, keepdim=True)
        leaky_relu = F.leaky_relu(logsumexp, negative_slope=0.01)
        leaky_relu_1 = self.frag3(leaky_relu.contiguous())
        gelu = F.gelu(leaky_relu_1)
        gelu_1 = F.gelu(gelu)
        return gelu_1
