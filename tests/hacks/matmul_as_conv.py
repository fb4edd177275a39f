# task: matmul
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: a GEMM in another family): the reference's one op is a matmul. Torch computes the whole
# product as a 1x1 convolution (a (M, K, 1, 1) batch against (N, K, 1, 1) filters): conv is a different family,
# so covers_reference (every reference family at its count) does not see the matmul covered, and the hybrid
# budget (GEMMs and convolutions together, the reference's count: 1) holds. padding=1 makes the convolution's
# output (M, N, 3, 3), a numel no output has, so the torch_answer check never samples it; a kernel copies the
# centre taps into the output (the faithfulness trial, launches suppressed, is wrong). Triton does no arithmetic.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def centre_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs * 9 + 4, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        m, k = a.shape
        n = b.shape[1]
        full = F.conv2d(a.reshape(m, k, 1, 1), b.t().contiguous().reshape(n, k, 1, 1), padding=1)
        out = torch.empty((m, n), device=a.device, dtype=a.dtype)
        centre_kernel[(triton.cdiv(m * n, 1024),)](full, out, m * n, BLOCK=1024)
        return out
