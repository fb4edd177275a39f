import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, predictions, targets):
        v0 = launch_triton(predictions, targets)
        return v0


@triton.jit
def triton_kernel(predictions_ptr, targets_ptr, out_ptr, n_elements, x_d1: tl.constexpr, x_d2: tl.constexpr, x_d3: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p4 = tl.load(predictions_ptr + offs, mask=mask, other=0.0)
    v5 = tl.load(targets_ptr + offs, mask=mask, other=0.0)
    y6 = (p4 - v5) * (p4 - v5)
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(predictions, targets):
    _, predictions_d0, predictions_d0, _ = predictions.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](predictions, targets, out, out.numel(), x_d1, x_d2, x_d3, BLOCK=1024)
    return out
