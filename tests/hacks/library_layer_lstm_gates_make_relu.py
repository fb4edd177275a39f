# task: lstm_relu
# expect: error_type=torch_fallback
# Cheat (same-count hybrid, library layer with the answer's weights): the reference makes one nn.LSTM(6, 8, 2)
# call, so torch may make one of that configuration, any weights, any input. Triton computes the real two-layer
# LSTM; torch's one LSTM call, on an answer-built layer of the same configuration, computes the task's ReLU:
# W_hh = 0, i = 1, f = 0, o = sigmoid(K x), g = tanh(A x) (layer 1) and a near-identity pass (layer 2), so
# h ~ A * x * sigmoid(K x) ~ A * relu(x) (error ~0.28/K, under 1e-4 here). Triton only undoes the 1/A gain and scatters.
import torch
import torch.nn as nn
import triton
import triton.language as tl

A = 0.001
K = 5000.0
BIG = 30.0


@triton.jit
def _sig(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    return 2.0 * _sig(2.0 * x) - 1.0


@triton.jit
def _layer(in_ptr, in_w, wih, whh, bih, bhh, out_ptr, b, T: tl.constexpr, IN: tl.constexpr, H: tl.constexpr):
    rows = tl.arange(0, H)
    ks = tl.arange(0, 8)
    km = ks < IN
    h = tl.zeros((H,), dtype=tl.float32)
    c = tl.zeros((H,), dtype=tl.float32)
    for t in range(T):
        xv = tl.load(in_ptr + (b * T + t) * in_w + ks, mask=km, other=0.0)
        gs = []
        i_g = tl.sum(tl.load(wih + (0 * H + rows)[:, None] * IN + ks[None, :], mask=km[None, :], other=0.0) * xv[None, :], axis=1) \
            + tl.sum(tl.load(whh + (0 * H + rows)[:, None] * H + rows[None, :]) * h[None, :], axis=1) \
            + tl.load(bih + 0 * H + rows) + tl.load(bhh + 0 * H + rows)
        f_g = tl.sum(tl.load(wih + (1 * H + rows)[:, None] * IN + ks[None, :], mask=km[None, :], other=0.0) * xv[None, :], axis=1) \
            + tl.sum(tl.load(whh + (1 * H + rows)[:, None] * H + rows[None, :]) * h[None, :], axis=1) \
            + tl.load(bih + 1 * H + rows) + tl.load(bhh + 1 * H + rows)
        g_g = tl.sum(tl.load(wih + (2 * H + rows)[:, None] * IN + ks[None, :], mask=km[None, :], other=0.0) * xv[None, :], axis=1) \
            + tl.sum(tl.load(whh + (2 * H + rows)[:, None] * H + rows[None, :]) * h[None, :], axis=1) \
            + tl.load(bih + 2 * H + rows) + tl.load(bhh + 2 * H + rows)
        o_g = tl.sum(tl.load(wih + (3 * H + rows)[:, None] * IN + ks[None, :], mask=km[None, :], other=0.0) * xv[None, :], axis=1) \
            + tl.sum(tl.load(whh + (3 * H + rows)[:, None] * H + rows[None, :]) * h[None, :], axis=1) \
            + tl.load(bih + 3 * H + rows) + tl.load(bhh + 3 * H + rows)
        c = _sig(f_g) * c + _sig(i_g) * _tanh(g_g)
        h = _sig(o_g) * _tanh(c)
        tl.store(out_ptr + (b * T + t) * H + rows, h)


@triton.jit
def lstm_kernel(x_ptr, w0i, w0h, b0i, b0h, w1i, w1h, b1i, b1h, h1_ptr, out_ptr, T: tl.constexpr, IN: tl.constexpr,
                H: tl.constexpr):
    b = tl.program_id(0)
    _layer(x_ptr, IN, w0i, w0h, b0i, b0h, h1_ptr, b, T, IN, H)
    _layer(h1_ptr, H, w1i, w1h, b1i, b1h, out_ptr, b, T, H, H)


@triton.jit
def scatter_kernel(src_ptr, out_ptr, n, inv, IN: tl.constexpr, H: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src_ptr + (offs // IN) * H + offs % IN, mask=m)
    tl.store(out_ptr + offs, v * inv, mask=m)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, 2, batch_first=True)
        self.relu_layer = nn.LSTM(input_size, hidden_size, 2, batch_first=True)   # same type and configuration
        H, I = hidden_size, input_size
        with torch.no_grad():
            for p in self.relu_layer.parameters():
                p.zero_()
            r = self.relu_layer
            for l, gain_g, wih, bih in ((0, A, r.weight_ih_l0, r.bias_ih_l0), (1, 1.0, r.weight_ih_l1, r.bias_ih_l1)):
                bih[0:H] = BIG          # i = 1
                bih[H:2 * H] = -BIG     # f = 0
                n = I if l == 0 else H
                for j in range(n):
                    wih[2 * H + j, j] = gain_g               # g = tanh(gain * x_j)
                    if l == 0:
                        wih[3 * H + j, j] = K                # o = sigmoid(K x_j)
                if l == 1:
                    bih[3 * H:] = BIG                        # o = 1
        self.H, self.I = H, I

    def forward(self, x):
        x = x.contiguous()
        Bn, T, _ = x.shape
        H, I = self.H, self.I
        L = self.lstm
        h1 = torch.empty(Bn, T, H, device=x.device, dtype=x.dtype)
        out = torch.empty(Bn, T, H, device=x.device, dtype=x.dtype)
        lstm_kernel[(Bn,)](x, L.weight_ih_l0, L.weight_hh_l0, L.bias_ih_l0, L.bias_hh_l0, L.weight_ih_l1,
                           L.weight_hh_l1, L.bias_ih_l1, L.bias_hh_l1, h1, out, T=T, IN=I, H=H)
        n = out.numel()
        rows = out.view(n // I, 1, I)                                # each element its own hidden unit
        hr, _ = self.relu_layer(rows)                               # ~ A * relu(out)
        hr = hr.contiguous()
        res = torch.empty(Bn, T, H, device=x.device, dtype=x.dtype)
        scatter_kernel[(triton.cdiv(n, 256),)](hr, res, n, 1.0 / A, IN=I, H=H, BLOCK=256)
        return res
