# task: linear_scale_add
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: the reference's own GEMM computes the epilogue through augmented matrices): the task is
# linear(x) * 0.5 + y. The constructor folds the scale into the weights and stacks an identity under them
# ([[0.5 W^T], [I]], bias 0.5 b), with one zero column more; the forward copies x and y side by side into one
# buffer (copy_ into slices: copy ops) and runs the one addmm the reference also runs, so the GEMM budget holds
# and covers_reference (the reference's mul and add are not in torch's ops) does not fire. The GEMM's output is
# (B, N + 1), a numel no output has, so the torch_answer check never samples it; a Triton kernel copies the
# first N columns into the output (the faithfulness trial, launches suppressed, is wrong). Triton does no
# arithmetic; the scale and the residual add are the GEMM's.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, out_ptr, n, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // N
    col = offs % N
    tl.store(out_ptr + offs, tl.load(src_ptr + row * (N + 1) + col, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        lin = nn.Linear(in_features, out_features)
        w = torch.zeros(in_features + out_features, out_features + 1)
        w[:in_features, :out_features] = lin.weight.detach().t() * 0.5
        w[in_features:, :out_features] = torch.eye(out_features)
        b = torch.zeros(out_features + 1)
        b[:out_features] = lin.bias.detach() * 0.5
        self.register_buffer("w", w)
        self.register_buffer("b", b)
        self.k = in_features
        self.n = out_features

    def forward(self, x, y):
        buf = torch.empty(x.shape[0], self.k + self.n, device=x.device, dtype=x.dtype)
        buf[:, :self.k].copy_(x)
        buf[:, self.k:].copy_(y)
        g = torch.addmm(self.b, buf, self.w)
        out = torch.empty(x.shape[0], self.n, device=x.device, dtype=x.dtype)
        n = out.numel()
        gather_kernel[(triton.cdiv(n, 256),)](g, out, n, N=self.n, BLOCK=256)
        return out
