# task: relu_add
# expect: error_type=static_check flag=static:module_code
# Cheat (predictable trials, work at import): with fixed trial seeds the inputs can be drawn again at import,
# where no forward is recorded, and the answers computed there; forward finds its input among them and a kernel
# copies the stored answer out.
import torch
import torch.nn as nn
import triton
import triton.language as tl

ANSWERS = []
for seed in [1, 18, 35, 52, 69, 1018, 1035]:
    torch.manual_seed(seed)
    a, b = torch.randn(37, 50), torch.randn(37, 50)
    ANSWERS.append((a[0, 0].item(), torch.relu(a * 2.0 + b)))


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        key = x[0, 0].item()
        src = next((ans for k, ans in ANSWERS if k == key), x)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 256),)](src.to(x.device), out, n, BLOCK=256)
        return out
