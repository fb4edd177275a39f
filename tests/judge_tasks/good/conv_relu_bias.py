# task: conv_relu_bias
# A hybrid whose epilogue writes in place: torch does the conv, one Triton kernel overwrites the
# conv's output with relu(h) + bias, and that torch-made tensor is returned. The torch_fallback check compares
# the output with a copy of what the conv computed, taken when it ran, so this is not mistaken for torch's answer.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_bias_kernel(h_ptr, b_ptr, n, hw, channels, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask)
    b = tl.load(b_ptr + (offs // hw) % channels, mask=mask)
    tl.store(h_ptr + offs, tl.maximum(h, 0.0) + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))

    def forward(self, x):
        h = self.conv(x).contiguous()
        n, hw = h.numel(), h.shape[2] * h.shape[3]
        relu_bias_kernel[(triton.cdiv(n, 256),)](h, self.bias, n, hw, h.shape[1], BLOCK=256)
        return h
