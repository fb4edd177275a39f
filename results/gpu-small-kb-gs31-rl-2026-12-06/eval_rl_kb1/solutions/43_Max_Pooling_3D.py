import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int=0, dilation: int=0, groups: int=1, bias: bool=False, c_out: int, kernel_size: int=2):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation, bias=False)

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(v1, v1)
        launch_triton(v0, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, channels: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (channels * 2)
    i2 = (offs // 2) % channels
    i3 = offs % 22
    v4 = tl.load(v0_ptr + i1 * (channels * 2) + i2 * 2 + i3, mask=mask, other=0.0)
    y5 = tl.sin(v4)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, channels, _, _channels), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), channels, dim2, BLOCK=1024)
    return out
