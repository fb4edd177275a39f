import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, hidden_size, num_outputs, num_outputs=5, hidden_dim=0, num_outputs=0, num_features=0):
        super(ModelNew, self).__init__()
        self.gn = nn.GroupNorm(num_groups=output_size)
        self.leaky_relu = nn.LeakyReLU(negative_slope=negative_slope)

    def forward(self, x):
        # linear stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.fc(x)
        v2 = launch_triton(v0, self.gn.weight, self.gn.bias)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // 18
    o2 = offs % 15
    zero = tl.zeros_like(offs)
    lo3 = (zero * 57) // 1
    hi4 = ((zero + 1) * 57 + 0) // 1
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(5):
        ip5 = lo3 + k0
        ok6 = (ip5 < hi4)
        v7 = tl.load(v0_ptr + o1 * (15 * 57) + o2 * 57 + ip5, mask=mask & ok6, other=0.0)
        acc += tl.where(mask & ok6, v7, 0.0)
    avg8 = acc / ((hi4 - lo3))
    y9 = tl.where(avg8 >= 0.0, avg8, avg8 * 0.01)
    tl.store(out_ptr + offs, y9, mask=mask)


def launch_triton(v0):
    batch_size, _, _ = v0.shape
    out = torch.empty((batch_size, 15, 1), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * 15, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * 15, BLOCK=64)
    return out
