import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        v2 = launch_triton(x)
        # conv1d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v3 = torch.bmm(v2, B)
        return v3


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x4 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y5 = tl.sin(x4)
    y6 = 1.0 - 2.0 / (tl.exp(2.0 * y5) + 1.0)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(x):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), BLOCK=1024)
    return out
