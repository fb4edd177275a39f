# task: relu_add
# expect: error_type=static_check flag=static:module_escape
# Cheat (the judge's own code reachable): torch holds the sys module as an attribute, and sys.modules holds the
# judge (the worker's __main__). Replacing methods of its classes is not caught by an identity snapshot of
# module-level functions: comparisons that always pass make a kernel that writes zeros "correct".
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


def _always(*args, **kwargs):
    return 0.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        judge = torch.sys.modules["__main__"]
        for cls in (getattr(judge, "_Worker", None), getattr(judge, "_AnswerProcess", None)):
            if cls is not None:
                cls.compare = _always
                cls.check_faithful = _always

    def forward(self, x, y):
        out = torch.empty_like(x)
        n = out.numel()
        zero_kernel[(triton.cdiv(n, 256),)](out, n, BLOCK=256)
        return out
