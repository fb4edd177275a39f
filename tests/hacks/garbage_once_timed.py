# task: relu_add
# expect: correct=True
# expect_cuda: error_type=mismatch
# Cheat: right while it is being checked, cheap garbage once the timing starts (the judge checks 5 trials
# and the faithfulness run first, then warms up and times). On the CPU nothing is timed, so every call it
# makes is checked and right: correct there. On the GPU the judge spot-checks timed outputs at trials the
# candidate cannot predict: a mismatch.
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
        self.calls = 0

    def forward(self, x, y):
        self.calls += 1
        out = torch.empty_like(x)
        n = x.numel() if self.calls <= 6 else 1  # after the checked calls, compute one element
        relu_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out
