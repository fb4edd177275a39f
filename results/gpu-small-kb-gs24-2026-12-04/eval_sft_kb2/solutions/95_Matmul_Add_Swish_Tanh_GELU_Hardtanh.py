import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, add_value):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.add_value = nn.Parameter(min_value

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.matmul(x)
        v3 = launch_triton(v0, self.add_value)
        return v3


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, add_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = 0.5 * v3 * (1.0 + tl.erf(v3 * 0.7071067811865476))
    y5 = y4 + add_value
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0, add_value):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), add_value, BLOCK=256)
    return out
