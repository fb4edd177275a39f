import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        v0 = B.T.contiguous()
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v1 = torch.matmul(A, v0)
        v2 = launch_triton(v1)
        return v2


@triton.jit
def triton_kernel(v1_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v1_ptr + offs, mask=mask, other=0.0)
    y4 = v3 + 2.0
    tl.store(out_ptr + offs, y4, mask=mask)


def launch_triton(v1):
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v1, out, out.numel(), BLOCK=1024)
    return out
