import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, shift_shape):
        super(ModelNew, self).__init__()
        self.shift = nn.Parameter(torch.randn(shift_shape))

    def forward(self, A, B):
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.matmul(A, B)
        v2 = launch_triton(v0, self.shift)
        return v2


@triton.jit
def triton_kernel(v0_ptr, shift_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    s4 = tl.load(shift_ptr + offs, mask=mask, other=0.0)
    y5 = tl.maximum(v3, v4)
    y6 = y5 + shift
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, shift):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, shift, out, out.numel(), BLOCK=1024)
    return out
