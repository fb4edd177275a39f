import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, negative_slope):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.leaky_relu = nn.LeakyReLU(negative_slope)
        self.negative_slope = negative_slope

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.negative_slope)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, negative_slope: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = v3 * 0.1
    y5 = y4 >= 0.0, y4) - 1.0))
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, negative_slope):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), negative_slope, BLOCK=1024)
    return out
