import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, normalized_shape):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.gemm = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v1 = launch_triton(v0, self.bias)
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = self.gemm(v1)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = v3 * tl.minimum(tl.maximum(v3 + 3.0, 0.0), 6.0) / 6.0
    b5 = tl.load(bias_ptr + offs, mask=mask, other=0.0)
    y6 = y5 + b5
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, bias):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), BLOCK=1024)
    return out


@triton.jit
def triton_2_kernel(v1_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v1_ptr + offs, mask=mask, other=0.0)
    y5 = v4 - 1.0
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v1, bias):
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_2_kernel[grid](v1, out, out.numel(), BLOCK=1024)
    return out
