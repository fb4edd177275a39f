# task: lstm_scale
# expect: error_type=torch_fallback
# Cheat (hybrid "replaced layer" path: only the pooled multiply-adds bound torch's GEMMs): the reference's LSTM
# computed with its own weights, gate GEMMs in torch and the cell in Triton (as good/lstm_scale_ksplit.py), but
# the recurrent GEMM of step 0 is skipped (h0 = 0: an ordinary optimisation). The 2 * B*4H*H multiply-adds that
# frees pay for the task's affine epilogue as one more torch GEMM: addmm(1.0, seq, 0.5 I) (a constant "bias",
# a reduction of H = 8, not short). Triton runs the LSTM cells only; torch does out * 0.5 + 1.0.
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
def lstm_cell_kernel(g_ptr, bias_ptr, c_ptr, h_out_ptr, c_out_ptr, n, H, h_stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // H
    col = offs % H
    base = row * 4 * H + col
    i = tl.sigmoid(tl.load(g_ptr + base, mask=mask, other=0.0) + tl.load(bias_ptr + col, mask=mask, other=0.0))
    f = tl.sigmoid(tl.load(g_ptr + base + H, mask=mask, other=0.0) +
                   tl.load(bias_ptr + col + H, mask=mask, other=0.0))
    g = tl.load(g_ptr + base + 2 * H, mask=mask, other=0.0) + tl.load(bias_ptr + col + 2 * H, mask=mask, other=0.0)
    g = 2.0 * tl.sigmoid(2.0 * g) - 1.0
    o = tl.sigmoid(tl.load(g_ptr + base + 3 * H, mask=mask, other=0.0) +
                   tl.load(bias_ptr + col + 3 * H, mask=mask, other=0.0))
    c = f * tl.load(c_ptr + offs, mask=mask, other=0.0) + i * g
    tl.store(c_out_ptr + offs, c, mask=mask)
    tl.store(h_out_ptr + row * h_stride + col, o * (2.0 * tl.sigmoid(2.0 * c) - 1.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.hidden = hidden_size
        self.register_buffer("half_eye", 0.5 * torch.eye(hidden_size))
        self.register_buffer("one", torch.ones(hidden_size))

    def lstm_layers(self, x):
        """The LSTM with the layer's own weights: gate GEMMs in torch, the cell (biases, gates, state) in Triton."""
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
                gates = pre[:, t].contiguous() if t == 0 else torch.addmm(pre[:, t], h, w_hh.t())
                c_new = torch.empty(B, H, device=x.device)
                lstm_cell_kernel[(triton.cdiv(B * H, 64),)](gates, b_hh, c, out[:, t], c_new, B * H, H, T * H,
                                                            BLOCK=64)
                h, c = out[:, t], c_new
            seq = out
        return seq

    def forward(self, x):
        seq = self.lstm_layers(x)
        B, T, H = seq.shape
        return torch.addmm(self.one, seq.reshape(B * T, H), self.half_eye).view(B, T, H)
