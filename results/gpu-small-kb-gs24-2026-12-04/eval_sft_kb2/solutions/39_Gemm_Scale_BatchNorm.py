import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, eps=0.5, momentum=0.5, shift_shape=(5, eps=0.5):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.scale = nn.Parameter(torch.rand(scale_shape) + 0.5)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.gemm(x)
        v2 = launch_triton(v0, self.scale)
        return v2


@triton.jit
def triton_kernel(v0_ptr, scale_ptr, out_ptr, n_elements, batch_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    i2 = (offs // batch_size) % batch_size
    v4 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    s5 = tl.load(scale_ptr + i2, mask=mask, other=0.0)
    y6 = v4 / s5
    s7 = tl.load(scale_ptr + i2, mask=mask, other=0.0)
    y8 = y6 / s7
    tl.store(out_ptr + offs, y8, mask=mask)


def launch_triton(v0, scale, scale):
    batch_size, _ = v0.shape
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, scale, scale, out, out.numel(), batch_size, BLOCK=1024)
    return out
