import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape=(2, 57,)):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v1 = launch_triton(v0, self.bias)
        return v1


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, bias_d0: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = offs % other_d0
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    b4 = tl.load(bias_ptr + i2, mask=mask, other=0.0)
    y5 = tl.maximum(v3, v4)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, bias):
    bias_d0 = bias.shape[0]
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), bias_d0, BLOCK=1024)
    return out
