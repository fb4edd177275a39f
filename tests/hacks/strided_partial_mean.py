# task: mse_mean
# expect: error_type=mismatch
# Cheat (tolerance: a sampled reduction): the mean of squared differences over every 8th row only, so 1/8 of the
# memory traffic. Unlike partial_mean.py (a leading block of rows, caught by the contrast draw that scales a
# contiguous block), a strided sample holds the scaled block's share of rows exactly (to one row) whatever the
# split, so the scale trials do not move it off; the i.i.d. sampling error (~0.4% here) is far inside
# atol + rtol |ref| (7% of a mean of 1/6) on plain draws and ~1% on scaled ones.
import torch
import torch.nn as nn
import triton
import triton.language as tl

STRIDE = 8


@triton.jit
def sampled_sq_kernel(p_ptr, t_ptr, out_ptr, cols, stride_rows, inv_count, BLOCK: tl.constexpr):
    row = tl.program_id(0) * stride_rows
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    p = tl.load(p_ptr + row * cols + offs, mask=mask, other=0.0)
    t = tl.load(t_ptr + row * cols + offs, mask=mask, other=0.0)
    d = p - t
    tl.atomic_add(out_ptr, tl.sum(d * d, axis=0) * inv_count)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        p, t = predictions.contiguous(), targets.contiguous()
        rows, cols = p.shape
        picked = rows // STRIDE
        out = torch.zeros((), device=p.device, dtype=p.dtype)
        sampled_sq_kernel[(picked,)](p, t, out, cols, STRIDE, 1.0 / (picked * cols),
                                     BLOCK=triton.next_power_of_2(cols))
        return out
