# task: conv1x1_relu
# Honest hybrid: the 1x1 convolution as one batched GEMM per image, W @ x[n] + b (the bias broadcast along the
# columns, as the conv adds it per output channel), the ReLU in Triton.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=1, bias=True)

    def forward(self, x):
        n, c, h, w = x.shape
        wt = self.conv.weight.view(self.conv.out_channels, c)
        y = torch.baddbmm(self.conv.bias.view(1, -1, 1), wt.expand(n, -1, -1), x.reshape(n, c, h * w))
        out = torch.empty_like(y)
        relu_kernel[(triton.cdiv(y.numel(), 256),)](y, out, y.numel(), BLOCK=256)
        return out.view(n, -1, h, w)
