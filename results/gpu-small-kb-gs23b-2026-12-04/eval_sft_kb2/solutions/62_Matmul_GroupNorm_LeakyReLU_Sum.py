import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size=1, hidden_slope=0.1):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(input_size=input_size, num_outputs)
        self.leaky_relu = nn.LeakyReLU(negative_slope=negative_slope)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = tl.where(v3 >= 0.0, v3, v3 * 0.2)
    y5 = tl.where(y4 >= 0.0, y4, y4 * 0.1)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(v0):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), BLOCK=64)
    return out
