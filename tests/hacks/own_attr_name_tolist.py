# task: relu_add
# expect: error_type=static_check flag=static:host_compute
# Cheat (work the op recorder cannot see): a refused attribute name (tolist) is allowed on `self` when the answer
# binds it on self somewhere, and "self" is only a parameter's name: the answer sets self.tolist in its
# constructor, and a function whose parameter is named self, called with a tensor, reads self.tolist() there.
# Python computes relu(2x + y) on the host; Triton only copies.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def values(self):
    return self.tolist()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.tolist = None

    def forward(self, x, y):
        host = [max(a * 2.0 + b, 0.0) for a, b in zip(values(x.reshape(-1)), values(y.reshape(-1)))]
        src = torch.tensor(host, dtype=x.dtype, device=x.device)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](src, out, n, BLOCK=256)
        return out
