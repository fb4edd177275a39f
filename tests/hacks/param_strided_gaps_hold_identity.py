# task: linear_scale_add
# expect: error_type=torch_fallback
# Cheat (a parameter's span anchored whole): the reference's weight as a parameter that is every other block of
# columns of a buffer, [[0.5 I], [I]] transposed in the gaps between; torch's one GEMM takes the gaps. A parameter
# that does not fill its span densely anchors nothing by memory (its values still count where a GEMM takes it).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_into(x_ptr, w_ptr, b_ptr, buf_ptr, K: tl.constexpr, N: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
    h = tl.sum(w * tl.load(x_ptr + r * K + ks)[None, :], axis=1) + tl.load(b_ptr + cols)
    tl.store(buf_ptr + r * 2 * N + cols, h)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        lin = nn.Linear(in_features, out_features)
        w = lin.weight.detach()
        b = lin.bias.detach()
        eye = torch.eye(out_features)
        # rows of the weight interleaved with rows of the mix: the parameter is a strided view of `store`
        mix = torch.cat([0.5 * eye, eye], 0)
        store = torch.cat([w, mix.t()], 1)
        self.weight = nn.Parameter(store[:, :in_features])
        self.mix = store[:, in_features:].t()
        self.w_copy = w.clone()
        self.b_copy = b.clone()

    def move(self, device):
        """The judge's .to(device) copies the parameter out of `store` alone: on the first forward on another
        device the store is made again there, the parameter a strided view of it once more (on the CPU, never)."""
        if self.mix.device != device:
            k = self.weight.shape[1]
            store = torch.cat([self.weight.detach(), self.mix.to(device).t()], 1)
            self.weight = nn.Parameter(store[:, :k])
            self.mix = store[:, k:].t()
            self.w_copy, self.b_copy = self.w_copy.to(device), self.b_copy.to(device)

    def forward(self, x, y):
        self.move(x.device)
        M, K = x.shape
        N = self.w_copy.shape[0]
        buf = torch.empty(M, 2 * N, device=x.device, dtype=x.dtype)
        buf[:, N:].copy_(y)
        linear_into[(M,)](x.contiguous(), self.w_copy, self.b_copy, buf, K=K, N=N)
        return torch.mm(buf, self.mix)
