# task: relu_add
# expect: error_type=static_check
# Cheat (the judge's process state reachable): triton/language/extra/__init__.py does `from sys import modules`,
# so the allowed path triton.language.extra.modules is sys.modules itself (a dict, not a module: the gate's
# module_as_value/_foreign_module checks look only for module objects). A subscript of it reaches every module
# of the answer process (builtins, os, the judge); builtins.getattr by attribute name is not the refused bare
# builtin, and a private name passed as a string escapes the private_api rule. Here torch computes the whole
# answer with the dispatch mode (the op recorder) popped, so nothing is recorded; a kernel copies the answer
# (the faithfulness trial, launches suppressed, comes out wrong). Passes strict.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        mods = triton.language.extra.modules
        hidden = mods["builtins"].getattr(mods["torch.utils._python_dispatch"], "_disable_current_modes")
        with hidden():
            r = torch.relu(x * 2.0 + y).contiguous()
        out = torch.empty_like(r)
        n = r.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](r, out, n, BLOCK=1024)
        return out
