# task: mse_mean
# expect: correct=True
# expect_cuda: error_type=torch_fallback flag=policy:timed_runs
# (a GPU-only timing cheat: on the CPU nothing is timed and the Triton path is honest, so correct is right there)
# Cheat (timing: switch to torch once the trials are over): the correctness trials and the faithfulness trial are
# the first trials + 1 forwards of the answer process (trial_plan; 6 with the default 5 trials), and they run under
# the op recorder. From the 7th call on, the forward returns F.mse_loss(p, t): one fused torch kernel instead of the
# reference's three (sub, pow, mean), so the timed runs would measure torch, not Triton, at about 2-3x the
# reference's speed, and the spot checks (values only) pass since torch's values are right. Refused by rule
# timed_runs: a timed run launched no Triton kernel where every trial launched one (and a recorded timed run shows
# torch's mse_loss).
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def mse_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
        acc += d * d
    tl.store(out_ptr, tl.sum(acc, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, predictions, targets):
        self.calls += 1
        if self.calls > 6:
            return F.mse_loss(predictions, targets)
        out = torch.empty((), device=predictions.device, dtype=torch.float32)
        mse_kernel[(1,)](predictions.contiguous(), targets.contiguous(), out, predictions.numel(), BLOCK=8192)
        return out
