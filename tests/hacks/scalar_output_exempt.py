# task: mse_mean
# expect: error_type=torch_fallback
# Cheat (hybrid audit, the torch_answer check's constant exemption): torch computes the whole MSE with GEMMs only
# (p - t as addmm(p, t, -I); the mean of squares as one (1 x n) @ (n x 1) product with alpha = 1/n), and a Triton
# kernel copies that one number into the output. A one-element output always "cannot be told from a constant"
# by the torch_answer check (its min equals its max), so a torch op that already holds the answer is never
# matched; the reference runs no GEMM, so the matmul ops are neither refused nor cover the reference.
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
        self.neg_eye = nn.Parameter(-torch.eye(512), requires_grad=False)

    def forward(self, predictions, targets):
        d = torch.addmm(predictions, targets, self.neg_eye)                    # p - t
        n = d.numel()
        flat = d.reshape(1, n)
        acc = torch.zeros(1, 1, device=d.device, dtype=d.dtype)
        m = torch.addmm(acc, flat, flat.t(), beta=0.0, alpha=1.0 / n)         # mean of squares
        out = torch.empty((), device=d.device, dtype=d.dtype)
        copy_kernel[(1,)](m, out, 1, BLOCK=16)
        return out
