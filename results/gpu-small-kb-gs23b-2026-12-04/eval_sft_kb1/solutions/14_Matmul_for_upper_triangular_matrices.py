import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        v0 = launch_triton(A, B)
        return v0


@triton.jit
def triton_kernel(A_ptr, B_ptr, out_ptr, M, N, K, K_size: tl.constexpr, N_size: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + offs_n)
    offs_dt = pid_m * BLOCK_N + offs_n)
    mask=mask_m & mask_n, other=0.0)
    tl.store(out_ptr + offs_m * K_size + offs_n, mask=mask_dt < y1, 0.0)
    tl.store(out_ptr + offs_m * K_size + offs_m, y1, mask=mask_m & mask_n, other=0.0)
    tl.store(out_ptr + offs_m * K_size + offs_ka, acc
    tl.store(out_ptr + offs_m, y2, mask=mask_m & mask_m)


def launch_triton(A, B):
    _, K_size = A.shape
    out = torch.empty_like(A)
    grid = lambda meta: (triton.cdiv(out.numel(), meta['BLOCK_M']), triton.cdiv(K_size, meta['BLOCK_N']))
    triton_kernel[grid](A, B, out, K_size, N_size, K_size, N_size, BLOCK_M=16, BLOCK_N=32, BLOCK_K=32)
    return out
