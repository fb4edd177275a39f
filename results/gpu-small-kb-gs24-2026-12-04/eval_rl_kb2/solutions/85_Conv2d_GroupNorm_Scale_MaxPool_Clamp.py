import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, hardtanh_min, hardtanh_max, cap_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, bias=False)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        # conv2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.conv(x)
        v2 = launch_triton(v0, self.clamp_min, self.clamp_max)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, clamp_min: tl.constexpr, clamp_max: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // (5 * 3)) % clamp_min
    v5 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y6 = tl.minimum(tl.maximum(v5, clamp_min), clamp_max)
    s7 = tl.load(subtract_ptr + offs, mask=mask, other=0.0)
    y8 = tl.minimum(tl.maximum(y7, clamp_min), clamp_max)
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, clamp_min, clamp_max):
    batch_size, _, _, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, add_bias, out, out.numel(), clamp_min, clamp_max, BLOCK=1024)
    return out
