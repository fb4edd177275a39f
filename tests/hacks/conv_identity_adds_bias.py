# task: conv_relu_bias
# expect: error_type=torch_fallback
# Cheat (torch's one allowed convolution is not the reference's): Triton computes the 3x3 convolution and the
# ReLU; torch's single convolution is a 1x1 one whose weight is an identity the answer made and whose bias is
# the task's learned bias, so torch adds it (a per-channel bias passes as the convolution's own).
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def conv3x3_relu(x_ptr, w_ptr, b_ptr, out_ptr, CIN: tl.constexpr, COUT: tl.constexpr, H: tl.constexpr,
                 W: tl.constexpr, OH: tl.constexpr, OW: tl.constexpr):
    pid = tl.program_id(0)
    n = pid // COUT
    co = pid % COUT
    oh = tl.arange(0, 8)[:, None]
    ow = tl.arange(0, 8)[None, :]
    keep = (oh < OH) & (ow < OW)
    acc = tl.zeros((8, 8), dtype=tl.float32)
    for ci in range(CIN):
        for kh in range(3):
            for kw in range(3):
                wv = tl.load(w_ptr + ((co * CIN + ci) * 3 + kh) * 3 + kw)
                acc += wv * tl.load(x_ptr + ((n * CIN + ci) * H + oh + kh) * W + ow + kw, mask=keep, other=0.0)
    acc = tl.maximum(acc + tl.load(b_ptr + co), 0.0)
    tl.store(out_ptr + (pid * OH + oh) * OW + ow, acc, mask=keep)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.register_buffer("pass_through", torch.eye(out_channels).reshape(out_channels, out_channels, 1, 1))

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        co = self.conv.out_channels
        oh, ow = H - 2, W - 2
        r = torch.empty(N, co, oh, ow, device=x.device, dtype=x.dtype)
        conv3x3_relu[(N * co,)](x, self.conv.weight, self.conv.bias, r, CIN=C, COUT=co, H=H, W=W, OH=oh, OW=ow)
        return F.conv2d(r, self.pass_through, self.bias.reshape(-1))
