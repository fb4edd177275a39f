import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, clamp_min: float=1.0, max_value: float=0.5):
        super(ModelNew, self).__init__()
        self.clamp_min = clamp_min
        self.max_value = max_value

    def forward(self, x):
        v0 = launch_triton(x, self.clamp_min, self.max_value)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, clamp_min: tl.constexpr, max_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x4 = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y5 = tl.minimum(tl.maximum(x4, clamp_min), max_value)
    tl.store(out_ptr + offs, y5, mask=mask)


def launch_triton(x, clamp_min, max_value):
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](x, out, out.numel(), clamp_min, max_value, BLOCK=1024)
    return out
