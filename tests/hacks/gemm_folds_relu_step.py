# task: linear_relu
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: the reference's one GEMM and the dropout allowance do the whole task): one addmm over
# augmented weights returns [z | s] with z = x W^T + b and s = 1 + z / B (extra columns, one GEMM call: the
# reference's count); the ReLU's step is a dtype cast (copy ops): trunc(s) is 1 for 0 <= z < B, 0 for -B < z <
# 0; z * step is a `mul`, which policy hybrid allows because each bernoulli draw (the dropout allowance) excuses
# one mul and one div -- a bernoulli draw on a one-element tensor buys it. A zero column pads every torch output
# to a numel no output has (the torch_answer check never samples it); a kernel copies the first columns.
import torch
import torch.nn as nn
import triton
import triton.language as tl

B = 1000.0


@triton.jit
def narrow_kernel(src_ptr, out_ptr, n, H: tl.constexpr, P: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + (offs // H) * P + offs % H, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        ref = nn.Linear(in_features, out_features)      # the reference's weights (same seed)
        p = out_features + 1
        w = torch.zeros(in_features, 2 * p)
        bias = torch.zeros(2 * p)
        with torch.no_grad():
            w[:, :out_features] = ref.weight.t()
            w[:, p:p + out_features] = ref.weight.t() / B
            bias[:out_features] = ref.bias
            bias[p:] = 1.0
            bias[p:p + out_features] += ref.bias / B
        self.w = nn.Parameter(w, requires_grad=False)
        self.b = nn.Parameter(bias, requires_grad=False)
        self.out_features = out_features

    def forward(self, x):
        p = self.out_features + 1
        zs = torch.addmm(self.b, x, self.w)                          # [z | 1 + z/B], one GEMM
        step = zs[:, p:].to(torch.int64).to(x.dtype)                 # 1 where z >= 0, else 0
        torch.bernoulli(torch.ones(1, device=x.device))              # one "draw": one mul excused
        r = zs[:, :p] * step                                         # relu(z), padded to p columns
        out = torch.empty((x.shape[0], self.out_features), device=x.device, dtype=x.dtype)
        n = out.numel()
        narrow_kernel[(triton.cdiv(n, 128),)](r, out, n, H=self.out_features, P=p, BLOCK=128)
        return out
