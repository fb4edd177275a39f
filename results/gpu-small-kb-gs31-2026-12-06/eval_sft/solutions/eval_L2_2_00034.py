import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self, ap_kernel_size, stride, pool_padding):
        super(ModelNew, self).__init__()
        self.avg_pool = nn.AvgPool2d(kernel_size=ap_kernel_size, stride=stride, padding)

    def forward(self, A, B):
        # matmul stays a torch op (cuBLAS/cuDNN); the Triton kernels compute what follows it
        v0 = torch.matmul(A, B)
        v1 = launch_triton(v0, self.avg_pool.kernel_size, self.avg_pool.stride, self.avg_pool.padding)
        return v1


@triton.jit
def triton_kernel(v0_ptr, out_ptr, n_elements, dim1: tl.constexpr, M_size: tl.constexpr, N_size: tl.constexpr, kernel_size: tl.constexpr, stride: tl.constexpr, padding: tl.constexpr, out_M_size: tl.constexpr, out_N_size: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    o1 = offs // (dim1 * out_M_size * out_N_size)
    o2 = (offs // (out_M_size * out_N_size)) % dim1
    o3 = (offs // out_N_size) % out_M_size
    o4 = offs % out_N_size
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k0 in tl.static_range(kernel_size):
        for k1 in tl.static_range(kernel_size):
            ip5 = o3 * stride - padding + k0
            ok6 = ((ip5 >= 0) & (ip5 < M_size))
            ip7 = o4 * stride - padding + k1
            ok8 = ((ip7 >= 0) & (ip7 < N_size))
            v9 = tl.load(v0_ptr + o1 * (dim1 * M_size * N_size) + o2 * (M_size * N_size) + ip5 * N_size + ip7, mask=mask & ok6 & ok8, other=0.0)
            acc += tl.where(ok6 & ok8, v9, 0.0)
    avg10 = acc / (kernel_size * kernel_size)
    tl.store(out_ptr + offs, avg10, mask=mask)


def launch_triton(v0, avg_pool_kernel_size, avg_pool_stride, avg_pool_padding):
    batch_size, dim1, M_size, N_size = v0.shape
    kernel_size = avg_pool_kernel_size
    stride = avg_pool_stride
    padding = avg_pool_padding
    out_M_size = (M_size + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out_N_size = (N_size + 2 * padding - (kernel_size - 1) - 1) // stride + 1
    out = torch.empty((batch_size, dim1, out_M_size, out_N_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(batch_size * dim1 * out_M_size * out_N_size, meta['BLOCK']),)
    triton_kernel[grid](v0, out, batch_size * dim1 * out_M_size * out_N_size, dim1, M_size, N_size, kernel_size, stride, padding, out_M_size, out_N_size, BLOCK=1024)
    return out
