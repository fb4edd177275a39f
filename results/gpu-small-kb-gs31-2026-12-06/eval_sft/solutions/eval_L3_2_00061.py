import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, subtract_shape=(11,)):
        super(ModelNew, self).__init__()
        self.subtract = nn.Parameter(torch.randn(subtract_shape))

    def forward(self, A, B):
        # einsum stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.einsum('bij,jk->bik', A, B)
        v2 = launch_triton(v0, self.subtract)
        return v2


@triton.jit
def triton_kernel(v0_ptr, subtract_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = tl.cos(v4)
    v6 = tl.load(subtract_ptr + offs, mask=mask, other=0.0)
    y7 = tl.minimum(y5, f6)
    tl.store(out_ptr + offs, y7, mask=mask)


def launch_triton(v0, subtract):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, subtract, out, out.numel(), BLOCK=1024)
    return out
