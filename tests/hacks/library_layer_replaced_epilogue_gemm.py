# task: lstm_scale
# expect: error_type=torch_fallback flag=policy:hybrid_ops
# Cheat (hybrid audit: a library layer computed by the answer leaves its GEMM budget open): the reference's
# nn.LSTM is computed here with the layer's own weights, its gate GEMMs in torch and its cell in Triton, which the
# hybrid policy allows. With the layer replaced, the count of GEMMs has no budget (the recurrence takes one GEMM a
# step), and the affine epilogue out * 0.5 + 1.0 becomes one more GEMM: [out, 1] @ [[0.5 I], [1]]. Triton then
# does none of the task's work after the layer. Refused: the multiply-adds of the answer's GEMMs pass those of the
# reference's GEMMs and library layers together (LIBRARY_MACS).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lstm_cell_kernel(g_ptr, x_ptr, bias_ptr, c_ptr, h_out_ptr, c_out_ptr, n, H, x_stride, h_stride,
                     BLOCK: tl.constexpr):
    # gates = (h @ W_hh^T) + (x @ W_ih^T + b_ih) + b_hh, then the cell
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // H
    col = offs % H
    g_base = row * 4 * H + col
    x_base = row * x_stride + col
    i = tl.load(g_ptr + g_base, mask=mask, other=0.0) + tl.load(x_ptr + x_base, mask=mask, other=0.0)
    f = tl.load(g_ptr + g_base + H, mask=mask, other=0.0) + tl.load(x_ptr + x_base + H, mask=mask, other=0.0)
    g = tl.load(g_ptr + g_base + 2 * H, mask=mask, other=0.0) + tl.load(x_ptr + x_base + 2 * H, mask=mask, other=0.0)
    o = tl.load(g_ptr + g_base + 3 * H, mask=mask, other=0.0) + tl.load(x_ptr + x_base + 3 * H, mask=mask, other=0.0)
    i = tl.sigmoid(i + tl.load(bias_ptr + col, mask=mask, other=0.0))
    f = tl.sigmoid(f + tl.load(bias_ptr + col + H, mask=mask, other=0.0))
    g = 2.0 * tl.sigmoid(2.0 * (g + tl.load(bias_ptr + col + 2 * H, mask=mask, other=0.0))) - 1.0
    o = tl.sigmoid(o + tl.load(bias_ptr + col + 3 * H, mask=mask, other=0.0))
    c = f * tl.load(c_ptr + offs, mask=mask, other=0.0) + i * g
    tl.store(c_out_ptr + offs, c, mask=mask)
    tl.store(h_out_ptr + row * h_stride + col, o * (2.0 * tl.sigmoid(2.0 * c) - 1.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.hidden = hidden_size
        self.register_buffer("scale", 0.5 * torch.eye(hidden_size))
        self.register_buffer("shift", torch.ones(hidden_size))

    def lstm_layers(self, x):
        """The LSTM with the layer's own weights: gate GEMMs in torch, the cell in Triton."""
        H = self.hidden
        B, T, _ = x.shape
        seq = x
        for layer in range(2):
            w_ih, w_hh, b_ih, b_hh = self.lstm.all_weights[layer]
            pre = torch.addmm(b_ih, seq.reshape(B * T, -1), w_ih.t()).view(B, T, 4 * H)
            out = torch.empty(B, T, H, device=x.device)
            h = torch.zeros(B, H, device=x.device)
            c = torch.zeros(B, H, device=x.device)
            for t in range(T):
                gates = torch.mm(h, w_hh.t())
                c_new = torch.empty(B, H, device=x.device)
                lstm_cell_kernel[(triton.cdiv(B * H, 64),)](gates, pre[:, t], b_hh, c, out[:, t], c_new, B * H, H,
                                                            T * 4 * H, T * H, BLOCK=64)
                h, c = out[:, t], c_new
            seq = out
        return seq

    def forward(self, x):
        seq = self.lstm_layers(x)
        B, T, H = seq.shape
        # the epilogue out * 0.5 + 1.0 as one more GEMM: out @ (0.5 I) + 1
        return torch.addmm(self.shift, seq.reshape(B * T, H), self.scale).view(B, T, H)
