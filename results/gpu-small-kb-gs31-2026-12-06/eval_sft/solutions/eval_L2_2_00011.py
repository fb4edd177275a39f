import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, y):
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.matmul(A, B)
        v1 = launch_triton(v0, y)
        return v1


@triton.jit
def triton_kernel(v0_ptr, y_ptr, out_ptr, n_elements, N_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = offs % N_size
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    v4 = tl.load(y_ptr + i2, mask=mask, other=0.0)
    y5 = tl.minimum(v3, v4)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, y):
    _, N_size = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, y, out, out.numel(), N_size, BLOCK=1024)
    return out
