import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, output_size, divisor):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(input_size, output_size, True)
        self.divisor = divisor
        self.divisor = divisor

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.linear(x)
        v2 = launch_triton(v0, self.divisor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, divisor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = 0.5 * v4 * (1.0 + tl.erf(v4 * 0.7071067811865476))
    y6 = y5 / divisor
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, divisor):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), divisor, BLOCK=1024)
    return out
