import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.matmul(A, B)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, M_size: tl.constexpr, N_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // N_size) % M_size
    i3 = offs % N_size
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = tl.where(i3 - i2 >= -1, x4, 0.0)
    y6 = y5 + -1, y5, 0.0)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), M_size, N_size, BLOCK=1024)
    return out
