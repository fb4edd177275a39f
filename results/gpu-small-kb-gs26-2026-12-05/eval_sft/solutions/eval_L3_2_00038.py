import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, reduce_dim):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels=out_channels, kernel_size=kernel_size, bias=False)

    def forward(self, x):
        # conv_transpose2d stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = self.deconv(x)
        v2 = launch_triton(v0)
        return v2


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, batch_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (batch_size * batch_size)
    o2 = (offs // batch_size) % batch_size
    o3 = offs % batch_size
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(4):
        ip4 = o3 * 4 + k0
        ok5 = ((ip4 >= 0) & (ip4 < batch_size))
        i6 = ip4 // batch_size
        i7 = ip4 % batch_size
        v8 = tl.load(v0_ptr + o1 * (batch_size * batch_size) + o2 * batch_size + ip4, mask=mask & ok5, other=0.0)
        acc += tl.where(ok5, v8, 0.0)
    avg9 = acc / 3.0
    tl.store(out_ptr + offs, avg9, mask=mask)


def launch_triton(v0):
    batch_size, _, _, _ = v0.shape
    out = torch.empty((batch_size, batch_size, batch_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * batch_size * batch_size, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * batch_size * batch_size, batch_size, BLOCK=1024)
    return out
