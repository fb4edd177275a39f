# task: conv_relu_bias
# expect: error_type=torch_fallback
# Cheat: torch does the conv, a ReLU spelled as torch.where and the bias add; a Triton kernel only
# adds 0.0 on the way into a fresh buffer (needed: faithfulness passes).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_zero_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask) + 0.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))

    def forward(self, x):
        h = self.conv(x)
        r = torch.where(h > 0, h, 0.0) + self.bias
        out = torch.empty_like(r)
        add_zero_kernel[(triton.cdiv(r.numel(), 256),)](r, out, r.numel(), BLOCK=256)
        return out
