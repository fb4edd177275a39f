import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, hardtanh_min, hardtanh_max, hardtanh_max):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.activation = nn.GELU()
        self.activation = nn.GELU()
        self.activation = nn.GELU()

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.min_val, self.hardtanh_max)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, min_val: tl.constexpr, hardtanh_max: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = 0.5 * v3 * (1.0 + tl.erf(v3 * 0.7071067811865476))
    y5 = y4 * v3
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, min_val):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), min_val, BLOCK=128)
    return out
