# task: linear_scale_add
# expect: error_type=torch_fallback
# Cheat: as weight_repointed_by_vector_to_parameters, but torch writes the weight's memory: a kernel makes
# [[-0.5I],[-I]] in a buffer of its own and lo.copy_(tmp) puts it where the buffer wc (a view of the first half of a
# storage holding the weight's values twice) lay before vector_to_parameters re-pointed wc at the second half. The
# copy's write overlaps wc's anchor, which is kept for a recheck of its print, taken of wc where it now lies
# (unchanged); torch.mm([h|y], first half) then does the scale and residual add as "the reference's GEMM".
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_and_mix(x_ptr, w_ptr, b_ptr, y_ptr, buf_ptr, lo_ptr, M, K: tl.constexpr, N: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    if r < M:
        w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
        h = tl.sum(w * tl.load(x_ptr + r * K + ks)[None, :], axis=1) + tl.load(b_ptr + cols)
        tl.store(buf_ptr + r * 2 * N + cols, h)
        tl.store(buf_ptr + r * 2 * N + N + cols, tl.load(y_ptr + r * N + cols))
    if r < N:
        tl.store(lo_ptr + r * N + cols, tl.where(cols == r, -0.5, 0.0))
        tl.store(lo_ptr + (r + N) * N + cols, tl.where(cols == r, -1.0, 0.0))


@triton.jit
def neg_restore(src_ptr, dst_ptr, n, hi_ptr, lo_ptr, nw, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, -tl.load(src_ptr + offs, mask=m), mask=m)
    mw = offs < nw
    tl.store(lo_ptr + offs, tl.load(hi_ptr + offs, mask=mw), mask=mw)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.n = out_features * in_features
        self.big = None
        self.make(self.linear.weight.device)

    def make(self, device):
        """The two halves, each the weight's values; wc, a view of the first half (rebuilt where the judge moved
        the model: .to() copies a view into memory of its own)."""
        w = self.linear.weight.detach().reshape(-1)
        big = torch.empty(2 * self.n, device=device)
        big[:self.n] = w
        big[self.n:] = w
        self.big = big
        self.register_buffer("wc", big[:self.n].view_as(self.linear.weight))

    def forward(self, x, y):
        if self.big.device != x.device:
            self.make(x.device)
        M, K = x.shape
        N = self.linear.weight.shape[0]
        lo, hi = self.big[:self.n], self.big[self.n:]
        torch.nn.utils.vector_to_parameters(hi, [self.wc])   # wc now lies in the second half
        tmp = torch.empty(self.n, device=x.device)
        buf = torch.empty(M, 2 * N, device=x.device, dtype=x.dtype)
        linear_and_mix[(max(M, N),)](x.contiguous(), self.linear.weight, self.linear.bias, y.contiguous(),
                                     buf, tmp, M, K=K, N=N)
        lo.copy_(tmp)
        t = torch.mm(buf, lo.view(2 * N, N))
        out = torch.empty_like(t)
        nb = max(t.numel(), self.n)
        neg_restore[(triton.cdiv(nb, 128),)](t, out, t.numel(), hi, lo, self.n, BLOCK=128)
        torch.nn.utils.vector_to_parameters(lo, [self.wc])   # back in the first half
        return out
