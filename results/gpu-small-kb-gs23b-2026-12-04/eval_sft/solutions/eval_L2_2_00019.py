import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, ceiling_shape):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(in_features, out_features=out_features)
        self.proj = nn.Parameter(torch.randn(proj_shape))

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v1 = launch_triton(v0, self.proj)
        return v1


@triton.jit
def triton_kernel(v0_ptr, proj_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    v4 = tl.load(ceiling_ptr + offs, mask=mask, other=0.0)
    y5 = tl.maximum(v3, v4)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, ceiling):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, ceiling, out, out.numel(), BLOCK=64)
    return out
