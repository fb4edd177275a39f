import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape, rms_min=1.0, add_value=1.0, add_bias_shape=(1, 1)):
        super(ModelNew, self).__init__()
        self.matmul = nn.Linear(in_features, out_features, bias_shape, eps=rms_eps)
        self.bias_value = bias_value
        self.clamp_max = clamp_max

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.matmul(x)
        v2 = launch_triton(v0, self.bias_value, self.clamp_min, self.clamp_max)
        return v2


@triton.jit
def triton_kernel(v0_ptr, bias_ptr, out_ptr, n_elements, bias_value: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v3 = tl.load(v0_ptr + offs, mask=mask, other=0.0)
    y4 = tl.sigmoid(v3)
    a5 = tl.load(add_bias_ptr + offs, mask=mask, other=0.0)
    y6 = y4 + a5
    tl.store(out_ptr + offs, y6, mask=mask)


def launch_triton(v0, bias, clamp_min, max_value):
    out = torch.empty_like(v0)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK']),)
    triton_kernel[grid](v0, bias, out, out.numel(), clamp_min, clamp_max, BLOCK=64)
    return out
