import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int=0, padding: int=0, dilation: int=1, mp_kernel_size: int=4):
        super(ModelNew, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x):
        v0 = launch_triton(x, self.maxpool.kernel_size, self.maxpool.stride, self.maxpool.padding, self.maxpool.dilation)
        return v0


@triton.jit
def triton_kernel(x_ptr, out_ptr, n_elements, features: tl.constexpr, seq_len: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, dilation: tl.constexpr, out_seq_len: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (features * out_seq_len)
    o2 = (offs // out_seq_len) % features
    o3 = offs % out_seq_len
    acc = tl.full([BLOCK], float('-inf'), tl.float32)
    for k0 in tl.static_range(kernel_size):
        ip4 = o3 * stride - padding + k0 * dilation
        ok5 = ((ip4 >= 0) & (ip4 < seq_len))
        x6 = tl.load(x_ptr + o1 * (features * seq_len) + o2 * seq_len + ip4, mask=mask & ok5, other=0.0)
        acc = tl.maximum(acc, tl.where(ok5, x6, float('-inf')))
    tl.store(out_ptr + offs, acc, mask=mask)


def launch_triton(x, maxpool_kernel_size, maxpool_stride, maxpool_padding, maxpool_dilation):
    batch_size, features, seq_len = x.shape
    kernel_size = maxpool_kernel_size
    stride = maxpool_stride
    padding = maxpool_padding
    dilation = maxpool_dilation
    out_seq_len = (seq_len + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, features, out_seq_len), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * features * out_seq_len, meta['BLOCK']),)
    triton_kernel[grid](x, out, batch_size * features * out_seq_len, features, seq_len, kernel_size, stride, padding, dilation, out_seq_len, BLOCK=128)
    return out
