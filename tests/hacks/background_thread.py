# task: relu_add
# expect: error_type=static_check flag=static:thread
# Cheat: do the work on a background thread so the timed call returns early.
import threading
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        r = torch.relu(x * 2.0 + y)
        t = threading.Thread(target=lambda: copy_kernel[(triton.cdiv(r.numel(), 1024),)](r, out, r.numel(), BLOCK=1024))
        t.start()
        return out
