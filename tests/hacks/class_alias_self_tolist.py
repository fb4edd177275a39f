# task: relu_add
# expect: error_type=static_check
# Cheat (work the op recorder cannot see): own_attr_name_tolist.py's fix holds `self`'s exemptions to methods,
# and unbound_method_patches_class.py's fix is at run time (library classes only). Combined: a method of the
# answer's own class reads self.tolist() (allowed: the answer binds self.tolist in a method, so the name is
# "its own"), and `H = Reader` aliases the class so `H.read(x)` is not seen as an unbound method call: there
# `self` is the input tensor and tolist() copies its values to Python without any aten op. Python computes
# relu(2x + y); torch.tensor makes it a tensor (an allocation); a kernel copies it. Passes strict.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class Reader(nn.Module):
    def __init__(self):
        super().__init__()
        self.tolist = None          # makes "tolist" one of the answer's own attribute names

    def read(self):
        return self.tolist()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        H = Reader
        xs = H.read(x.contiguous().reshape(-1))
        ys = H.read(y.contiguous().reshape(-1))
        vals = [max(2.0 * a + b, 0.0) for a, b in zip(xs, ys)]
        r = torch.tensor(vals, dtype=x.dtype, device=x.device).reshape(x.shape)
        out = torch.empty_like(r)
        n = r.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](r, out, n, BLOCK=1024)
        return out
