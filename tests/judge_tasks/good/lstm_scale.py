# task: lstm_scale
# A library layer computed by the answer itself: the reference's nn.LSTM with the layer's own weights, its gate
# GEMMs in torch and its cell (the sum of the two GEMMs, biases, gates, state) in Triton, and the affine
# epilogue in Triton too. The layer is not called, so its GEMMs are the answer's to make; their multiply-adds
# are the layer's own.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0.0) * 0.5 + 1.0, mask=mask)


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
        out = torch.empty_like(seq)
        affine_kernel[(triton.cdiv(seq.numel(), 256),)](seq, out, seq.numel(), BLOCK=256)
        return out
