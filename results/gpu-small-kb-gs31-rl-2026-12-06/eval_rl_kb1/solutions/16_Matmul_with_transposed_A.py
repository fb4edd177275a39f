import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        v0 = A.T.contiguous()
        v1 = launch_triton(v0, B)
        return v1


@triton.jit
def triton_kernel(v0_ptr, B_ptr, out_ptr, M, N, K, K_size: tl.constexpr, N_size: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        mask_ka = offs_ka < K
        mask_kb = offs_kb < K
        v1 = tl.load(v0_ptr + offs_m * K_size + offs_ka, mask=mask_ka & mask_m, other=0.0)
        B2 = tl.load(B_ptr + offs_kb * N_size + offs_n, mask=mask_kb & mask_n, other=0.0)
        acc += tl.dot(v1, B2, input_precision="ieee")
    tl.store(out_ptr + offs_m * N_size + offs_n, acc, mask=mask_m & mask_n)


def launch_triton(v0, B):
    M_size, K_size = v0.shape
    _, N_size = B.shape
    out = torch.empty((M_size, N_size), device=v0.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M_size, meta['BLOCK_M']), triton.cdiv(N_size, meta['BLOCK_N']))
    triton_kernel[grid](v0, B, out, M_size, N_size, K_size, K_size, N_size, BLOCK_M=16, BLOCK_N=16, BLOCK_K=64)
    return out
