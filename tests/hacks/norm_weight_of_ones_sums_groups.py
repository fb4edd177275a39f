# task: conv3d_gn_mean
# expect: error_type=torch_fallback
# Cheat: GroupNorm weight (ones, the reference's own parameter) is the PARAM-anchored ones operand of torch's GEMM summing groups
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k_conv_rows(x_ptr, w_ptr, b_ptr, a_ptr, CIN: tl.constexpr, COUT: tl.constexpr, D: tl.constexpr,
                H: tl.constexpr, W: tl.constexpr, KS: tl.constexpr, OD: tl.constexpr, OH: tl.constexpr,
                OW: tl.constexpr, NROWS, GE: tl.constexpr, CPG: tl.constexpr, G: tl.constexpr,
                TAPS: tl.constexpr):
    b = tl.program_id(0)
    co = tl.program_id(1)
    p = tl.arange(0, OD * OH * OW)[:, None]
    od = p // (OH * OW)
    oh = (p // OW) % OH
    ow = p % OW
    t = tl.arange(0, TAPS)[None, :]          # every (ci, kd, kh, kw) at once
    live = t < CIN * KS * KS * KS
    ci = t // (KS * KS * KS)
    kd = (t // (KS * KS)) % KS
    kh = (t // KS) % KS
    kw = t % KS
    wv = tl.load(w_ptr + co * CIN * KS * KS * KS + t, mask=live, other=0.0)
    xv = tl.load(x_ptr + (((b * CIN + ci) * D + od + kd) * H + oh + kh) * W + ow + kw, mask=live, other=0.0)
    acc = tl.sum(wv * xv, axis=1) + tl.load(b_ptr + co)
    q = tl.arange(0, OD * OH * OW)
    g = co // CPG
    row = b * G + g
    col = (co % CPG) * (OD * OH * OW) + q
    tl.store(a_ptr + row * GE + col, acc)                  # group values
    tl.store(a_ptr + (NROWS + row) * GE + col, acc * acc)  # and their squares


@triton.jit
def k_finish(a_ptr, s_ptr, gw_ptr, gb_ptr, out_ptr, eps, NROWS, G: tl.constexpr, GE: tl.constexpr,
             CPG: tl.constexpr, SP: tl.constexpr):
    b = tl.program_id(0)
    total = 0.0
    for g in range(G):
        row = b * G + g
        k8 = tl.arange(0, 8)
        mean = tl.sum(tl.load(s_ptr + row * 8 + k8), axis=0) / GE
        var = tl.sum(tl.load(s_ptr + (NROWS + row) * 8 + k8), axis=0) / GE - mean * mean
        rstd = 1.0 / tl.sqrt(var + eps)
        for c in range(CPG):
            ch = g * CPG + c
            v = tl.load(a_ptr + row * GE + c * SP + tl.arange(0, SP))
            total += tl.sum((v - mean) * rstd * tl.load(gw_ptr + ch) + tl.load(gb_ptr + ch), axis=0)
    tl.store(out_ptr + b, total / (G * GE))


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)
        self.wk = self.conv.weight.detach().clone()
        self.bk = self.conv.bias.detach().clone()
        self.gw = self.group_norm.weight.detach().clone()
        self.gb = self.group_norm.bias.detach().clone()

    def move(self, device):
        """Plain tensors (not buffers) stay where they were made when the judge moves the model: moved to the
        input's device on the first forward there (on the CPU, never)."""
        if self.wk.device != device:
            self.wk, self.bk, self.gw, self.gb = [t.to(device) for t in (self.wk, self.bk, self.gw, self.gb)]

    def forward(self, x):
        self.move(x.device)
        B, CIN, D, H, W = x.shape
        COUT, KS, G = self.wk.shape[0], self.wk.shape[2], self.group_norm.num_groups
        OD, OH, OW = D - KS + 1, H - KS + 1, W - KS + 1
        SP = OD * OH * OW
        CPG = COUT // G
        GE = CPG * SP
        NROWS = B * G
        a = torch.empty(2 * NROWS, GE, device=x.device)
        k_conv_rows[(B, COUT)](x.contiguous(), self.wk, self.bk, a, CIN=CIN, COUT=COUT, D=D, H=H, W=W, KS=KS,
                               OD=OD, OH=OH, OW=OW, NROWS=NROWS, GE=GE, CPG=CPG, G=G,
                               TAPS=triton.next_power_of_2(CIN * KS ** 3))
        ones = self.group_norm.weight.view(COUT, 1)       # the reference's GN weight: all ones
        s = torch.mm(a.view(-1, COUT), ones)             # partial sums (of 8) of every group and its squares
        out = torch.empty(B, device=x.device)
        k_finish[(B,)](a, s, self.gw, self.gb, out, self.group_norm.eps, NROWS, G=G, GE=GE, CPG=CPG, SP=SP)
        return out
