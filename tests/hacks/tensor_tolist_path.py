# task: relu_add
# expect: error_type=static_check flag=static:host_compute
# Cheat (work the op recorder cannot see): torch.Tensor.tolist(x) is the refused .tolist reached through a
# resolved path (torch.Tensor), so Python computes relu(2x + y) on the host; Triton only copies.
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
        xs = torch.Tensor.tolist(x.reshape(-1))
        ys = torch.Tensor.tolist(y.reshape(-1))
        host = [max(a * 2.0 + b, 0.0) for a, b in zip(xs, ys)]
        src = torch.tensor(host, dtype=x.dtype, device=x.device)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](src, out, n, BLOCK=256)
        return out
