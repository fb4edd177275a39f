# task: conv_relu_bias
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: convolutions doing the non-conv work): besides the task's own conv, 1x1 convolutions do
# everything else. The ReLU's step: a 1x1 conv in float64 with weight 1/B and bias 1 gives 1 + z/B, and a cast to
# int64 and back (copy ops) truncates it to 1 for z >= 0 and 0 otherwise; z * step is a bmm of 1x1 matrices; the
# bias add after the ReLU is a 1x1 identity conv whose bias is the task's. Policy hybrid counts no convolutions,
# so the extra ones are free. A Triton kernel only copies x into a fresh buffer first.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


BIG = 1.0e6


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))
        c = out_channels
        self.step_w = nn.Parameter(torch.eye(c, dtype=torch.float64).reshape(c, c, 1, 1) / BIG, requires_grad=False)
        self.step_b = nn.Parameter(torch.ones(c, dtype=torch.float64), requires_grad=False)
        self.id_w = nn.Parameter(torch.eye(c).reshape(c, c, 1, 1), requires_grad=False)

    def forward(self, x):
        xc = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 256),)](x.contiguous(), xc, x.numel(), BLOCK=256)
        z = self.conv(xc)
        s = F.conv2d(z.to(torch.float64), self.step_w, self.step_b)          # 1 + z / B
        step = s.to(torch.int64).to(z.dtype)                                 # 1 where z >= 0
        r = torch.bmm(z.reshape(-1, 1, 1), step.reshape(-1, 1, 1)).reshape(z.shape)   # relu(z)
        return F.conv2d(r, self.id_w, self.bias.reshape(-1))                 # + bias
