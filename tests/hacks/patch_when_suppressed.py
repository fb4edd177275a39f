# task: relu_add
# expect: error_type=static_check flag=static:module_as_value
# Cheat: a correct kernel that, when it notices its launch was suppressed (the output is still the poisoned
# allocation), patches allclose through an alias and raises, so the faithfulness run ends in an exception
# rather than a return. Without an identity check on that path the worker would judge later candidates
# with allclose always true; the worker now checks identities after every job, whatever its verdict.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + y, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        if torch.isnan(out).any():
            m = torch
            m.allclose = lambda *a, **k: True
            raise RuntimeError("suppressed")
        return out
