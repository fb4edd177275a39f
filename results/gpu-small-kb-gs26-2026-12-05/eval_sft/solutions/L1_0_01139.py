import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        v0 = launch_triton(x)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, channels: tl.constexpr, depth: tl.constexpr, height: tl.constexpr, width: tl.constexpr, out_depth: tl.constexpr, out_height: tl.constexpr, out_width: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (channels * out_depth * out_height * out_width)
    o2 = (offs // (out_depth * out_height * out_width)) % channels
    o3 = (offs // (out_height * out_width)) % out_depth
    o4 = (offs // out_width) % out_height
    o5 = offs % out_width
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(2):
        for k1 in tl.static_range(2):
            for k2 in tl.static_range(2):
                ip6 = o3 * 2 + k0
                ok7 = ((ip6 >= 0) & (ip6 < depth))
                ip8 = o4 * 2 + k1
                ok9 = ((ip8 >= 0) & (ip8 < height))
                ip10 = o5 * 2 + k2
                ok11 = ((ip10 >= 0) & (ip10 < width))
                x12 = tl.load(x_ptr + o1 * (channels * depth * height * width) + o2 * (depth * height * width) + ip6 * (height * width) + ip8 * width + ip10, mask=mask & ok7 & ok9 & ok11, other=0.0)
                acc += tl.where(ok7 & ok9 & ok11, x12, 0.0)
    avg13 = acc / 8.0
    tl.store(out_ptr + offs, avg13, mask=mask)


def launch_triton(x):
    batch_size, channels, depth, height, width = x.shape
    out_depth = depth - 1
    out_height = height - 1
    out_width = width - 1
    out = torch.empty((batch_size, channels, out_depth, out_height, out_width), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * channels * out_depth * out_height * out_width, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * channels * out_depth * out_height * out_width, channels, depth, height, width, out_depth, out_height, out_width, BLOCK=1024)
    return out
