# task: matmul
# expect: error_type=mismatch|kernel_error
# (kernel_error: the Triton 3.6 interpreter cannot run these bit ops on fp32; either way the cheat fails.)
# Cheat: drop the inputs to bfloat16 precision inside the kernel (the fast tensor-core path); with K = 256
# the error leaves the fp32 tolerance. The mantissa is truncated with bit ops (bf16 = top 16 bits of fp32)
# because the CPU interpreter's bf16 tl.dot is not faithful.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        a = (a.to(tl.int32, bitcast=True) & -65536).to(tl.float32, bitcast=True)
        b = (b.to(tl.int32, bitcast=True) & -65536).to(tl.float32, bitcast=True)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=torch.float32)
        matmul_kernel[(M // 32, N // 32)](a, b, c, M, N, K, BM=32, BN=32, BK=64)
        return c
