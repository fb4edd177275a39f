import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, reduction_dim, weight_shape):
        super(ModelNew, self).__init__()
        self.weight = nn.Parameter(torch.randn(weight_shape))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        v0 = launch_triton(x, self.scaling_factor)
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v1 = torch.matmul(v0, self.weight)
        v2 = launch_triton_2(v1)
        return v2


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, scaling_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y4 = x3 * scaling_factor
    tl.store(out_ptr + offs, y4, mask=mask)


def launch_triton(x, scaling_factor):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), scaling_factor, BLOCK=128)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, scaling_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x3 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y4 = x3 * scaling_factor
    tl.store(out_ptr + offs, y4, mask=mask)


def launch_triton(x, scaling_factor):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](x, out, out.numel(), scaling_factor, BLOCK=128)
    return out
