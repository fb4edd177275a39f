import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        v0 = A.T.contiguous()
        v1 = B.T.contiguous()
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v2 = torch.matmul(v0, v1)
        v4 = launch_triton(v2)
        return v4


@triton.jit
def triton_kernel(v2_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v2_ptr + offs, mask=mask, other=0.0)
    y4 = v3 * 0.5
    y5 = y4 - (1.0 - 2.0 / (tl.exp(2.0 * y4) + 1.0))
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v2):
    out = torch.empty_like(v2)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v2, out, out.numel(), BLOCK=1024)
    return out
