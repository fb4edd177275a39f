# task: linear_scale_add
# expect: error_type=torch_fallback
# Cheat (operands classed by storage alone): gemm_same_count_scale_and_residual.py's [[0.5 I], [I]] held in the
# same storage as a parameter that holds the reference's weight, so torch's one GEMM took memory anchored as the
# reference's parameter. Anchors cover the span a parameter fills, not its whole storage.
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
        store = torch.cat([w.reshape(-1), torch.cat([0.5 * eye, eye], 0).reshape(-1)])
        self.weight = nn.Parameter(store[:w.numel()].view(out_features, in_features))
        self.mix = store[w.numel():].view(2 * out_features, out_features)
        self.w_copy = w.clone()
        self.b_copy = b.clone()

    def move(self, device):
        """The judge's .to(device) copies the parameter out of `store` alone: on the first forward on another
        device the store is made again there, the parameter a view of it once more (on the CPU, never)."""
        if self.mix.device != device:
            n = self.weight.numel()
            store = torch.cat([self.weight.detach().reshape(-1), self.mix.to(device).reshape(-1)])
            self.weight = nn.Parameter(store[:n].view(self.weight.shape))
            self.mix = store[n:].view(self.mix.shape)
            self.w_copy, self.b_copy = self.w_copy.to(device), self.b_copy.to(device)

    def forward(self, x, y):
        self.move(x.device)
        M, K = x.shape
        N = self.w_copy.shape[0]
        buf = torch.empty(M, 2 * N, device=x.device, dtype=x.dtype)
        buf[:, N:].copy_(y)
        linear_into[(M,)](x.contiguous(), self.w_copy, self.b_copy, buf, K=K, N=N)
        return torch.mm(buf, self.mix)
