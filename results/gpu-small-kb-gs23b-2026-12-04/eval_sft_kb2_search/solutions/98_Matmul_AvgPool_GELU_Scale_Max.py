import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl



# Fragment 1..1: avg_pool1d
class f1_ModelNew(nn.Module):

    def __init__(self):
        super().__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=16, padding=0)

    def forward(self, x):
        v0 = f1_launch_triton(x, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v0


@triton.jit
def f1_triton_kernel(x_ptr, out_ptr, n_elements, x_d1: tl.constexpr, x_d2: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_x_d2: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (x_d1 * out_x_d2)
    o2 = offs // out_x_d2 % x_d1
    o3 = offs % out_x_d2
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0
        ok5 = (ip4 >= 0) & (ip4 < x_d2)
        x6 = tl.load(x_ptr + o1 * (x_d1 * x_d2) + o2 * x_d2 + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, x6, 0.0)
    avg7 = acc / kernel_size
    tl.store(out_ptr + offs, avg7, mask=mask)


def f1_launch_triton(x, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    x_d0, x_d1, x_d2 = x.shape
    kernel_size = avg_pool_kernel_size[0]
    stride = avg_pool_stride[0]
    padding = avg_pool_padding[0]
    out_x_d2 = (x_d2 + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((x_d0, x_d1, out_x_d2), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(x_d0 * x_d1 * out_x_d2, meta['BLOCK']),)
    f1_triton_kernel[grid](x, out, x_d0 * x_d1 * out_x_d2, x_d1, x_d2, kernel_size, stride, padding, out_x_d2, BLOCK=128)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, pool_kernel_size, scale_factor):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.avg_pool = nn.AvgPool1d(kernel_size=pool_kernel_size)
        self.scale_factor = scale_factor
        self.frag1 = f1_ModelNew()
        self.frag1.avg_pool = self.avg_pool

    def forward(self, x):
        matmul = self.matmul(x)
        unsqueeze = matmul.unsqueeze(1)
        avg_pool = self.frag1(unsqueeze.contiguous())
        squeeze = avg_pool.squeeze(1)
        gelu = F.gelu(squeeze)
        mul = gelu * 2.0
        max_1 = torch.max(mul, dim=1, keepdim=False)
        getattr_1 = max_1.values
        return getattr_1
