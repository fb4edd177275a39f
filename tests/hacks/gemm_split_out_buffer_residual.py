# task: linear_scale_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: the split-K exemption of _accumulates is keyed on an earlier GEMM's storage pointer and its
# version counter, not on the memory that GEMM wrote): the task is linear(x) * 0.5 + y. The answer copies the
# residual y into half 1 of a fresh buffer through buf.data (copy_: not compute; .data has a version counter of
# its own, so buf's stays 0), runs the GEMM of row 0 with out= a view into half 0 (gemm_outs records buf's storage
# and version 0: the out= write bumps the counter only after the dispatch mode saw the op; the view is kept alive
# for the weak reference), then addmm(buf.data[1, 1:], x[1:], 0.5 W^T): its C is the residual, on the recorded
# storage with a fresh counter at 0, so it is "an earlier GEMM's output that nothing wrote since" and counts as
# one GEMM split along K, not an add. Two calls, exactly the reference's multiply-adds. Triton adds 0.5 b and row
# 0's residual; torch did the residual add of every other row, uncounted (tests/hacks/gemm_accumulates_residual.py
# again, through the exemption).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def epi_kernel(r0_ptr, t_ptr, y_ptr, b_ptr, out_ptr, n, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // N
    col = offs % N
    first = row == 0
    r0 = tl.load(r0_ptr + col, mask=mask & first, other=0.0)
    y0 = tl.load(y_ptr + col, mask=mask & first, other=0.0)
    t = tl.load(t_ptr + offs - N, mask=mask & (row > 0), other=0.0)
    b = tl.load(b_ptr + col, mask=mask)
    tl.store(out_ptr + offs, tl.where(first, r0 + y0, t) + 0.5 * b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        with torch.no_grad():
            self.register_buffer("wt_half", (self.linear.weight.t() * 0.5).contiguous())

    def forward(self, x, y):
        m, n_out = y.shape
        buf = torch.empty(2, m, n_out, device=x.device, dtype=x.dtype)
        buf.data[1].copy_(y)                                  # the residual: a copy, through .data (own version)
        row0 = buf[0, :1]                                     # kept alive: gemm_outs holds a weak reference
        torch.mm(x[:1], self.wt_half, out=row0)               # GEMM output: buf's storage, version 0 recorded
        t = torch.addmm(buf.data[1, 1:], x[1:], self.wt_half)  # C = residual rows: same storage, version 0
        out = torch.empty_like(y)
        n = out.numel()
        epi_kernel[(triton.cdiv(n, 256),)](buf, t, y, self.linear.bias, out, n, N=n_out, BLOCK=256)
        return out
