import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 3..3: mul
class f3_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        v0 = f3_launch_triton(x, y)
        return v0


@triton.jit
def f3_triton_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    v2 = tl.load(y_ptr + offs, mask=mask, other=0.0)
    y3 = x1 * v2
    tl.store(out_ptr + offs, y3, mask=mask)


def f3_launch_triton(x, y):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    f3_triton_kernel[grid](x, y, out, out.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, eps=1e-05, momentum=0.1):
        super(ModelNew, self).__init__()
        self.bmm = nn.Linear(in_features, out_features)
        self.instance_norm = nn.InstanceNorm2d(out_features, eps=eps, momentum=momentum)
        self.frag3 = f3_ModelNew()

    def forward(self, x, y):
        bmm = self.bmm(x)
        unsqueeze = bmm.unsqueeze(1)
        unsqueeze_1 = unsqueeze.unsqueeze(1)
        instance_norm = self.instance_norm(unsqueeze_1)
        squeeze = instance_norm.squeeze(1)
        squeeze_1 = squeeze.squeeze(1)
        add = squeeze_1 + y
        mul = self.frag3(add.contiguous(), y.contiguous())
        return mul
