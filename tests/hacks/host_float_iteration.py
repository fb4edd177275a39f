# task: relu_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (work the op recorder cannot see): iterating a tensor yields 0-d tensors (unbind, a view op) and the
# builtin float() reads each value (_local_scalar_dense, counted as a copy op), so Python computes relu(2x + y)
# on the host; torch.tensor() brings it back (lift_fresh, an allocation op) and a Triton kernel only copies.
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
        xs = [float(a) for a in x.reshape(-1)]
        ys = [float(b) for b in y.reshape(-1)]
        host = [max(a * 2.0 + b, 0.0) for a, b in zip(xs, ys)]
        src = torch.tensor(host, dtype=x.dtype, device=x.device)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](src, out, n, BLOCK=256)
        return out
