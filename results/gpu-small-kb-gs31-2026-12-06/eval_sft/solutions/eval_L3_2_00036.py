import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, scale_factor):
        super(ModelNew, self).__init__()
        self.scale_factor = scale_factor

    def forward(self, A, B):
        # einsum stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.einsum('bij,bjk->bik', A, B)
        v2 = launch_triton(v0, self.scale_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = v4 * scale_factor
    y6 = y5 * (1.0 - 2.0 / (tl.exp(2.0 * tl.where(y5 > 20.0, y5, tl.log(1.0 + tl.exp(y5)))) + 1.0))
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, scale_factor):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), scale_factor, BLOCK=1024)
    return out
