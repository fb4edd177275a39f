import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, y):
        v0 = B.T.contiguous()
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v1 = torch.matmul(A, v0)
        v2 = launch_triton(v1, y)
        return v2


@triton.jit
def triton_kernel(v1_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v1_ptr + offs, mask=mask, other=0.0)
    v4 = tl.load(y_ptr + offs, mask=mask, other=0.0)
    y5 = tl.maximum(v3, v4)
    y6 = tl.where(y5 > 0.0, y5, y5 * 0.1)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v1, y):
    out = torch.empty_like(v1)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v1, y, out, out.numel(), BLOCK=256)
    return out
