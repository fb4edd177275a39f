import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int=5, stride: int=2, padding: int=0, dilation: int=0, groups: int=0, bias: bool=False):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, groups=groups)

    def forward(self, x):
        v1 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v1


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, features: tl.constexpr, height: tl.constexpr, width: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (features * out_height * out_width)
    o2 = (offs // (out_height * out_width)) % features
    o3 = (offs // out_width) % out_height
    o4 = offs % out_width
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            ip5 = o3 * stride - padding + k0 * dilation
            ok6 = ((ip5 >= 0) & (ip5 < height))
            ip7 = o4 * stride - padding + k1 * dilation
            ok8 = ((ip7 >= 0) & (ip7 < width))
            x9 = tl.load(x_ptr + o1 * (features * height * width) + o2 * (height * width) + ip5 * width + ip7, mask=mask & ok6 & ok8, other=0.0)
            y10 = tl.where(x9 > 0.0, x10, float('-inf')))
    y12 = avg11 >= 0.0, avg11, float('-inf')))
    tl.store(out_ptr + offs, y12, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, features, height, width = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_height = (height + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, features, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * features * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * features * out_height * out_width, features, height, width, kernel_size, stride, padding, dilation, out_height, out_width, BLOCK=1024)
    return out
