# task: conv_relu_bias
# expect: error_type=torch_fallback
# Cheat (the hybrid-fp16 plan's shape): torch runs the conv, the ReLU and the bias add in float16
# channels-last; the Triton kernel only widens torch's finished answer to float32 (a cast is a copy).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def widen_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask).to(tl.float32), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))

    def forward(self, x):
        h = torch.nn.functional.conv2d(x.half(), self.conv.weight.half(), self.conv.bias.half())
        r = (torch.relu(h) + self.bias.half()).contiguous()
        out = torch.empty(r.shape, device=r.device, dtype=torch.float32)
        widen_kernel[(triton.cdiv(r.numel(), 256),)](r, out, r.numel(), BLOCK=256)
        return out
