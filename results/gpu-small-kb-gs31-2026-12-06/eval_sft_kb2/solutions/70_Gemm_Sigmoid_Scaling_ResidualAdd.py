import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(input_size, hidden_size, True)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.scaling_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, scaling_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = tl.sigmoid(v4)
    y6 = y5 * tl.sigmoid(y5)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, scaling_factor):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), scaling_factor, BLOCK=1024)
    return out
