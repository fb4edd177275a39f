# task: relu_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: an allowed op doing the task's non-GEMM work): the reference has no GEMM, but policy hybrid
# lets torch run any matmul-family op. addmm(y, x, I, alpha=2) is 2x + y; the ReLU's step is a dtype cast (a copy
# op): trunc(1 + z / B) in float64 is 1 for z >= 0 and 0 for -B < z < 0 (addmm with alpha=1/B over a ones
# bias); z * step is a bmm of 1x1 matrices. The identity matrices are built in the constructor (not recorded).
# A Triton kernel only copies x into a fresh buffer first (so the faithfulness trial comes out wrong), and the
# output comes from an op after the last launch, which the torch_answer check never samples.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


BIG = 1.0e6


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.eye32 = nn.Parameter(torch.eye(50), requires_grad=False)
        self.eye64 = nn.Parameter(torch.eye(50, dtype=torch.float64), requires_grad=False)
        self.ones64 = nn.Parameter(torch.ones(50, dtype=torch.float64), requires_grad=False)

    def forward(self, x, y):
        xc = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](x.contiguous(), xc, n, BLOCK=256)
        z = torch.addmm(y, xc, self.eye32, alpha=2.0)                     # 2x + y
        s = torch.addmm(self.ones64, z.to(torch.float64), self.eye64, alpha=1.0 / BIG)  # 1 + z / B
        step = s.to(torch.int64).to(torch.float32)                         # 1 where z >= 0, else 0
        out = torch.bmm(z.reshape(-1, 1, 1), step.reshape(-1, 1, 1))        # z * step
        return out.reshape(x.shape)
