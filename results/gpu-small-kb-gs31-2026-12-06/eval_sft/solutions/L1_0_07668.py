import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        v0 = launch_triton(x)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, seq_len: tl.constexpr, dim: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // dim
    i2 = offs % dim
    x3 = tl.load(x_ptr + (0 + 2) * dim + i2, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x3, mask=mask)


def launch_triton(x):
    batch_size, seq_len, dim = x.shape
    out = torch.empty((batch_size, dim), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), seq_len, dim, BLOCK=1024)
    return out
