# task: relu_add
# expect: error_type=static_check
# Cheat (the judge's process state reachable): F.torch resolves to "torch.nn.functional.torch", a path the gate
# does not know is a module, so it may be bound to a local; attributes of a local are not resolved, so
# tm.sys.modules (a dict, string keys) reaches every module of the answer process. A parameter named `self`
# reads a private name the answer also binds on its own self (peek), which fetches the op recorder (the current
# TorchDispatchMode); torch computes the whole answer and the recorder's counts and fallback samples are cleared
# before forward returns. A kernel copies the answer (so the faithfulness trial, launches suppressed, is wrong).
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def peek(self):
    return self._get_current_dispatch_mode


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._get_current_dispatch_mode = None

    def forward(self, x, y):
        tm = F.torch
        pd = tm.sys.modules["torch.utils._python_dispatch"]
        rec = peek(pd)()
        r = torch.relu(x * 2.0 + y)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](r, out, n, BLOCK=256)
        rec.counts.clear()
        rec.lines.clear()
        if rec.watch is not None:
            rec.watch.kept.clear()
            rec.watch.pending.clear()
        return out
