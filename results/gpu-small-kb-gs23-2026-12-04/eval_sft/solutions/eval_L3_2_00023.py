import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, num_by, num_by=1.0):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(num_channels, eps=1e-05, momentum=bn_momentum)
        self.divide_by = divide_by

    def forward(self, A, B):
        # einsum stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.einsum('bij,bjk->bik', A, B)
        v2 = launch_triton(v0, self.divide_by)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, M_size: tl.constexpr, N_size: tl.constexpr, divide_by: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (M_size * N_size)
    i2 = (offs // N_size) % M_size
    i3 = offs % N_size
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y5 = v4 / divide_by
    y6 = y5 / divide_by
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, divide_by):
    _, M_size, N_size = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), M_size, N_size, divide_by, BLOCK=1024)
    return out
