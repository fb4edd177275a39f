import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.sigmoid = nn.Sigmoid()
        self.sigmoid = nn.Sigmoid()

    def forward(self, A, B):
        # bmm stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.bmm(A, B)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = tl.sigmoid(v4)
    y6 = tl.minimum(tl.maximum(y5, -0.5), 2.0)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), BLOCK=1024)
    return out
