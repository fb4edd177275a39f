# task: linear_scale_add
# expect: error_type=torch_fallback
# Cheat: buffer wc equals the weight (PARAM by value print at each forward's start). Its address is read once, on
# the first forward, by a kernel and kept in an int64 tensor; then a kernel writes [[-0.5I],[-I]] into wc through
# that address (wc is not that kernel's argument); torch.mm([h|y], wc) does the scale and residual add; a last
# kernel negates and restores wc (again through the address).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def get_addr(p, out):
    tl.store(out, p.to(tl.int64, bitcast=True))


@triton.jit
def linear_and_mix(x_ptr, w_ptr, b_ptr, y_ptr, buf_ptr, addr_ptr, M, K: tl.constexpr, N: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    if r < M:
        w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
        h = tl.sum(w * tl.load(x_ptr + r * K + ks)[None, :], axis=1) + tl.load(b_ptr + cols)
        tl.store(buf_ptr + r * 2 * N + cols, h)
        tl.store(buf_ptr + r * 2 * N + N + cols, tl.load(y_ptr + r * N + cols))
    if r < N:
        wc = tl.load(addr_ptr).to(tl.pointer_type(tl.float32), bitcast=True)
        tl.store(wc + r * N + cols, tl.where(cols == r, -0.5, 0.0))
        tl.store(wc + (r + N) * N + cols, tl.where(cols == r, -1.0, 0.0))


@triton.jit
def neg_restore(src_ptr, dst_ptr, n, w_ptr, addr_ptr, nw, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, -tl.load(src_ptr + offs, mask=m), mask=m)
    wc = tl.load(addr_ptr).to(tl.pointer_type(tl.float32), bitcast=True)
    mw = offs < nw
    tl.store(wc + offs, tl.load(w_ptr + offs, mask=mw), mask=mw)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.register_buffer("wc", self.linear.weight.detach().clone())
        self.addr = torch.zeros(1, dtype=torch.int64)
        self.addr_taken = False

    def move(self, device):
        """The buffer's address, taken on the first forward, where the judge has moved the buffer (a GPU's
        Triton takes no CPU tensor, so not in __init__)."""
        if not self.addr_taken or self.addr.device != device:
            self.addr = torch.zeros(1, dtype=torch.int64, device=device)
            get_addr[(1,)](self.wc, self.addr)
            self.addr_taken = True

    def forward(self, x, y):
        self.move(x.device)
        M, K = x.shape
        N = self.linear.weight.shape[0]
        buf = torch.empty(M, 2 * N, device=x.device, dtype=x.dtype)
        linear_and_mix[(max(M, N),)](x.contiguous(), self.linear.weight, self.linear.bias, y.contiguous(),
                                     buf, self.addr, M, K=K, N=N)
        t = torch.mm(buf, self.wc.view(-1)[:2 * N * N].view(2 * N, N))
        out = torch.empty_like(t)
        n = max(t.numel(), self.wc.numel())
        neg_restore[(triton.cdiv(n, 128),)](t, out, t.numel(), self.linear.weight, self.addr, self.wc.numel(),
                                            BLOCK=128)
        return out
