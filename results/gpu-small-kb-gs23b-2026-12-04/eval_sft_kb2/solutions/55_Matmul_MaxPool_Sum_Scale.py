import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, kernel_size, scale_factor, scale_factor):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scale_factor = scale_factor
        self.scale_factor = scale_factor

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.matmul(x)
        v2 = launch_triton(v0, self.scale_factor)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, in_features: tl.constexpr, scale_factor: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i1 = offs // (in_features * 60)
    i2 = (offs // 21) % in_features
    i3 = offs % (in_features * 57_d0)
    i4 = (offs // floor_d0 * scale_d0)) % in_features
    i5 = offs % (scale_d0 * scale_d0)
    i6 = i3 // 22
    i7 = i3 % scale_factor
    v8 = tl.load(v0_ptr + i1 * (in_features * 55) + i2 * 60 + i5 * 13 + i6, mask=mask, other=0.0)
    y9 = v7 + scale_factor
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, scale_factor):
    batch_size, in_features = v0.shape
    scale_d0, _ = scale.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, out, out.numel(), in_features, scale_factor, BLOCK=4096)
    return out
