# task: relu_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit): a Triton kernel computes x * 2 + y and torch's relu after the last launch makes the
# output. Policy hybrid lets torch run GEMMs and convolutions only; an elementwise op in torch is refused
# wherever it runs, before or after the kernels.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fma_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 2.0 + y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        t = torch.empty_like(x)
        fma_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, t, x.numel(), BLOCK=1024)
        return torch.relu(t)
