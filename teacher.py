"""The teacher: a deterministic compiler from a program DAG to a correct, readable, fused Triton solution.

DRTriton (arXiv 2603.21465, Sec. 3.2) warms the policy up on 2,026 PyTorch-to-Triton pairs written by large
LLMs and filtered by the verifier. We compile instead: every synthetic program is a DAG of known
operators (synth.OPS), so we can write the solution directly, verify it with the judge and keep it as an
SFT pair. The same compiler is an oracle policy for search and evaluation.

    python synth.py --num-programs 300 --levels 1,2,5 --seed 0 --out /tmp/tasks.jsonl
    python teacher.py --tasks /tmp/tasks.jsonl --out /tmp/pairs.jsonl --workers 2
    python teacher.py --tasks /tmp/tasks.jsonl --out /tmp/pairs.jsonl --workers 2 --sizes symbolic --style fixed

How a program becomes kernels (what differs from a hand-written solution is noted):
  * Ops are classed as *pointwise* (unary, scalar, binary, losses with reduction='none', triu/tril),
    *remaps* (flip, narrow, select, cat, flatten: index transforms, no arithmetic) and *anchors*
    (reductions, scans, softmax-likes, norms, matmul/linear/bmm/einsum, convs, transposed convs, pools,
    attention). Losses with reduction 'mean'/'sum' are lowered to a pointwise loss and a full reduction;
    triplet margin loss to row reductions; cross entropy to a row kernel. A matmul of any ranks (batch dims
    broadcast) and any two-operand einsum are one batched GEMM over flattened batch, M, N and K dim groups.
  * Views (reshape, permute, `x.shape[0]`, `x[:, 0]`) stay torch calls in forward, made contiguous. Dropout
    with p > 0 in training mode (KernelBench never calls .eval()) is random, and no kernel can draw torch's
    mask: forward keeps the torch dropout call where the reference makes it. The judge seeds the RNG before
    each trial's inputs and no kernel draws from it, so both draw the same mask; such a solution is hybrid
    (the judge's default policy; `keeps_torch_ops`), the rest use Triton only.
  * Pointwise and remap nodes are never materialised unless they are the program's output: every kernel
    loads its inputs through `value(tensor, index)`, which inlines them as a prologue (so `relu -> sum`
    is one row kernel and `conv(x * s)` scales inside the implicit GEMM's loads).
  * Each anchor grows an epilogue region: following pointwise nodes of the same shape whose only uses are
    inside the region (bias adds, activations, residual adds, `x * sigmoid(x)`). The anchor's kernel
    computes the region's last node in registers and writes only that (so `linear -> add -> relu` is one
    `tl.dot` kernel). The kernel is launched where the region ends, so side operands are ready.
  * Every input is contiguous (imported views get `.contiguous()`, a copy the strict policy allows), so
    strides are products of sizes. Sizes are written one of two ways (`--sizes`); either way the launch
    bounds (`n_elements`, `n_rows`, `M, N, K`) are runtime kernel arguments and the kernel's structure
    (looped or single-tile rows, which dims of size 1 drop out) is chosen from the actual sizes.
    - literal (default): sizes are integers (programs have fixed shapes, as KernelBench tasks do):
      `pid_b * 156 + offs_m * 12`, `torch.empty((3, 13, 37), ...)`.
    - symbolic: sizes are names, so a model copies names instead of multiplying numbers. Each wrapper binds
      the names it needs from its tensors' shapes (`batch_size, channels, length = in0.shape`), the kernel
      takes them as `tl.constexpr` parameters (the same machine code as literals) and writes strides,
      bounds and divisors as expressions: `pid_b * (channels * length)`, `offs // out_width`,
      `ss / features`, `(length - 1 - i)`. Input dims are named as the task's get_inputs() names them
      (module constants), nn.Linear/Conv output sizes after out_features/out_channels, anything else
      `<tensor>_d<k>`; one value may carry several names (any is correct). Conv and pool output sizes are
      derived names computed in the wrapper (`out_height = (height - 2) // 2 + 1`). A conv module's stride,
      padding, dilation, output_padding, groups (> 1, or whenever its constructor names groups: the grouped form
      at any value) and kernel sizes, and a pool module's kernel size, stride, padding and dilation, are names
      too, bound from the module that forward passes in (`stride_h, stride_w = conv_stride` from
      `self.conv.stride`; kernel sizes from the weight's shape), and output sizes are their formula (`out_height =
      (height + 2 * padding_h - dilation_h * (kernel_h - 1) - 1) // stride_h + 1`), so the answer reads the same
      for any values (Prog.conv_geometry). A conv whose constructor names bias gets `self.conv.bias` whether it
      is a tensor or None, added under a HAS_BIAS constexpr (k_conv). A reduction over the dim the module holds
      (`torch.sum(x, dim=self.dim)`) takes it from forward and works out its layout at run time (k_reduce_dim),
      and a pointwise op's scalar that is a number attribute of the module (`x * self.scaling_factor`) is that
      attribute's name, a constexpr forward passes in (Prog.name_scalars).
      What stays literal: sizes of 1, other op attributes (other reduction dims, eps, functional convs' and
      pools' attributes, adaptive pools' output sizes, narrow and select positions), block sizes and warps
      (except a block that must cover a whole dim, as attention's head dim:
      `BLOCK_D=triton.next_power_of_2(head_dim)`; row kernels always loop over column blocks of at most
      SYMBOLIC_ROW_BLOCK, so any row length compiles; a flat elementwise or pooling kernel takes
      SYMBOLIC_BLOCK_1D whatever the validation size, a block for the sizes the launcher will meet), and the
      rare size that is no tensor's dim nor derivable (an unflattening view's split); a name no input of the
      wrapper carries is bound to its value (`height = 9`); a mean divides by names (`acc / batch_size`).
      Forward's view calls keep their arguments.
  * The answer is ModelNew first (Model's constructor copied verbatim, forward calling the launchers), then the
    kernels and their launchers: the copy is written right after the prompt shows the constructor.
  * fp32 `tl.dot` uses input_precision="ieee", as eager PyTorch does (no tf32), so 1e-2 tolerances hold at
    paper sizes (`--dot-precision tf32x3`: fp32-level error through the tensor cores; see DOT_PRECISIONS).
    `--dot-precision bf16x3` (plan triton-bf16x3) writes each GEMM operand once as bf16 hi + lo parts and sums
    three bf16 tensor-core dots (k_matmul_bf16x3): fp32-level error at 1.1-3.6x cuBLAS's fp32 GEMM on the H200.
  * GPU target, literal sizes (the CPU target, which writes the SFT pairs, keeps the forms above): a
    convolution whose groups hold a multiple of 16 input channels orders its K (kernel offset, channel), one offset
    per block of K, and reads a weight laid out [C_out, *kernel, Cg] by the wrapper; output rows of 64 or more are
    tiled along the row (gemm_tile's row_len); a depthwise convolution is a direct kernel (k_conv_depthwise).
  * heavy="torch" (`compile_program`) keeps GEMMs and convolutions (HEAVY_OPS) as the task's own torch
    call (its module: the same weights, cuBLAS/cuDNN) and compiles the rest as usual, so what follows a heavy op
    is one fused Triton epilogue kernel or the prologue of the next anchor. An imported library layer (LSTM, GRU,
    multi-head attention: synth's kind "library", no kernel template) stays the task's own module call there
    too; the plain plan raises TeacherError on it. `plans` builds the candidates a
    caller measures: triton, triton-tf32x3, triton-tf32, hybrid and hybrid-cl (eval.py/search.py
    --teacher-plans). heavy="torch-cl" (hybrid-cl) also runs 2-D/3-D convolutions channels-last; an
    elementwise epilogue that reads one is `k_elementwise_cl` (tiles read channels-last, written contiguous,
    or channels-last where they write the task's output), any other kernel reads it by its strides.
  * Block sizes come from a seeded choice among valid ones. The CPU target uses larger blocks because the
    interpreter pays per program instance, not per element. The GPU target (`target="cuda"`) shrinks row
    blocks, flat blocks (elementwise, pooling) and GEMM tiles until there are two waves of programs on 132
    SMs, and splits what would run on a few programs: a sum of everything over many elements
    (`k_sum_split`: block sums `tl.atomic_add`ed into a zeroed output), a batch norm over many elements
    per channel and a layer norm of few long rows (`k_norm_split`: block statistics, their merge per row,
    then normalisation), a GEMM of few output tiles over a long K (split K, atomic adds), and a reduction over
    middle dims (adjacent outputs per program on a 2-D grid). It keeps rows of up to ROW_TILE_MAX elements in
    one tile, runs attention with a head dim over 64 over slices of it (over 256: GEMM, softmax, GEMM), and
    reduces large pooling windows as tiles. `--launches` checks the launch geometry (on meta
    tensors, so at KernelBench's real sizes too; grids beyond CUDA's limits are marked) and
    `--launches --resources` the registers and spills on sm_90, both on a CPU.
  * A kernel that touches a tensor of 2^31 elements or more (KernelBench L1 45 pools a 4.3G-element input)
    computes its offsets in int64 (program ids and aranges cast), the others in int32.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import json
import keyword
import math
import operator
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass

import synth

# fp32 tl.dot precision. "ieee" (default) computes like eager PyTorch (no tf32) on CUDA cores; "tf32x3" splits
# each operand into two tf32 parts and uses the tensor cores three times, fp32-level error at several times
# the ieee speed on Hopper by design -- not yet measured here (the lab record: the ieee GEMMs lose to cuBLAS).
# Plain "tf32" misses the 1e-2 tolerance at large K against an fp32 GEMM (tests/judge_tasks/good/matmul.py on
# the H200), but it is what eager PyTorch itself computes convolutions in (torch.backends.cudnn.allow_tf32 is
# True by default, unlike matmul's): the plan "triton-tf32" uses it only where every dot is a convolution's.
# "bf16x3" (GEMMs only, k_matmul_bf16x3): each fp32 operand is written once as two bf16 tensors, hi and
# lo (x = hi + lo to about 2^-16), by a split kernel, and the GEMM sums hi*lo + lo*hi + hi*hi on the bf16 tensor
# cores, twice tf32's rate. The dropped lo*lo term is about 2^-16 of each product: far inside the judge's 1e-2, and
# inside KernelBench's 1e-4 on all but 2 of level 1's 16 bf16x3 tasks. Its conv and attention
# dots are tf32x3.
DOT_PRECISIONS = ("ieee", "tf32x3", "tf32", "bf16x3")
# Where a heavy op (GEMM, convolution, transposed convolution) runs: "triton" compiles it like any
# anchor; "torch" keeps it a torch call (cuBLAS/cuDNN) and compiles the rest, so what follows it becomes one fused
# Triton epilogue kernel (or the prologue of the next anchor). Which wins is measured, not assumed: `plans`.
# "torch-cl" keeps them in torch too and runs the 2-D/3-D convolutions channels-last (the input converted on the
# way in, cuDNN's output left channels-last), and the elementwise epilogue that reads such an output is a tiled
# kernel that reads it channels-last and writes the usual contiguous layout (channels-last where it writes the
# task's output, as torch.compile's answer is); a pool, norm, reduction or scan kernel reads it by its strides.
# Level 2's convolutions took 0.68x the time channels-last, which is how torch.compile beat
# the plain hybrid on them. "torch-cl16" is "torch-cl" with those convolutions in float16 (to_channels_last: the
# input cast on its way to channels-last, cuDNN's fp16 tensor-core kernels accumulating in fp32, the output left
# float16 and channels-last, every Triton kernel after it loading it as float16 and computing in fp32). fp16 keeps
# 10 mantissa bits, as the TF32 that eager's cuDNN convolutions round their operands to by default; what it adds
# is the output's rounding to fp16 (relative 2^-11) and fp16's range (|x| < 65504): within the judge's 1e-2, not
# KernelBench's 1e-4 (fails_kb_tol), and the judge decides per task.
HEAVY_PLACES = ("triton", "torch", "torch-cl", "torch-cl16")
CL_HEAVY = ("torch-cl", "torch-cl16")
CL_CONV_OPS = {"conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d"}
HEAVY_OPS = {"linear", "matmul", "bmm", "einsum", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
             "conv_transpose2d", "conv_transpose3d"}


class TeacherError(Exception):
    """The program uses something the teacher cannot compile (an opaque op, a 1-D matmul operand, ...)."""


def npow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def prod(xs) -> int:
    p = 1
    for x in xs:
        p = p * (x if isinstance(x, Sym) else int(x))
    return p


# --------------------------------------------------------------------------------------------------
# Symbolic sizes (--sizes symbolic): ints that print as names
# --------------------------------------------------------------------------------------------------
class Sym(int):
    """A size that computes as its value but prints as a name (`channels`) or an expression of names
    (`channels * length`), so the templates' f-strings write names where they wrote numbers. Arithmetic with
    another int stays symbolic; comparisons, int(), npow2() and float division see the value. str() and
    format() parenthesise a compound expression (it may sit inside a product); repr() and bare() do not."""

    def __new__(cls, value: int, expr: str, op: str | None = None):
        self = super().__new__(cls, value)
        self.expr, self.op = expr, op     # op: None for a name, else the top-level operator
        return self

    def __repr__(self):
        return self.expr

    def __str__(self):
        return self.expr if self.op is None else f"({self.expr})"

    def __format__(self, spec):
        return str(self) if not spec else format(int(self), spec)

    def __mul__(self, o):
        return sym_op(self, "*", o)

    def __rmul__(self, o):
        return sym_op(o, "*", self)

    def __add__(self, o):
        return sym_op(self, "+", o)

    def __radd__(self, o):
        return sym_op(o, "+", self)

    def __sub__(self, o):
        return sym_op(self, "-", o)

    def __rsub__(self, o):
        return sym_op(o, "-", self)

    def __floordiv__(self, o):
        return sym_op(self, "//", o)

    def __rfloordiv__(self, o):
        return sym_op(o, "//", self)

    def __mod__(self, o):
        return sym_op(self, "%", o)

    def __rmod__(self, o):
        return sym_op(o, "%", self)


SYM_OPS = {"*": operator.mul, "+": operator.add, "-": operator.sub, "//": operator.floordiv, "%": operator.mod}


def sym_op(a, op: str, b):
    """a <op> b for two ints at least one of which is a Sym; identities (x * 1, x + 0, x // 1) keep x."""
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
        return NotImplemented
    va, vb = int(a), int(b)
    value = SYM_OPS[op](va, vb)
    plain_a, plain_b = not isinstance(a, Sym), not isinstance(b, Sym)
    if op == "*" and ((plain_a and va in (0, 1)) or (plain_b and vb in (0, 1))):
        return b if plain_a and va == 1 else a if plain_b and vb == 1 else 0
    if (op in ("+", "-") and plain_b and vb == 0) or (op == "//" and plain_b and vb == 1):
        return a
    if op == "+" and plain_a and va == 0:
        return b
    if op in ("+", "-") and plain_b and vb < 0:      # x + -3 -> x - 3
        op, b, vb = "+" if op == "-" else "-", -vb, -vb

    def operand(x, right: bool) -> str:
        if not isinstance(x, Sym):
            return str(int(x)) if int(x) >= 0 else f"({int(x)})"
        if x.op is None:
            return x.expr
        wrap = {"+": False, "-": right and x.op in ("+", "-"), "*": x.op in ("+", "-", "//", "%"),
                "//": x.op in ("+", "-") or right, "%": x.op in ("+", "-") or right}[op]
        return f"({x.expr})" if wrap else x.expr
    return Sym(value, f"{operand(a, False)} {op} {operand(b, True)}", op)


def bare(x) -> str:
    """A size as code without enclosing parentheses (a call argument, a tuple element)."""
    return x.expr if isinstance(x, Sym) else str(x)


# --------------------------------------------------------------------------------------------------
# Program preparation: tensor table, lowering of losses, classification
# --------------------------------------------------------------------------------------------------
@dataclass
class TInfo:
    name: str
    shape: list
    dtype: str = "float32"
    ref: str | None = None       # expression in forward when the tensor is visible there (input, param, buffer)


POINTWISE_KINDS = ("unary", "scalar", "binary")
PY_BUILTINS = set(dir(__import__("builtins")))
REMAPS = ("flip", "narrow", "select", "cat", "flatten", "pad", "roll", "index_select")
ANCHOR_KINDS = ("reduce", "scan", "softmax", "norm", "matmul", "conv", "conv_transpose", "pool",
                "adaptive_pool", "attention")


def is_pointwise(node) -> bool:
    op = node["op"]
    if op in ("triu", "tril", "zeros_like", "identity", "full", "product"):
        return True
    if op in synth.OPS:
        o = synth.OPS[op]
        if o.kind in POINTWISE_KINDS:
            return True
        if o.kind == "loss" and node["attrs"].get("reduction", "mean") == "none" and o.arity == 2 \
                and op != "cross_entropy":
            return True
    return False


def is_remap(node) -> bool:
    return node["op"] in REMAPS


def is_view(node) -> bool:
    """A call forward makes itself: an imported torch view ("view:<name>": reshape, permute, x.shape, indexing)
    or a torch op kept as torch ("torch:dropout", see Prog._lower)."""
    return node["op"].startswith(("view:", "torch:"))


def module_ref(path: str) -> str:
    """fx module path -> attribute expression on self ('layers.0' -> 'self.layers[0]')."""
    out = "self"
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out


# Identifiers the templates write in kernels and wrappers: a size may not be named like one of them.
TEMPLATE_NAMES = set("""M N K pid_k n_rows n_cols n_inner inner pid_outer n_elements seq_q seq_k pid pid_m pid_n pid_b
    pid_bh group offs offs_m offs_n offs_ka offs_kb offs_d offs_dt offs_nv mask mask_m mask_n mask_ka mask_kb mask_d
    mask_dt mask_nv row_mask col_mask rows cols start k0 acc m s m_new amax scale mean m2 diff best best_idx blk
    blk_idx take target picked inv ss rstd carry zero cnt nb mb db delta q kt vt scores p alpha l_i m_i b h out grid
    meta torch triton tl self nn math float range min max len int dtype device shape input_precision num_warps other
    axis keep_dims outer""".split())
TEMPLATE_LOCAL = r"([A-Za-z]|cl|sp|ch|res|first|second|wc|ci|ip|ok|tp|lo|hi|avg|acc)_?\d+"   # KB.emit's names


def model_method(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    """Model's method `name` in a parsed task source (None without it or without class Model)."""
    model = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    return next((n for n in (model.body if model else []) if isinstance(n, ast.FunctionDef) and n.name == name),
                None)


def source_module_args(source: str | None) -> dict:
    """{module attribute ("conv2d"): the argument names its constructor call in Model.__init__ passes}, for
    `self.<name> = nn.<Module>(...)` calls of the families in synth.CTOR_ORDER: keywords by name, positionals by
    the family's nn order. {} for a source that does not parse."""
    try:
        init = model_method(ast.parse(source or ""), "__init__")
    except SyntaxError:
        return {}
    out = {}
    for node in ast.walk(init) if init else []:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
            continue
        t, call = node.targets[0], node.value
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                and isinstance(call.func, ast.Attribute)):
            continue
        cls = call.func.attr
        fam = next((k for k in synth.CTOR_ORDER if cls.startswith(k) and not (k == "Conv" and "Transpose" in cls)),
                   None)
        if fam is not None:
            out[t.attr] = set(synth.CTOR_ORDER[fam][:len(call.args)]) | {k.arg for k in call.keywords if k.arg}
    return out


DIM_CALLS = {"sum": "sum", "mean": "mean", "max": "amax", "min": "amin", "amax": "amax", "amin": "amin",
             "argmax": "argmax", "argmin": "argmin"}   # torch function or tensor method -> the reduce op it imports as


def source_dim_attrs(source: str) -> dict:
    """Reduce op -> the module attribute its one call in forward passes as the dim (`torch.sum(x,
    dim=self.dim)`, `x.argmax(self.dim)`), for the ops called exactly once there."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    fwd = model_method(tree, "forward")
    calls = defaultdict(list)
    for c in ast.walk(fwd) if fwd else []:
        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in DIM_CALLS):
            continue
        functional = isinstance(c.func.value, ast.Name) and c.func.value.id == "torch"
        arg = next((k.value for k in c.keywords if k.arg == "dim"), None)
        if arg is None and len(c.args) > (1 if functional else 0):
            arg = c.args[1 if functional else 0]
        attr = arg.attr if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) \
            and arg.value.id == "self" else None
        calls[DIM_CALLS[c.func.attr]].append(attr)
    return {op: attrs[0] for op, attrs in calls.items() if len(attrs) == 1 and attrs[0]}


SCALAR_ATTR_KEYS = ("value", "min", "max", "negative_slope", "min_val", "max_val", "alpha")  # node_value's flt sites


class NamedScalar(float):
    """A pointwise op's scalar that the module holds (`x * self.scaling_factor`): computes as its value, and
    flt() writes its name, a kernel constexpr the wrapper receives from forward (symbolic sizes)."""

    def __new__(cls, value, name: str):
        self = super().__new__(cls, value)
        self.name = name
        return self


def source_scalar_attrs(source: str) -> dict:
    """The module's number attributes (`self.scaling_factor = scaling_factor`) that forward reads: attribute ->
    (value, how many times forward reads it), the value worked out from the module constants,
    get_init_inputs() and __init__'s defaults."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}

    def value(e, env):
        if isinstance(e, ast.Constant) and type(e.value) in (int, float):
            return e.value
        if isinstance(e, ast.Name):
            return env.get(e.id)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
            v = value(e.operand, env)
            return None if v is None else -v if isinstance(e.op, ast.USub) else v
        if isinstance(e, ast.BinOp) and type(e.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            a, b = value(e.left, env), value(e.right, env)
            if a is None or b is None or (isinstance(e.op, ast.Div) and b == 0):
                return None
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b, ast.Div: a / b if b else None}[type(e.op)]
        return None
    consts = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and (v := value(n.value, consts)) is not None:
            consts.update({t.id: v for t in n.targets if isinstance(t, ast.Name)})
    init, fwd = model_method(tree, "__init__"), model_method(tree, "forward")
    gii = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_init_inputs"), None)
    if init is None or fwd is None:
        return {}
    ret = next((n for n in (gii.body if gii else []) if isinstance(n, ast.Return)), None)
    given = ret.value.elts if ret is not None and isinstance(ret.value, (ast.List, ast.Tuple)) else []
    params = init.args.args[1:]
    defaults = dict(zip([a.arg for a in params][len(params) - len(init.args.defaults):], init.args.defaults))
    env = dict(consts)
    for i, a in enumerate(params):
        v = value(given[i], consts) if i < len(given) else value(defaults[a.arg], consts) if a.arg in defaults \
            else None
        env[a.arg] = v
    read = Counter(n.attr for n in ast.walk(fwd) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                   and n.value.id == "self")
    out = {}
    for n in ast.walk(init):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) \
                and isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id == "self" \
                and n.targets[0].attr in read and (v := value(n.value, env)) is not None:
            out[n.targets[0].attr] = (v, read[n.targets[0].attr])
    return out


def source_size_names(source: str | None) -> tuple[list, dict, dict]:
    """What the task source calls its sizes: per get_inputs() tensor, the name of each dim (None where it is
    not a plain name); per (module attribute, argument), the name passed to nn.<Module>(argument=NAME); and
    the module-level integer constants (name -> value)."""
    if not source:
        return [], {}, {}
    tree = ast.parse(source)
    consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
              for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)
              and type(n.value.value) is int}
    dims = []
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"), None)
    if fn is not None:
        local = {t.id: n.value for n in fn.body if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name)}
        ret = next((n for n in fn.body if isinstance(n, ast.Return)), None)
        elts = ret.value.elts if ret is not None and isinstance(ret.value, (ast.List, ast.Tuple)) else []
        for e in elts:
            e = local.get(e.id, e) if isinstance(e, ast.Name) else e
            call = next((c for c in ast.walk(e) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                         and c.func.attr in ("randn", "rand", "randint", "zeros", "ones", "empty")), None)
            args = [] if call is None else call.args[2:3] if call.func.attr == "randint" else call.args
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                args = args[0].elts
            dims.append([a.id if isinstance(a, ast.Name) else None for a in args])
    module_args = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Attribute) and isinstance(n.targets[0].value, ast.Name) \
                and n.targets[0].value.id == "self":
            f = n.value.func
            cls = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            keys = ["in_features", "out_features"] if cls == "Linear" else \
                ["in_channels", "out_channels"] if cls.startswith("Conv") else []
            named = list(zip(keys, n.value.args)) + [(kw.arg, kw.value) for kw in n.value.keywords]
            for key, val in named:
                if isinstance(val, ast.Name):
                    module_args[(n.targets[0].attr, key)] = val.id
    return dims, module_args, consts


class Prog:
    """A program ready to compile: tensors, lowered nodes, consumers. With sizes="symbolic" every shape is a
    list of Sym where the size has a name (see name_sizes) and of plain ints elsewhere."""

    def __init__(self, program: dict, sizes: str = "literal", source: str | None = None, heavy: str = "triton",
                 fold_bias: bool = False, cells: bool = False):
        if sizes not in ("literal", "symbolic"):
            raise ValueError(f"sizes must be 'literal' or 'symbolic', got {sizes!r}")
        if heavy not in HEAVY_PLACES:
            raise ValueError(f"heavy must be one of {HEAVY_PLACES}, got {heavy!r}")
        self.heavy = heavy
        self.cells = cells  # recurrent layers run as rnn_cells (RNN_SRC): torch GEMMs, the cells in Triton
        self.cl = set()   # heavy="torch-cl": the kept convolutions' outputs, channels-last in memory
        # a kept 2-D/3-D convolution runs without its bias, which becomes an add the Triton kernel after it fuses
        # (PyTorch adds a cuDNN convolution's bias in a pass of its own over the output: the lab record)
        self.fold_bias = fold_bias and sizes == "literal"
        self.program_output = program["output"]
        self.symbolic = sizes == "symbolic"
        self.t: dict[str, TInfo] = {}
        self.input_names = []
        self.scalars = set()   # inputs that are Python numbers (L1 5 passes `s = 3.14`): scalar kernel arguments
        for t in program["inputs"]:
            self.t[t["name"]] = TInfo(t["name"], list(t["shape"] or []), t.get("dtype") or "float32", t["name"])
            self.input_names.append(t["name"])
            if t.get("shape") is None:
                self.scalars.add(t["name"])
        for t in program["params"]:
            self.t[t["name"]] = TInfo(t["name"], list(t["shape"] or []), t.get("dtype") or "float32",
                                      module_ref(t["name"]))
        self.sizes: dict[str, int] = {}        # size name -> value, in naming order
        self.size_of_value: dict[int, Sym] = {}
        self.module_size_names: dict = {}
        self.derived: dict[str, Sym] = {}      # size name -> its definition (an output size of a conv or pool)
        self.attr_syms: dict[str, tuple] = {}  # conv/pool node -> its geometry with named attributes, names
        self.attrs: dict[str, str] = {}        # module attribute leaf (`conv2d.stride`) -> "tuple" or "int"
        if self.symbolic:
            self.name_sizes(program, source)
        self.nodes: list[dict] = []
        self.n_new = 0
        self.tuple_nodes = set()
        self.non_tensors = set()
        self.source = source
        # reduce op -> the module attribute forward passes as its dim (`torch.sum(x, dim=self.dim)`), symbolic only
        self.dim_attrs = source_dim_attrs(source) if self.symbolic and source else {}
        # module -> the constructor arguments the task names (conv_geometry: a named groups is passed whatever its value)
        self.module_args = source_module_args(source) if self.symbolic and source else {}
        self.optional = set()   # leaves forward may pass as None (a named bias=False): no size is bound from them
        self.raw_users = defaultdict(list)   # the program's nodes that read each tensor, before lowering
        self.taken = {n["name"] for n in program["nodes"]} | set(self.t)   # names _new may not make
        for node in program["nodes"]:
            for i in node.get("inputs") or []:
                self.raw_users[i].append(node)
        for node in program["nodes"]:
            self._lower(dict(node, attrs=dict(node.get("attrs") or {})))
        self.output = program["output"]
        self.scalar_attrs: list[str] = []   # the module attributes that are NamedScalars (their kernel names)
        if self.symbolic and source:
            self.name_scalars(source)
        self.node_of = {n["name"]: n for n in self.nodes}
        self.consumers: dict[str, list[str]] = defaultdict(list)
        for n in self.nodes:
            for i in n["inputs"]:
                if n["name"] not in self.consumers[i]:
                    self.consumers[i].append(n["name"])
        self.consumers[self.output].append("__return__")

    # --- lowering --------------------------------------------------------------------------------
    def lower_einsum(self, node):
        """An einsum as pairwise steps, left to right, each keeping the letters later operands or the output
        need: a step that sums a letter out is a two-operand einsum (one batched GEMM; torch's bmm under a
        hybrid plan), a step that sums nothing is a `product` (a broadcast multiply, pointwise: fused into
        the kernels around it). Mamba-2's four-operand einsums have both kinds of step; torch.einsum runs its
        product steps as torch `mul`, which the hybrid policy leaves to Triton."""
        eq = node["attrs"]["equation"].replace(" ", "")
        m_ = re.fullmatch(r"([a-zA-Z]+(?:,[a-zA-Z]+)*)->([a-zA-Z]*)", eq)
        if not m_:
            raise TeacherError(f"einsum {eq!r} is not supported (no ellipsis, an explicit output)")
        terms, out = m_.group(1).split(","), m_.group(2)
        if len(terms) != len(node["inputs"]) or any(len(set(t)) != len(t) for t in terms + [out]):
            raise TeacherError(f"einsum {eq!r} is not supported (repeated letters)")
        size = {}
        for t, i in zip(terms, node["inputs"]):
            if len(t) != len(self.t[i].shape):
                raise TeacherError(f"einsum {eq!r}: operand ranks do not match the equation")
            for c, v in zip(t, self.t[i].shape):
                if size.setdefault(c, v) != v:   # the GEMM lowering reads every operand at full size
                    raise TeacherError(f"einsum {eq!r} broadcasts letter {c!r} (sizes {size[c]} and {v})")
        cur, cur_t = node["inputs"][0], terms[0]
        if len(terms) == 1:
            raise TeacherError(f"einsum {eq!r} with one operand is not supported")
        for k in range(1, len(terms)):
            last = k == len(terms) - 1
            nxt, nxt_t = node["inputs"][k], terms[k]
            later = "".join(terms[k + 1:]) + out
            res_t = out if last else "".join(c for c in dict.fromkeys(cur_t + nxt_t) if c in later)
            summed = set(cur_t + nxt_t) - set(res_t)
            if summed - (set(cur_t) & set(nxt_t)):
                raise TeacherError(f"einsum {eq!r} is not supported (a letter summed out of one operand alone)")
            attrs = {"equation": f"{cur_t},{nxt_t}->{res_t}"} if summed else {"x": cur_t, "y": nxt_t, "out": res_t}
            step = dict(name=node["name"] if last else None, op="einsum" if summed else "product",
                        inputs=[cur, nxt], attrs=attrs, shape=[size[c] for c in res_t],
                        dtype=node.get("dtype") or "float32",
                        module=None, module_args=None, pairwise=True)
            if not last:   # a name no tensor of the program has (einsum_1 may be another einsum's)
                step["name"] = f"{node['name']}_step{k}"
                while step["name"] in self.t or step["name"] in self.raw_users:
                    step["name"] += "_"
            if summed:
                self._lower(step)
            else:
                self.add(step)
            cur, cur_t = step["name"], res_t
        return None

    def _new(self, base, op, inputs, attrs, shape, dtype="float32"):
        self.n_new += 1
        # a name of the program's own (torch.fx calls the second F.linear `linear_2`) or one made before is skipped:
        # reused, it would rebind that tensor in forward (Swin V2's blocks read each other's qkv)
        while f"{base}_{self.n_new}" in self.taken or f"{base}_{self.n_new}" in self.t:
            self.n_new += 1
        name = f"{base}_{self.n_new}"
        self.add(dict(name=name, op=op, inputs=inputs, attrs=attrs, shape=shape, dtype=dtype, module=None,
                      module_args=None))
        return name

    def add(self, node):
        if node.get("shape") is None and is_view(node):
            self.non_tensors.add(node["name"])    # x.shape, x.size(): a tuple or an int, not a tensor
        node["shape"] = list(node["shape"] or [])
        if self.symbolic:
            node["shape"] = self.infer_shape(node)
        self.t[node["name"]] = TInfo(node["name"], node["shape"], node.get("dtype") or "float32")
        self.nodes.append(node)

    def _lower(self, node):
        op = node["op"]
        if op.startswith("opaque:"):
            raise TeacherError(f"op {op[7:]} is outside the operator table")
        if op not in synth.OPS and op not in ("flatten", "identity") and not op.startswith("view:"):
            raise TeacherError(f"unknown op {op}")
        a = node["attrs"]
        name = node["name"]
        if op in synth.OPS and synth.OPS[op].kind == "library":
            # a whole LSTM/GRU/attention layer (KernelBench level 3) has no kernel template: a hybrid plan keeps
            # it as the task's own module call, like a GEMM, and compiles what is around it
            if self.heavy not in HEAVY_PLACES[1:] or not node.get("module"):
                raise TeacherError(f"op {op} is a library layer with no Triton lowering (a hybrid plan keeps it in "
                                   "torch)")
            if self.cells and op in RNN_OPS:
                check_rnn_cells(node, self.t[node["inputs"][0]].shape)
                return self.add(dict(node, op="torch:" + op, attrs=dict(a, cells=True)))
            return self.add(dict(node, op="torch:" + op))
        if op == "linear" and not node.get("module"):
            # F.linear(x, w, b) with tensors of the task's own (Swin V2's qkv): x @ w.t() (+ b), table ops both
            x, w = node["inputs"][:2]
            ws = self.t[w].shape
            wt = self._new(name, "view:t", [w], {"args": [], "kwargs": {}}, [ws[1], ws[0]])
            if len(node["inputs"]) < 3:
                return self.add(dict(node, op="matmul", inputs=[x, wt], attrs={}))
            mm = self._new(name, "matmul", [x, wt], {}, node["shape"])
            return self.add(dict(node, op="add", inputs=[mm, node["inputs"][2]], attrs={}))
        if op == "einsum" and "equation" not in a:
            # an import that dropped the equation (a string argument): the source's einsum calls, if they
            # all use one equation (else the guess bij,bjk->bik would compute the wrong contraction)
            eqs = set(re.findall(r"einsum\(\s*['\"]([^'\"]+)['\"]", self.source or ""))
            if len(eqs) != 1:
                raise TeacherError("einsum without its equation")
            a["equation"] = eqs.pop()
        if op == "einsum" and not node.get("pairwise"):
            return self.lower_einsum(node)
        # a functional GEMM whose result, through one select or slice, is the answer (Mamba-2's final state,
        # new_states[:, -1]): kept in torch, it would compute the answer before a Triton kernel that only copies
        # it (the judge's rule torch_answer), so a hybrid plan computes it in Triton
        users = self.raw_users.get(name, [])
        answer_gemm = op in ("matmul", "bmm", "einsum") and not node.get("module") and users and all(
            is_remap(u) and u["name"] == self.program_output for u in users)
        if self.heavy in HEAVY_PLACES[1:] and op in HEAVY_OPS and not answer_gemm:
            if synth.OPS[op].arity == 1 and not node.get("module"):
                raise TeacherError(f"heavy='{self.heavy}': functional {op} without its module is not supported")
            margs = node.get("module_args") or {}
            fold = self.fold_bias and op in CL_CONV_OPS and node.get("module") and margs.get("bias") is True \
                and margs.get("padding_mode", "zeros") == "zeros" and name != self.program_output
            # a linear layer followed only by a dropout of p=0 (minGPT's c_proj): its bias add becomes that
            # kernel's work. Kept whole, torch's addmm would compute the answer before a Triton kernel that then
            # only copies it (the judge's rule torch_answer)
            users = self.raw_users.get(name, [])
            fold = fold or op == "linear" and node.get("module") and margs.get("bias") is True and users and all(
                u["op"] in ("dropout", "identity") and not (u.get("attrs") or {}).get("p") for u in users)
            if not fold and not (self.heavy in CL_HEAVY and op in CL_CONV_OPS):
                return self.add(dict(node, op="torch:" + op))
            raw, extra = (f"{name}_nobias", {"no_bias": True}) if fold else (name, {})
            if self.heavy in CL_HEAVY and op in CL_CONV_OPS:
                self.cl.add(raw)
                extra["channels_last"] = True
                if self.heavy == "torch-cl16":
                    extra["half"] = True
            self.add(dict(node, name=raw, op="torch:" + op, attrs=dict(a, **extra),
                          **({"dtype": "float16"} if extra.get("half") else {})))
            if fold:
                bias = f"{node['module']}.bias"
                shape = [node["shape"][-1]] if op == "linear" else [node["shape"][1]] + [1] * (len(node["shape"]) - 2)
                self.t[bias] = TInfo(bias, shape, "float32", module_ref(node["module"]) + ".bias")
                self.add(dict(name=name, op="add", inputs=[raw, bias], attrs={}, shape=list(node["shape"]),
                              dtype="float32", module=None, module_args=None))
            return
        if op in ("amax", "amin") and a.get("returns_indices"):  # torch.max(x, dim): keep the values only
            S = self.t[node["inputs"][0]].shape
            d = a["dim"] % len(S)
            node["shape"] = [1 if i == d else s for i, s in enumerate(S)] if a.get("keepdim") else \
                [s for i, s in enumerate(S) if i != d]
            self.tuple_nodes.add(name)
        if op in ("view:getitem", "view:getattr") and node["inputs"] and node["inputs"][0] in self.tuple_nodes:
            if a.get("args") not in ([0], ["values"]):    # [0] or .values
                raise TeacherError("indices of torch.max/min(x, dim) are not supported")
            return self.add(dict(node, op="identity", attrs={}))
        if op == "cat" and len(node["inputs"]) > CAT_INLINE_MAX:
            return self.add(dict(node, op="torch:cat", attrs=dict(a, copy=True)))
        if op in ("full", "randn"):
            # a tensor made in forward: a constant inlines into the pointwise kernels that read it (Mamba's tril
            # mask); one a library layer or torch op reads (an RNN's h0), and every random draw (the same torch
            # call at the same place in the RNG stream as the reference's), is made by torch in forward
            users = self.raw_users.get(name, [])
            if op == "randn" or not users or not all(is_pointwise(u) or is_remap(u) for u in users):
                first = next((i for i in self.input_names if i not in self.scalars), None)
                if first is None:
                    raise TeacherError(f"{op} in forward with no tensor input to take the device from")
                return self.add(dict(node, op="torch:" + op, inputs=[first],
                                     attrs=dict(a, shape=list(node["shape"]), dtype=node.get("dtype") or "float32")))
        if op == "dropout":
            p = a.get("p", 0.5)
            if p and a.get("training", bool(node.get("module"))) is not False:
                # Random (KernelBench never calls .eval()): no kernel can reproduce torch's mask, so forward
                # calls the same torch dropout at the same place in the RNG stream. The judge seeds the RNG
                # before each trial's get_inputs and nothing else in either forward draws from it, so both
                # draw the same mask (a hybrid solution: the judge's default policy allows the torch op).
                return self.add(dict(node, op="torch:dropout", attrs=dict(a, p=p)))
        if op == "norm" and a.get("p", "fro") in (2, 2.0, "fro") and a.get("dim") is None:
            # the 2-norm of everything (KernelBench L1 37, 1.9G elements): a sum of squares, which the GPU target
            # splits over programs (k_sum_split), then its root; one row kernel over one row took 1.8 s there
            x = node["inputs"][0]
            shape = self.t[x].shape
            sq = self._new(name, "mul", [x, x], {}, shape)
            total = self._new(name, "rsum", [sq], {"dims": list(range(len(shape))), "count": 1}, node["shape"])
            return self.add(dict(node, op="sqrt", inputs=[total], attrs={}))
        if op == "sdpa" and not (a.get("attn_mask") is not None or a.get("is_causal") or a.get("dropout_p", 0.0)):
            q, k, v = node["inputs"][:3]
            qs, ks, vs = (self.t[t].shape for t in (q, k, v))
            if len(qs) >= 3 and qs[-1] > SDPA_FUSED_MAX_D and qs[:-2] == ks[:-2] == vs[:-2] and ks[-1] == qs[-1]:
                # A head dim the fused kernel cannot hold (KernelBench L1 97: 1,024; its [64, 1024] accumulator
                # spilled, 0.07x eager, and its tf32x3 build needed 278 KB of shared memory): two batched GEMMs
                # around a row softmax, the scores written out once (1 GB there) and read once
                bl = "abcdefgh"[:len(qs) - 2]
                scores = list(qs[:-1]) + [ks[-2]]
                sc = self._new(name, "einsum", [q, k], {"equation": f"{bl}qd,{bl}kd->{bl}qk"}, scores)
                scale = a.get("scale") or 1.0 / math.sqrt(qs[-1])
                sc = self._new(name, "mul_scalar", [sc], {"value": float(scale)}, scores)
                pr = self._new(name, "softmax", [sc], {"dim": -1}, scores)
                return self.add(dict(node, op="einsum", inputs=[pr, v], attrs={"equation": f"{bl}qk,{bl}kd->{bl}qd"}))
        if op in ("mse_loss", "smooth_l1_loss", "kl_div"):
            red = a.get("reduction", "mean")
            if red == "none":
                return self.add(node)
            x = node["inputs"][0]
            shape = self.t[x].shape
            pw = self._new(name, op, node["inputs"], dict(a, reduction="none"), shape)
            count = {"sum": 1, "mean": max(1, prod(shape)), "batchmean": max(1, shape[0] if shape else 1)}[red]
            return self.add(dict(node, op="rsum", inputs=[pw], attrs={"dims": list(range(len(shape))),
                                                                      "count": count}))
        if op == "cross_entropy":
            red = a.get("reduction", "mean")
            x, t = node["inputs"]
            shape = self.t[x].shape
            if len(shape) != 2 or a.get("weight") is not None or a.get("label_smoothing", 0.0):
                raise TeacherError("cross_entropy: only (N, C) logits, no weights, no label smoothing")
            if red == "none":
                return self.add(dict(node, op="ce_row"))
            row = self._new(name, "ce_row", [x, t], {}, [shape[0]])
            return self.add(dict(node, op="rsum", inputs=[row],
                                 attrs={"dims": [0], "count": shape[0] if red == "mean" else 1}))
        if op == "triplet_margin_loss":
            red = a.get("reduction", "mean")
            if a.get("p", 2.0) != 2.0 or a.get("swap", False):
                raise TeacherError("triplet_margin_loss: only p=2, swap=False")
            anc, pos, neg = node["inputs"]
            N, D = self.t[anc].shape
            dist = []
            for other in (pos, neg):  # pairwise_distance(a, b) = ||a - b + eps||_2 with eps = 1e-6
                d = self._new(name, "sub", [anc, other], {}, [N, D])
                d = self._new(name, "add_scalar", [d], {"value": 1e-6}, [N, D])
                dist.append(self._new(name, "norm", [d], {"p": 2.0, "dim": 1, "keepdim": False}, [N]))
            d = self._new(name, "sub", dist, {}, [N])
            d = self._new(name, "add_scalar", [d], {"value": float(a.get("margin", 1.0))}, [N])
            if red == "none":
                return self.add(dict(node, op="relu", inputs=[d], attrs={}))
            d = self._new(name, "relu", [d], {}, [N])
            return self.add(dict(node, op="rsum", inputs=[d], attrs={"dims": [0], "count": N if red == "mean" else 1}))
        return self.add(node)

    # --- symbolic sizes ----------------------------------------------------------------------------
    def new_size(self, name: str, value: int, alias: bool = True) -> Sym:
        """Register a size name (or reuse it if it holds this value); a name taken by another value or by
        the templates gets a numbered variant. alias: later dims of this value may take the name (an op
        attribute's name, as `stride`, does not name a tensor's dim)."""
        base, k = name, 2
        while (name in self.sizes and self.sizes[name] != value) or name in TEMPLATE_NAMES or \
                re.fullmatch(TEMPLATE_LOCAL, name) or name in self.t or not name.isidentifier() or \
                keyword.iskeyword(name):
            name, k = f"{base}_{k}", k + 1
            if re.fullmatch(TEMPLATE_LOCAL, name):  # `M_2` reads as a kernel local: `M_size` (KernelBench's M, N, K)
                name = f"{base}_size" + (str(k - 1) if k > 3 else "")
        self.sizes[name] = value
        sym = Sym(value, name)
        if alias:
            self.size_of_value.setdefault(value, sym)
        return sym

    def name_sizes(self, program: dict, source: str | None) -> None:
        """Name every input and parameter dim > 1: inputs by the names get_inputs() uses in the source
        (batch_size, channels, ...), a value already named reuses its name, anything else is `<tensor>_d<k>`."""
        dims, self.module_size_names, consts = source_size_names(source)
        for i, name in enumerate(self.input_names):
            given = dims[i] if i < len(dims) and len(dims[i]) == len(self.t[name].shape) else []
            shape = self.t[name].shape
            for k, v in enumerate(shape):
                if v == 1:
                    continue
                src_name = given[k] if given else None
                if src_name is not None and consts.get(src_name) == v:
                    shape[k] = self.new_size(src_name, v)
                else:
                    shape[k] = self.size_of_value.get(v) or self.new_size(f"{name}_d{k}", v)
        for t in program["params"]:
            shape = self.t[t["name"]].shape
            base = t["name"].replace(".", "_")
            for k, v in enumerate(shape):
                if v != 1:
                    shape[k] = self.size_of_value.get(v) or self.new_size(f"{base}_d{k}", v)

    def module_size(self, node: dict, arg: str, value: int, fallback: str) -> Sym:
        """A size a module's constructor argument gives (nn.Linear's out_features, a conv's out_channels):
        the source's name for it when it has one, else `fallback`."""
        name = self.module_size_names.get((node.get("module"), arg))
        if value == 1:
            return 1
        return self.new_size(name if name and self.sizes.get(name, value) == value else fallback, value)

    def infer_shape(self, node: dict) -> list:
        """The node's shape in names: each dim is matched to a dim of its inputs with that value (scanning on
        from the last match, as ops keep the order of the dims they keep), a flatten or view dim to the
        product of a run of input dims, a cat dim to the sum; conv/pool spatial sizes and other sizes that
        come from op attributes stay plain ints."""
        shape, op, a = node["shape"], node["op"], node["attrs"]
        ins = [self.t[i].shape for i in node["inputs"] if i in self.t]
        if not ins or all(isinstance(s, Sym) or s == 1 for s in shape):
            return shape
        src = ins[0]
        if op == "flatten" and src:
            s_ = a.get("start_dim", 1) % len(src)
            e_ = a.get("end_dim", -1) % len(src)
            guess = src[:s_] + [prod(src[s_:e_ + 1])] + src[e_ + 1:]
            if guess == shape:
                return guess
        if op == "cat" and len(ins) == 2 and len(ins[1]) == len(src):
            d = a.get("dim", 0) % len(src)
            guess = src[:d] + [src[d] + ins[1][d]] + src[d + 1:]
            if guess == shape:
                return guess
        kind = synth.OPS[op].kind if op in synth.OPS else op
        if kind in ("conv", "conv_transpose", "pool", "adaptive_pool") and len(src) == len(shape):
            out = [src[0] if shape[0] == src[0] else shape[0]]
            if kind.startswith("conv"):
                wname = (node.get("module") or "conv").replace(".", "_") + "_weight"
                out.append(self.module_size(node, "out_channels", shape[1], f"{wname}_d{0 if kind == 'conv' else 1}"))
            else:
                out.append(src[1] if shape[1] == src[1] else shape[1])
            sizes = self.window_sizes(node, kind, src[2:]) if kind != "adaptive_pool" else [None] * len(src[2:])
            if node["name"] in self.attr_syms:   # named attributes: the output size as their formula, always
                return out + [o if w is None else w for o, w in zip(shape[2:], sizes)]
            return out + [i if i == o else w if w == o else o for i, o, w in zip(src[2:], shape[2:], sizes)]
        flat = [s for s in (d for shp in ins for d in shp) if isinstance(s, Sym)]
        out, pos = [], 0
        for j, v in enumerate(shape):
            if isinstance(v, Sym) or v == 1:
                out.append(v)
                continue
            if op == "linear" and j == len(shape) - 1:
                wname = (node.get("module") or "fc").replace(".", "_") + "_weight"
                out.append(self.module_size(node, "out_features", v, f"{wname}_d0"))
                continue
            hit = next((q for q in list(range(pos, len(flat))) + list(range(pos)) if flat[q] == v), None)
            if hit is None:   # a view or flatten: the product of a run of input dims
                hit = next(((q, r) for q in range(pos, len(flat)) for r in range(q + 2, len(flat) + 1)
                            if prod(flat[q:r]) == v), None)
                if hit is not None:
                    out.append(prod(flat[hit[0]:hit[1]]))
                    pos = hit[1]
                else:
                    out.append(v)
                continue
            out.append(flat[hit])
            pos = hit + 1
        return out

    def name_scalars(self, source: str) -> None:
        """Symbolic sizes: a pointwise op's scalar that is the value of one number attribute of the module
        (`x * self.scaling_factor`, source_scalar_attrs) becomes a NamedScalar, read in kernels by the
        attribute's name and passed from forward (`self.scaling_factor`; finish binds it), so the answer reads
        the same whatever the constructor is given. A value two attributes share, or more ops hold than forward
        reads the attribute, stays a number, as does a name a template or a size already uses."""
        attrs = source_scalar_attrs(source)
        by_value = defaultdict(list)
        for attr, (v, _) in attrs.items():
            by_value[float(v)].append(attr)
        sites = defaultdict(list)
        for n in self.nodes:
            if is_pointwise(n):
                for k in SCALAR_ATTR_KEYS:
                    v = n["attrs"].get(k)
                    if type(v) in (int, float) and len(by_value.get(float(v), ())) == 1:
                        sites[by_value[float(v)][0]].append((n, k))
        for attr, uses in sites.items():
            if attr in TEMPLATE_NAMES or re.fullmatch(TEMPLATE_LOCAL, attr) or attr in self.sizes or \
                    attr in self.t or len(uses) > attrs[attr][1]:
                continue
            for n, k in uses:
                n["attrs"][k] = NamedScalar(n["attrs"][k], attr)
            self.scalar_attrs.append(attr)

    def conv_geometry(self, node: dict, d: int):
        """conv_geometry(node, d); with symbolic sizes, for a convolution module, its attributes are names a
        kernel takes as constexprs and the wrapper binds from the module (`stride_h, stride_w = conv2d_stride`,
        forward passing `self.conv2d.stride`), so an answer reads the same whatever the values: stride, padding,
        dilation, a transposed conv's output_padding and groups > 1 always, kernel sizes (1 too) from the weight's
        shape (`out_channels, _, kernel_h, kernel_w = conv2d_weight.shape`). Literal sizes, a functional conv
        or a string padding keep numbers (for padding alone in the last case)."""
        geo = conv_geometry(node, d)
        if not self.symbolic or not node.get("module"):
            return geo
        if node["name"] in self.attr_syms:
            return self.attr_syms[node["name"]][0]
        ks, s, p, dil, g, ma = geo
        transposed = node["op"].startswith("conv_transpose")
        axes = [""] if d == 1 else ["_d", "_h", "_w"][-d:]
        names: dict = {}

        def named(attr: str, values) -> list:
            syms = [self.new_size(f"{attr}{a}", int(v), alias=False) for a, v in zip(axes, values)]
            names[attr] = syms
            return syms
        s, dil = named("stride", s), named("dilation", dil)
        if not isinstance(ma.get("padding", 0), str):
            p = named("padding", p)
        if transposed:
            named("output_padding", synth.tuple_attr(ma.get("output_padding", 0), d))
        # groups > 1, or any groups the task's constructor names (`groups=groups`, KernelBench level 1's spelled-out
        # convs): then the answer passes it and runs the grouped form. Named only when > 1, a spelled-out groups=1
        # conv's answer took none, and the model trained on them passed `self.conv2d.groups` to a launcher without
        # it in 9 of level 1's 35 convs
        if g > 1 or "groups" in self.module_args.get(node["module"], ()):
            g = names["groups"] = self.new_size("groups", g, alias=False)
        ks = [self.new_size("kernel_size" if d == 1 else f"kernel{a}", k, alias=False) for a, k in zip(axes, ks)]
        wname = f"{node['module']}.weight"
        if wname not in self.t and node["inputs"] and node["inputs"][0] in self.t:   # an import lists no params
            C, OC = self.t[node["inputs"][0]].shape[1], int(node["shape"][1])
            self.t[wname] = TInfo(wname, ([C, OC // int(g)] if transposed else [OC, C // g]) + list(ks), "float32",
                                  f"{module_ref(node['module'])}.weight")
        weight = self.t.get(wname)
        if weight is not None and len(weight.shape) == d + 2:
            weight.shape[2:] = ks
            # out_channels from the weight: dim 0 of a conv's; dim 1 of a transposed conv's holds out_channels / groups
            oc = int(node["shape"][1])
            fallback = f"{node['module'].replace('.', '_')}_weight_d{1 if transposed else 0}"
            if not transposed:
                weight.shape[0] = self.module_size(node, "out_channels", oc, fallback)
            elif not isinstance(g, Sym):
                weight.shape[1] = self.module_size(node, "out_channels", oc, fallback)
            else:
                weight.shape[1] = self.new_size("out_channels_per_group", oc // int(g))
                total = self.module_size(node, "out_channels", oc, fallback)
                if isinstance(total, Sym):
                    self.derived.setdefault(total.expr, weight.shape[1] * g)
        self.attr_syms[node["name"]] = ((ks, s, p, dil, g, ma), names)
        return self.attr_syms[node["name"]][0]

    def pool_geometry(self, node: dict, d: int):
        """(kernel size, stride, padding, dilation) per spatial dim of a (non-adaptive) pool. With symbolic
        sizes, for a pooling module, they are names bound from the module's attributes as Prog.conv_geometry's
        are; a module keeps an int argument as an int (`kernel_size = maxpool_kernel_size`, one name for every
        dim) and a tuple as a tuple (`kernel_h, kernel_w = maxpool_kernel_size`). An average pool has no
        dilation."""
        ma = node.get("module_args") or {}
        geo = (synth.tuple_attr(ma["kernel_size"], d), synth.tuple_attr(ma.get("stride") or ma["kernel_size"], d),
               synth.tuple_attr(ma.get("padding", 0), d), synth.tuple_attr(ma.get("dilation", 1), d))
        if not self.symbolic or not node.get("module"):
            return geo
        if node["name"] in self.attr_syms:
            return self.attr_syms[node["name"]][0]
        axes = [""] if d == 1 else ["_d", "_h", "_w"][-d:]
        names: dict = {}
        given = {"kernel_size": ma["kernel_size"], "stride": ma.get("stride") or ma["kernel_size"],
                 "padding": ma.get("padding", 0)}
        if node["op"].startswith("max"):
            given["dilation"] = ma.get("dilation", 1)
        out = []
        for (attr, value), values in zip(given.items(), geo):
            base = "kernel" if attr == "kernel_size" else attr
            if isinstance(value, int) and node["op"] != "avg_pool1d":   # one name for every dim (AvgPool1d
                # keeps its attributes as 1-tuples)
                sym = names[attr] = self.new_size(attr, value, alias=False)
                out.append([sym] * d)
            else:
                syms = names[attr] = [self.new_size(attr if d == 1 else f"{base}{a}", v, alias=False)
                                      for a, v in zip(axes, values)]
                out.append(syms)
        out += list(geo[len(out):])   # an average pool's dilation stays 1
        self.attr_syms[node["name"]] = (tuple(out), names)
        return self.attr_syms[node["name"]][0]

    def window_sizes(self, node: dict, kind: str, ins: list) -> list:
        """Output spatial sizes of a conv, transposed conv or pool as derived names (`out_length`, defined in
        self.derived as an expression of the input's names and the op's attributes); None where unknown."""
        ma = node.get("module_args") or {}
        d = len(ins)
        try:
            if kind.startswith("conv"):
                ks, s, p, dil, _, _ = self.conv_geometry(node, d)
            else:
                ks, s, p, dil = self.pool_geometry(node, d)
            opad = self.attr_syms[node["name"]][1].get("output_padding") if node["name"] in self.attr_syms \
                else None
            opad = opad or synth.tuple_attr(ma.get("output_padding", 0), d)
        except (TeacherError, KeyError, TypeError, ValueError):
            return [None] * d
        out = []
        for j, L in enumerate(ins):
            if not isinstance(L, Sym):
                out.append(None)
                continue
            if kind == "pool" and isinstance(s[j], Sym):
                expr = (L + 2 * p[j] - dil[j] * (ks[j] - 1) - 1) // s[j] + 1
            elif kind.startswith("conv") and isinstance(s[j], Sym):   # named attributes: the formula as written
                expr = (L - 1) * s[j] - 2 * p[j] + dil[j] * (ks[j] - 1) + opad[j] + 1 \
                    if kind == "conv_transpose" else (L + 2 * p[j] - dil[j] * (ks[j] - 1) - 1) // s[j] + 1
            elif kind == "conv_transpose":   # (L - 1) * s - 2p + dil * (k - 1) + output_padding + 1
                expr = L * s[j] + (1 - s[j] - 2 * p[j] + dil[j] * (ks[j] - 1) + opad[j])
            else:                          # (L + 2p - dil * (k - 1) - 1) // s + 1
                c = 2 * p[j] - dil[j] * (ks[j] - 1) - 1
                expr = L + (c + 1) if s[j] == 1 else (L + c) // s[j] + 1
            if not isinstance(expr, Sym) or expr.op is None:
                out.append(expr)
                continue
            base = L.expr.removeprefix("out_") if L.op is None else ("length", "height", "width")[j - d + 3]
            sym = self.new_size(f"out_{base}", int(expr))
            self.derived.setdefault(sym.expr, expr)
            out.append(sym)
        return out

    # --- queries ---------------------------------------------------------------------------------
    def kind(self, name) -> str:
        n = self.node_of.get(name)
        if n is None:
            return "leaf"
        if is_view(n):
            return "view"
        if is_pointwise(n):
            return "pointwise"
        if is_remap(n):
            return "remap"
        return "anchor"


# --------------------------------------------------------------------------------------------------
# Planning: epilogue regions and materialised tensors
# --------------------------------------------------------------------------------------------------
def is_split_sum(P: Prog, n: dict) -> bool:
    """A sum of everything into one value over more than SPLIT_SUM_MIN elements: k_sum_split on the GPU target
    (its region is the sum alone, so k_rows sees A == E)."""
    return n["op"] in ("sum", "mean", "rsum") and prod(P.t[n["name"]].shape) == 1 and \
        prod(P.t[n["inputs"][0]].shape) > SPLIT_SUM_MIN


def plan(P: Prog) -> list[tuple[str, str]]:
    """Kernels to launch, in order: (anchor or None-for-elementwise, region end). Marks P.t[...].ref for
    every tensor that becomes visible in forward."""
    order = {n["name"]: i for i, n in enumerate(P.nodes)}
    launches = []
    in_region = set()
    must = set()   # pointwise/remap nodes that forward needs as buffers
    for n in P.nodes:
        if is_view(n):
            for i in n["inputs"]:
                if P.kind(i) in ("pointwise", "remap"):
                    must.add(i)
    for n in P.nodes:
        if P.kind(n["name"]) != "anchor":
            continue
        A = n["name"]
        if P.t[A].dtype != "float32" or is_split_sum(P, n):
            launches.append((A, A))   # a split sum's atomics leave no place for an epilogue: its users read it
            continue
        region = [A]
        members = {A}
        best = [A]
        for m in P.nodes[order[A] + 1:]:
            if m["name"] in in_region or not is_pointwise(m) or m["shape"] != P.t[A].shape:
                continue
            ins = m["inputs"]
            if not any(i in members for i in ins):
                continue
            if any(i in members and P.t[i].shape != m["shape"] for i in ins):
                continue
            if m["name"] in must:  # forward reads it (a view's or a torch op's input): it can only end the region
                if all(c in members or c == m["name"] for r in region for c in P.consumers[r]):
                    best = region + [m["name"]]
                    break
                continue
            region.append(m["name"])
            members.add(m["name"])
            # valid if every use of a member except the last stays inside the region
            if all(c in members for r in region[:-1] for c in P.consumers[r]):
                best = list(region)
            if m["name"] == P.output:
                break
        in_region.update(best)
        launches.append((A, best[-1]))
    E_out = P.output
    if P.kind(E_out) in ("pointwise", "remap") and E_out not in in_region:
        must.add(E_out)
    for m in sorted(must - in_region, key=order.get):
        launches.append((None, m))
    launches.sort(key=lambda ae: order[ae[1]])
    for _, E in launches:
        P.t[E].ref = E
    return launches


# --------------------------------------------------------------------------------------------------
# Kernel builder: index expressions, masks, prologue/epilogue values
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ix:
    """A code string for an index or value array, and the tile axes it varies along."""
    code: str
    axes: frozenset = frozenset()


ZERO = Ix("0")
SM_COUNT = 132  # an H200's streaming multiprocessors: what the GPU target's launch geometry aims to fill
WAVE_PROGRAMS = 2 * SM_COUNT  # two waves of programs: the GPU target shrinks blocks until a launch has as many


def halve_to_waves(block: int, n: int, floor: int) -> int:
    """`block` halved (not below `floor`) until n elements make WAVE_PROGRAMS programs of it."""
    while block > floor and -(-n // block) < WAVE_PROGRAMS:
        block //= 2
    return block
TILE_SHAPES = {"mn": "[BLOCK_M, BLOCK_N]", "jr": "[BLOCK_ROWS, BLOCK_COLS]", "o": "[BLOCK]", "dm": "[BLOCK_M, BLOCK_D]",
               "ch": "[BLOCK_HW, BLOCK_C]"}

UNARY = {
    "relu": "tl.maximum({x}, 0.0)",
    "sigmoid": "tl.sigmoid({x})",
    "tanh": "1.0 - 2.0 / (tl.exp(2.0 * {x}) + 1.0)",
    "gelu": "0.5 * {x} * (1.0 + tl.erf({x} * 0.7071067811865476))",
    "leaky_relu": "tl.where({x} >= 0.0, {x}, {x} * {negative_slope})",
    "hardtanh": "tl.minimum(tl.maximum({x}, {min_val}), {max_val})",
    "hardswish": "{x} * tl.minimum(tl.maximum({x} + 3.0, 0.0), 6.0) / 6.0",
    "hardsigmoid": "tl.minimum(tl.maximum({x} + 3.0, 0.0), 6.0) / 6.0",
    "mish": "{x} * (1.0 - 2.0 / (tl.exp(2.0 * tl.where({x} > 20.0, {x}, tl.log(1.0 + tl.exp({x})))) + 1.0))",
    "softplus": "tl.where({x} * {beta} > {threshold}, {x}, tl.log(1.0 + tl.exp({x} * {beta})) / {beta})",
    "selu": "1.0507009873554805 * tl.where({x} > 0.0, {x}, 1.6732632423543772 * (tl.exp({x}) - 1.0))",
    "elu": "tl.where({x} > 0.0, {x}, {alpha} * (tl.exp({x}) - 1.0))",
    "silu": "{x} * tl.sigmoid({x})",
    "abs": "tl.abs({x})",
    "sqrt": "tl.sqrt({x})",
    "rsqrt": "tl.rsqrt({x})",
    "exp": "tl.exp({x})",
    "log": "tl.log({x})",
    "neg": "-{x}",
    "relu6": "tl.minimum(tl.maximum({x}, 0.0), 6.0)",
    "celu": "tl.where({x} > 0.0, {x}, {alpha} * (tl.exp({x} / {alpha}) - 1.0))",
    "softsign": "{x} / (1.0 + tl.abs({x}))",
    "logsigmoid": "tl.minimum({x}, 0.0) - tl.log(1.0 + tl.exp(-tl.abs({x})))",
    "tanhshrink": "{x} - (1.0 - 2.0 / (tl.exp(2.0 * {x}) + 1.0))",
    "sin": "tl.sin({x})",
    "cos": "tl.cos({x})",
    "erf": "tl.erf({x})",
    "dropout": "{x}",
    "identity": "{x}",
}
UNARY_DEFAULTS = {"negative_slope": 0.01, "min_val": -1.0, "max_val": 1.0, "alpha": 1.0, "beta": 1.0,
                  "threshold": 20.0}
BINARY = {"add": "{x} + {y}", "sub": "{x} - {y}", "mul": "{x} * {y}", "div": "{x} / {y}",
          "maximum": "tl.maximum({x}, {y})", "minimum": "tl.minimum({x}, {y})",
          "mse_loss": "({x} - {y}) * ({x} - {y})",
          "kl_div": "tl.where({y} > 0.0, {y} * (tl.log({y}) - {x}), 0.0)"}
SCALAR = {"add_scalar": "+", "sub_scalar": "-", "mul_scalar": "*", "div_scalar": "/"}


def par(code: str) -> str:
    """Parenthesise a compound expression before it is multiplied, divided or negated."""
    import re
    if re.fullmatch(r"[\w.]+", code):
        return code
    if code.startswith("(") and code.endswith(")"):
        depth = 0
        for k, ch in enumerate(code):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and k < len(code) - 1:
                break
        else:
            return code
    return f"({code})"


def mean_of(code: str, count) -> str:
    """`code` divided by an element count: by the size names with symbolic sizes (`acc / batch_size`), else
    times the literal reciprocal (`acc * 0.5`), so a model never has to work out 1/n."""
    return f"{code} / {count}" if isinstance(count, Sym) else f"{code} * {flt(1.0 / count)}"


def covering_block(n, value: int, floor: int = 1):
    """The block size `value` (the power of two >= n, at least `floor`) of a block that must cover all n
    elements in one piece: with symbolic sizes as the code the wrapper computes it with, so a model copies
    the size expression instead of working out a power of two."""
    if not isinstance(n, Sym):
        return value
    code = f"triton.next_power_of_2({bare(n)})"
    return f"max({floor}, {code})" if floor > 1 else code


def flt(v) -> str:
    if isinstance(v, NamedScalar):
        return v.name
    v = float(v)
    if math.isinf(v):
        return "float('inf')" if v > 0 else "float('-inf')"
    return repr(v)


class KB:
    """Builds one kernel body. `value(t, idx)` returns the code of tensor t at index tuple idx (one Ix per
    dim of t), loading leaves and inlining pointwise/remap nodes; `bind` maps the anchor (and epilogue
    members computed so far) to registers."""

    def __init__(self, P: Prog, st: "Style", name: str):
        self.P, self.st, self.name = P, st, name
        self.lines: list[str] = []
        self.ind = 1
        self.params: list[tuple[str, str, bool]] = []   # (kernel param, wrapper expr, constexpr)
        self.leaves: dict[str, str] = {}                # tensor name -> wrapper param name
        self.masks: dict[str, str] = {}                 # tile axis -> mask code
        self.cache: dict = {}
        self.bind: dict[str, Ix] = {}
        self.flat = None                                # (idx codes, shape, offset Ix): contiguous fast path
        self.flat_cl = False                            # ... whose offset is channels-last (k_elementwise_cl)
        self.n = 0
        self.out = None                                 # the tensor out_ptr writes (set by finish)

    # --- plumbing ---
    def line(self, s: str):
        self.lines.append("    " * self.ind + s)

    def arg(self, name: str, expr: str, constexpr: bool = False) -> str:
        if name not in [p[0] for p in self.params]:
            self.params.append((name, expr, constexpr))
        return name

    def emit(self, code: str, axes, hint: str = "t") -> Ix:
        self.n += 1
        var = f"{hint}{self.n}" if hint[-1].isalpha() else f"{hint}_{self.n}"
        self.line(f"{var} = {code}")
        return Ix(var, frozenset(axes))

    def leaf(self, t: str) -> str:
        if t not in self.leaves:
            ref = self.P.t[t].ref
            pname = ref.replace("self.", "").replace(".", "_").replace("[", "_").replace("]", "")
            base, k = pname, 2
            while pname in self.leaves.values() or pname == "out":
                pname, k = f"{base}_{k}", k + 1
            self.leaves[t] = pname
        return self.leaves[t]

    def ptr(self, t: str) -> str:
        return self.arg(f"{self.leaf(t)}_ptr", self.leaf(t))

    def mask(self, axes, valid=()) -> str | None:
        parts = [self.masks[a] for a in sorted(axes) if a in self.masks]
        parts += [v.code for v in valid if v.axes and v.axes <= axes]
        return " & ".join(dict.fromkeys(parts)) or None

    def flat_offset(self, shape, idx) -> Ix | None:
        """The fast path's offset where it covers idx into a tensor of `shape`, else None."""
        if self.flat and list(shape) == list(self.flat[1]) and tuple(i.code for i in idx) == self.flat[0]:
            return self.flat[2]
        return None

    def offset_cl(self, shape, idx) -> Ix:
        """Linear offset of idx into a channels-last tensor of `shape` (a heavy="torch-cl" convolution's output:
        (N, C, *spatial) laid out as (N, *spatial, C)); k_elementwise_cl's own fast path where it covers idx."""
        if self.flat_cl and self.flat_offset(shape, idx) is not None:
            return self.flat[2]
        order = [0, *range(2, len(shape)), 1]
        return self.offset([shape[d] for d in order], [idx[d] for d in order], strided=True)

    def offset(self, shape, idx, keep_unit: bool = False, strided: bool = False) -> Ix:
        """Linear offset of idx into a contiguous tensor of `shape` (size-1 dims contribute nothing unless
        keep_unit: a store's pointer must span every tile axis of its mask). strided: from the strides alone,
        never the fast path (offset_cl's permuted dims)."""
        fast = None if strided else self.flat_offset(shape, idx)
        if fast is not None:
            return fast
        terms, axes, stride = [], frozenset(), 1
        for s, i in reversed(list(zip(shape, idx))):
            if (s != 1 or keep_unit) and i.code != "0":
                terms.append(i.code if stride == 1 else f"{par(i.code)} * {stride}")
                axes |= i.axes
            stride = s * stride
        return Ix(" + ".join(reversed(terms)) or "0", axes)

    def unravel(self, flat: Ix, shape, hint="i") -> list[Ix]:
        """Per-dim indices of a flat row-major index over `shape`; size-1 dims give ZERO."""
        out = []
        live = [d for d, s in enumerate(shape) if s != 1]
        for d, s in enumerate(shape):
            if s == 1:
                out.append(ZERO)
                continue
            inner = prod(shape[d + 1:])
            code = flat.code if inner == 1 else f"{par(flat.code)} // {inner}"
            if d != live[0]:
                code = f"({code}) % {s}" if inner != 1 else f"{par(code)} % {s}"
            out.append(self.emit(code, flat.axes, hint) if code != flat.code else flat)
        return out

    # --- values ---
    def value(self, t: str, idx: list[Ix], valid=()) -> Ix:
        key = (t, tuple(i.code for i in idx), tuple(v.code for v in valid))
        if key in self.cache:
            return self.cache[key]
        if t in self.bind:
            res = self.bind[t]
        elif self.P.t[t].ref is not None:
            res = self.load(t, idx, valid)
        else:
            res = self.node_value(self.P.node_of[t], idx, valid)
        self.cache[key] = res
        return res

    def load(self, t: str, idx, valid=()) -> Ix:
        if t in self.P.scalars:   # a number, passed by value
            return Ix(self.arg(f"{self.leaf(t)}_value", self.leaf(t)))
        off = self.offset_cl(self.P.t[t].shape, idx) if t in self.P.cl else self.offset(self.P.t[t].shape, idx)
        p = self.ptr(t)
        widen = ".to(tl.float32)" if self.P.t[t].dtype == "float16" else ""  # a torch-cl16 conv's output
        m = self.mask(off.axes, valid)
        if not off.axes:
            code = f"tl.load({p} + {off.code})" if off.code != "0" else f"tl.load({p})"
            return self.emit(code + widen, (), "c")
        other = ", other=0.0" if self.P.t[t].dtype in ("float32", "float16") else ""
        addr = f"{p} + {off.code}"
        return self.emit((f"tl.load({addr}, mask={m}{other})" if m else f"tl.load({addr})") + widen, off.axes,
                         self.st.var(self.P.t[t]))

    def node_value(self, n: dict, idx, valid) -> Ix:
        op, a, ins = n["op"], n["attrs"], n["inputs"]
        shape = n["shape"]

        def operand(i):
            src = self.P.t[i].shape
            r = len(src)
            sub = idx[len(idx) - r:] if r else []
            return self.value(i, [ZERO if s == 1 else j for s, j in zip(src, sub)], valid)

        if op == "full":   # a constant tensor made in forward
            return Ix(flt(a["value"]))
        if op == "product":   # an einsum step that sums nothing: operands indexed by their letters
            vals = []
            for i, letters in zip(ins, (a["x"], a["y"])):
                sub = [ZERO if s == 1 else idx[a["out"].index(c)] for c, s in zip(letters, self.P.t[i].shape)]
                vals.append(self.value(i, sub, valid))
            return self.emit(f"{par(vals[0].code)} * {par(vals[1].code)}", vals[0].axes | vals[1].axes, "y")
        if op in UNARY or op == "clamp" or op == "pow" or op in ("zeros_like",):
            x = operand(ins[0])
            if op == "zeros_like":
                return Ix("0.0")
            if op == "clamp":
                code = x.code
                if a.get("min") is not None:
                    code = f"tl.maximum({code}, {flt(a['min'])})"
                if a.get("max") is not None:
                    code = f"tl.minimum({code}, {flt(a['max'])})"
            elif op == "pow":
                e = float(a.get("exponent", 2.0))
                code = {2.0: "{x} * {x}", 3.0: "{x} * {x} * {x}", 0.5: "tl.sqrt({x})", 1.0: "{x}",
                        1.5: "{x} * tl.sqrt({x})", -1.0: "1.0 / {x}"}.get(e, f"tl.exp({flt(e)} * tl.log({{x}}))")
                code = code.format(x=x.code)
            elif op == "gelu" and a.get("approximate", "none") == "tanh":
                inner = f"0.7978845608028654 * ({x.code} + 0.044715 * {x.code} * {x.code} * {x.code})"
                code = f"0.5 * {x.code} * (2.0 - 2.0 / (tl.exp(2.0 * ({inner})) + 1.0))"
            else:
                fmt = {k: flt(a.get(k, v)) for k, v in UNARY_DEFAULTS.items()}
                code = UNARY[op].format(x=x.code, **fmt)
            return self.emit(code, x.axes, "y")
        if op == "compare_scalar":   # a bool mask (int1 in the kernel)
            x = operand(ins[0])
            return self.emit(f"{par(x.code)} {a['cmp']} {flt(a['value'])}", x.axes, "m")
        if op == "logical_not":
            x = operand(ins[0])
            return self.emit(f"{par(x.code)} == 0", x.axes, "m")
        if op == "masked_fill":
            x, m = operand(ins[0]), operand(ins[1])
            return self.emit(f"tl.where({par(m.code)} != 0, {flt(a['value'])}, {x.code})", x.axes | m.axes, "y")
        if op in SCALAR:
            x = operand(ins[0])
            v = flt(a["value"])
            code = f"{v} {SCALAR[op]} {x.code}" if a.get("reverse") else f"{x.code} {SCALAR[op]} {v}"
            return self.emit(code, x.axes, "y")
        if op in BINARY or op == "smooth_l1_loss":
            x, y = operand(ins[0]), operand(ins[1])
            if op == "smooth_l1_loss":
                b = float(a.get("beta", 1.0))
                d = self.emit(f"tl.abs({x.code} - {y.code})", x.axes | y.axes, "d")
                code = f"tl.where({d.code} < {flt(b)}, 0.5 * {d.code} * {d.code} / {flt(b)}, {d.code} - {flt(0.5 * b)})"
            else:
                code = BINARY[op].format(x=x.code, y=y.code)
            return self.emit(code, x.axes | y.axes, "y")
        if op in ("triu", "tril"):
            x = operand(ins[0])
            r, c = idx[-2], idx[-1]
            diag = int(a.get("diagonal", 0))
            cond = f"{c.code} - {r.code} >= {diag}" if op == "triu" else f"{c.code} - {r.code} <= {diag}"
            return self.emit(f"tl.where({cond}, {x.code}, 0.0)", x.axes | r.axes | c.axes, "y")
        src = self.P.t[ins[0]].shape
        if op == "flip":
            dims = [d % len(src) for d in (a["dims"] if isinstance(a["dims"], (list, tuple)) else [a["dims"]])]
            sub = [Ix(f"({bare(src[d] - 1)} - {i.code})", i.axes) if d in dims and src[d] != 1 else i
                   for d, i in enumerate(idx)]
            return self.value(ins[0], sub, valid)
        if op == "narrow":
            d = a["dim"] % len(src)
            sub = list(idx)
            if a["start"]:
                sub[d] = Ix(f"({idx[d].code} + {a['start']})", idx[d].axes)
            return self.value(ins[0], sub, valid)
        if op == "select":
            d = a["dim"] % len(src)
            i = a["index"] if a["index"] >= 0 else src[d] + a["index"]   # src[d] - 1 for -1: no literal size
            return self.value(ins[0], list(idx[:d]) + [Ix(str(i))] + list(idx[d:]), valid)
        if op == "flatten":
            s = a.get("start_dim", 1) % max(1, len(src))
            e = a.get("end_dim", -1) % max(1, len(src))
            inner = self.unravel(idx[s], src[s:e + 1]) if idx[s].code != "0" else [ZERO] * (e + 1 - s)
            return self.value(ins[0], list(idx[:s]) + inner + list(idx[s + 1:]), valid)
        if op == "index_select":   # out[..., i, ...] = x[..., index[i], ...] along dim, the index loaded
            d = a["dim"] % len(src)
            iv = self.value(ins[1], [idx[d]], valid)
            iv = self.emit(f"tl.where({iv.code} < 0, {iv.code} + {src[d]}, {iv.code})", iv.axes, "ix")  # x[-1]
            sub = list(idx)
            sub[d] = Ix(par(iv.code), iv.axes)
            return self.value(ins[0], sub, valid)
        if op == "roll":   # out[i] = x[(i - shift) mod n] along each rolled dim
            shifts, dims = a["shifts"], a.get("dims")
            shifts = shifts if isinstance(shifts, (list, tuple)) else [shifts]
            if dims is None:
                raise TeacherError("torch.roll without dims (a roll of the flattened tensor) is not supported")
            dims = dims if isinstance(dims, (list, tuple)) else [dims]
            sub = list(idx)
            for sh, d in zip(shifts, dims):
                d %= len(src)
                k = (-int(sh)) % int(src[d])
                if k:
                    sub[d] = Ix(f"(({idx[d].code} + {k}) % {src[d]})", idx[d].axes)
            return self.value(ins[0], sub, valid)
        if op == "pad":   # constant padding: (lo, hi) pairs from the last dim backwards
            pads = a["pad"]
            sub, inside = list(idx), []
            for k in range(len(pads) // 2):
                d = len(src) - 1 - k
                lo = pads[2 * k]
                if lo:
                    sub[d] = Ix(f"({idx[d].code} - {lo})", idx[d].axes)
                if lo > 0 or pads[2 * k + 1] > 0 or lo < 0:
                    inside.append(self.emit(f"(({sub[d].code} >= 0) & ({sub[d].code} < {src[d]}))", idx[d].axes,
                                            "inb"))
            if not inside:
                return self.value(ins[0], sub, valid)
            xv = self.value(ins[0], sub, tuple(valid) + tuple(inside))
            cond = " & ".join(i.code for i in inside)
            axes = frozenset().union(*(i.axes for i in inside))
            return self.emit(f"tl.where({cond}, {xv.code}, {flt(a['value'])})", xv.axes | axes, "y")
        if op == "cat" and len(ins) == 1:
            return self.value(ins[0], idx, valid)
        if op == "cat" and len(ins) == 2:
            d = a.get("dim", 0) % len(shape)
            sx = self.P.t[ins[0]].shape[d]
            first = self.emit(f"{idx[d].code} < {sx}", idx[d].axes, "first")
            second = self.emit(f"{idx[d].code} >= {sx}", idx[d].axes, "second")
            xv = self.value(ins[0], idx, tuple(valid) + (first,))
            sub = list(idx)
            sub[d] = Ix(f"({idx[d].code} - {sx})", idx[d].axes)
            yv = self.value(ins[1], sub, tuple(valid) + (second,))
            return self.emit(f"tl.where({first.code}, {xv.code}, {yv.code})", xv.axes | yv.axes | first.axes, "y")
        if op == "cat":   # any number of inputs (DenseNet's torch.cat(features, 1)): input k holds [lo_k, hi_k)
            d = a.get("dim", 0) % len(shape)
            lo, parts = 0, []
            for k, i in enumerate(ins):
                hi = lo + self.P.t[i].shape[d]
                conds = ([f"({idx[d].code} >= {lo})"] if k else []) + ([f"({idx[d].code} < {hi})"] if k < len(ins) - 1
                                                                        else [])
                inside = self.emit(" & ".join(conds), idx[d].axes, "part")
                sub = list(idx)
                if lo:
                    sub[d] = Ix(f"({idx[d].code} - {lo})", idx[d].axes)
                parts.append((inside, self.value(i, sub, tuple(valid) + (inside,))))
                lo = hi
            code = parts[-1][1].code
            axes = parts[-1][1].axes
            for inside, v in reversed(parts[:-1]):
                code = f"tl.where({inside.code}, {v.code}, {code})"
                axes = axes | v.axes | inside.axes
            return self.emit(code, axes, "y")
        raise TeacherError(f"no inline code for op {op}")

    def store(self, E: str, idx, val: Ix, mask_axes, atomic: bool = False) -> None:
        """tl.store of val at idx into E (out_ptr); atomic: tl.atomic_add into it instead (programs that each
        hold part of a sum, as split K's)."""
        off = self.offset(self.P.t[E].shape, idx, keep_unit=True)
        code = val.code
        if self.P.t[E].dtype == "int64":
            code = f"{code}.to(tl.int64)"
        m = self.mask(frozenset(mask_axes))
        ptr = f"out_ptr + {off.code}"
        if off.axes != frozenset(mask_axes):  # a size-1 dim dropped a tile axis: widen the pointer block
            ptr = f"tl.broadcast_to({ptr}, {TILE_SHAPES[''.join(sorted(mask_axes))]})"
        self.line(f"tl.{'atomic_add' if atomic else 'store'}({ptr}, {code}" + (f", mask={m})" if m else ")"))

    def epilogue(self, A: str | None, E: str, acc: Ix | None, idx) -> Ix:
        """Value of the region end E given the anchor's registers `acc` at output index idx (E's own
        buffer is being written, so E is computed, never loaded)."""
        self.cache.clear()
        if A is not None:
            self.bind[A] = acc
            if A == E:
                return acc
        return self.node_value(self.P.node_of[E], idx, ())


# --------------------------------------------------------------------------------------------------
# Style: seeded surface variation (names, block sizes within valid sets)
# --------------------------------------------------------------------------------------------------
class Style:
    """Harmless surface choices (names, block sizes) drawn from `seed`. `generic_names` names kernels
    `triton_kernel`, `triton_kernel_2`, ... instead of after their ops (teacher.py --style fixed): a tiny
    model trained from scratch then only has to get each op's arithmetic right, not copy names."""

    def __init__(self, seed: int, target: str, generic_names: bool = False, dot_precision: str = "ieee"):
        if dot_precision not in DOT_PRECISIONS:
            raise ValueError(f"dot_precision must be one of {DOT_PRECISIONS}, got {dot_precision!r}")
        self.rng = random.Random(f"teacher:{seed}")
        self.target, self.dot_precision = target, dot_precision
        self.suffix = self.rng.choice(["_kernel", "_kernel", "_fwd_kernel"])
        self.launch_prefix = self.rng.choice(["launch_", "run_", ""])
        self.generic_names = generic_names
        if generic_names:
            self.suffix, self.launch_prefix = "_kernel", "launch_"
        self.names = Counter()

    def var(self, t: TInfo) -> str:
        base = "".join(ch for ch in t.name if ch.isalpha())[:1] or "v"
        return base if base not in ("i", "t", "y", "d", "c") else "v"

    def kernel_name(self, parts: list[str]) -> str:
        base = "triton" if self.generic_names else "_".join(dict.fromkeys(p for p in parts if p))[:48] or "fused"
        self.names[base] += 1
        if self.names[base] > 1:
            base = f"{base}_{self.names[base]}"
        return base + self.suffix

    def wrapper_name(self, kname: str) -> str:
        base = kname[:-len(self.suffix)]
        # a module-level `sum` or `max` would shadow the builtin for cat_copy and for the task's constructor code
        return f"{self.launch_prefix or 'launch_'}{base}" if self.launch_prefix or base in PY_BUILTINS else base

    def block_1d(self, n: int, symbolic: bool = False) -> int:
        """A flat kernel's block for n elements; with symbolic sizes SYMBOLIC_BLOCK_1D, whatever n."""
        if symbolic:
            return SYMBOLIC_BLOCK_1D
        if self.target == "cpu":
            return min(npow2(n), self.rng.choice([8192, 16384]))
        block = min(max(npow2(n), 128), self.rng.choice([512, 1024, 1024, 2048]))
        # As rows and tiles below: two waves of programs on 132 SMs, down to 128 elements a program (a warp
        # group, one element per thread). A max_pool3d of 4,488 outputs with 64 loads each ran as 3 programs
        # of 2,048 (5x slower than eager on the H200).
        return halve_to_waves(block, n, 128)

    def row_blocks(self, n_rows: int, n_cols: int) -> tuple[int, int]:
        cap_cols = 4096 if self.target == "cpu" else self.rng.choice([1024, 2048])
        if self.target != "cpu" and n_cols <= ROW_TILE_MAX:
            # A row of up to ROW_TILE_MAX elements is one tile: loaded once, not once per pass of a looped
            # norm (three). 30 layer-norm rows of 3,476 ran in 2,048-wide passes at half torch.compile's speed.
            cap_cols = ROW_TILE_MAX
        bj = min(npow2(n_cols), cap_cols)
        tile = 16384 if self.target == "cpu" else 4096
        br = max(1, min(npow2(n_rows), tile // bj))
        if self.target != "cpu":
            # Fill the GPU first: rows per program drop until there are two waves of programs on an H200's 132
            # SMs (or one row each). With up to 64 rows a program, a batch norm over 4 channels ran as 2
            # programs and a 507-row instance norm as 8 (0.26x eager on the H200; the lab record).
            br = halve_to_waves(min(br, 64), n_rows, 1)
        return br, bj

    def strided_row_blocks(self, outer: int, n_cols: int, inner: int, passes: bool = False) -> tuple[int, int]:
        """k_rows' strided layout: BLOCK_ROWS adjacent rows (at least a warp's 32, for whole 128-byte reads),
        halved from 128 until two waves of programs; a column block filling a 4,096-element tile. passes: a row
        map that reads its rows more than once (softmax, norms): fewer rows, down to 32, so a row's columns fit
        one tile and are read once (13_ConvTranspose3d_Mean_Add_Softmax's softmax over 64 channels looped over
        two 32-column blocks twice: 1.04x -> 0.94x eager on the H200)."""
        br = min(npow2(inner), self.rng.choice([64, 128]))
        while br > STRIDED_INNER_MIN and -(-inner // br) * outer < WAVE_PROGRAMS:
            br //= 2
        if passes and npow2(n_cols) * br > 4096:
            br = max(STRIDED_INNER_MIN, 4096 // npow2(n_cols))
        return br, min(npow2(n_cols), 4096 // br)

    def split_k(self, M: int, N: int, K: int) -> tuple[int, int, int, int] | None:
        """GPU target: (BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K) for a GEMM of fewer 64 x 64 output tiles than two waves
        whose K is long enough that each of SPLIT_K programs still loops SPLIT_K_MIN_BLOCKS times; else None."""
        if self.target == "cpu":
            return None
        bm, bn, bk = min(64, max(16, npow2(M))), min(64, max(16, npow2(N))), 32
        tiles = -(-M // bm) * -(-N // bn)
        split = 1
        while tiles * split < WAVE_PROGRAMS and K >= bk * SPLIT_K_MIN_BLOCKS * split * 2:
            split *= 2
        return (bm, bn, bk, split) if split >= 4 else None

    def bf16x3_blocks(self, M: int, N: int, batch: int = 1) -> tuple[int, int, int, int, int]:
        """k_matmul_bf16x3's (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): BF16X3_TILE, halved (not below
        64 x 32, a warp group's wgmma) until two waves of programs; the CPU target's interpreter takes 64 x 64."""
        if self.target == "cpu":
            return min(max(16, npow2(M)), 64), min(max(16, npow2(N)), 64), 32, 4, 1
        bm, bn, bk, nw, ns = BF16X3_TILE
        bm, bn = min(bm, max(16, npow2(M))), min(bn, max(16, npow2(N)))
        while -(-M // bm) * -(-N // bn) * batch < WAVE_PROGRAMS:
            if bn > 32 and (bn >= bm or bm <= 64):
                bn //= 2
            elif bm > 64:
                bm //= 2
            else:
                break
        return bm, bn, bk, (nw if bm * bn >= 128 * 128 else 4), ns

    def mm_blocks(self, M: int, N: int, K: int, batch: int = 1) -> tuple[int, int, int, int]:
        if self.target == "cpu":
            bm = min(max(16, npow2(M)), 64)
            bn = min(max(16, npow2(N)), 64)
            bk = min(max(16, npow2(K)), 64)
            return bm, bn, bk, 4
        bm = min(max(16, npow2(M)), self.rng.choice([64, 128]))
        bn = min(max(16, npow2(N)), self.rng.choice([64, 128]))
        bk = min(max(16, npow2(K)), 32)
        # Small GEMMs (most KernelBench-size linears: M of 27-123) ran as 1-14 programs of 64x128 tiles on 132
        # SMs (linear 0.19x eager on the H200; the lab record): halve the larger tile side (tl.dot needs >= 16) until
        # there are two waves of programs.
        while -(-M // bm) * -(-N // bn) * batch < WAVE_PROGRAMS and max(bm, bn) > 16:
            if bn >= bm:
                bn //= 2
            else:
                bm //= 2
        return bm, bn, bk, 4 if bm * bn <= 4096 else 8


# --------------------------------------------------------------------------------------------------
# Kernel templates. Each returns a Kernel: source of the @triton.jit function and of its wrapper.
# --------------------------------------------------------------------------------------------------
@dataclass
class Kernel:
    name: str
    wrapper: str
    src: str
    wrapper_src: str
    leaf_refs: list
    out: str
    summary: str


def channels_last_format(ndim: int) -> str:
    """The torch memory format, as code, of a channels-last tensor of `ndim` dims (4: 2-D conv, 5: 3-D)."""
    return "torch.channels_last_3d" if ndim == 5 else "torch.channels_last"


def reads_channels_last(P: Prog, E: str) -> bool:
    """Whether the elementwise region ending at E is k_elementwise_cl's (heavy="torch-cl"): it loads a
    channels-last convolution output and no contiguous tensor of E's shape (which the tiles would read across
    the grain; k_elementwise then reads the channels-last one by its strides). KB.value's walk, where a tensor
    with a ref is loaded and any other is inlined from its node's inputs."""
    todo, seen, loads = list(P.node_of[E]["inputs"]), set(), set()
    while todo:
        t = todo.pop()
        if t in seen or t not in P.t:
            continue
        seen.add(t)
        if P.t[t].ref is None and t in P.node_of:
            todo += P.node_of[t]["inputs"]
        else:
            loads.add(t)
    full = {t for t in loads if t not in P.scalars and list(P.t[t].shape) == list(P.t[E].shape)}
    return bool(loads & P.cl) and full <= P.cl


def finish(kb: KB, E: str, grid: str, blocks: dict, summary: str, num_warps: int | None = None,
           pre: list[str] = (), zero_out: bool = False, channels_last_reader: bool = False,
           num_stages: int | None = None) -> Kernel:
    """Assemble kernel and wrapper sources; drops assignments nobody reads (no dead code). zero_out: the
    output starts as zeros (programs add into it). channels_last_reader: the kernel reads channels-last
    convolution outputs in tiles (k_elementwise_cl), True when it writes a contiguous output, the memory format
    (code) when it writes that format; any other kernel reads such an output by its strides (KB.offset_cl).
    Either way the wrapper makes sure the tensor is channels-last."""
    P = kb.P
    # a no-op for cuDNN's channels-last output; a backend that answered contiguous is made to fit the addressing
    pre = [f"{pn} = {pn}.contiguous(memory_format={channels_last_format(len(P.t[t].shape))})"
           for t, pn in kb.leaves.items() if t in P.cl] + list(pre)
    kb.out = E
    src, call = kernel_source(kb, blocks, "out")
    for attr in scalars_read(P, src):   # forward passes the module's scalars the kernel reads (NamedScalar)
        t = f"module_attr.{attr}"
        P.t.setdefault(t, TInfo(t, [], "attr", f"self.{attr}"))
        P.attrs[t] = "scalar"
        kb.leaf(t)
    out = P.t[E]
    wname = kb.st.wrapper_name(kb.name)
    leaf_names = list(kb.leaves.items())
    w = [f"def {wname}(" + ", ".join(pn for _, pn in leaf_names) + "):"]
    dtype = {"int64": "torch.int64", "bool": "torch.bool"}.get(out.dtype, "torch.float32")
    tensors = [(t, pn) for t, pn in leaf_names if t not in P.scalars and t not in P.attrs]
    same = [pn for t, pn in tensors if P.t[t].shape == out.shape and
            (P.t[t].dtype == out.dtype or (P.t[t].dtype, out.dtype) == ("float16", "float32"))]
    half = [pn for t, pn in tensors if P.t[t].dtype == "float16"]
    as_out = ", dtype=torch.float32" if same and same[0] in half else ""  # out of a torch-cl16 conv's shape
    dev = tensors[0][1] + ".device" if tensors else "'cuda'"
    alloc = "zeros" if zero_out else "empty"
    same_cl = [t for t, pn in tensors if pn in same[:1] and t in P.cl]
    if same and (channels_last_reader or same_cl):  # written contiguous, or channels-last (a format)
        layout = channels_last_reader if isinstance(channels_last_reader, str) else "torch.contiguous_format"
        w.append(f"    out = torch.{alloc}_like({same[0]}{as_out}, memory_format={layout})")
    elif same:
        w.append(f"    out = torch.{alloc}_like({same[0]}{as_out})")
    else:
        w.append(f"    out = torch.{alloc}({tuple(out.shape)!r}, device={dev}, dtype={dtype})")
    w += ["    " + s for s in pre]
    w.append(f"    grid = lambda meta: {grid}")
    if num_warps:
        call.append(f"num_warps={num_warps}")
    if num_stages:
        call.append(f"num_stages={num_stages}")
    w.append(f"    {kb.name}[grid](" + ", ".join(call) + ")")
    w.append("    return out")
    w[1:1] = ["    " + s for s in bind_sizes(P, leaf_names, sizes_used(P, w[1:]))]
    return Kernel(kb.name, wname, "\n".join(src), "\n".join(w), [P.t[t].ref for t, _ in leaf_names], E, summary)


INDEX_INT64_MIN = 2 ** 31  # a kernel touching a tensor of this many elements computes offsets in int64


def kernel_source(kb: KB, blocks: dict, out: str) -> tuple[list[str], list[str]]:
    """The @triton.jit source lines of kb (dead assignments dropped) and the launch's arguments, with `out`
    (a wrapper variable) for its out_ptr. A kernel that reads or writes a tensor of INDEX_INT64_MIN elements
    or more takes its program ids and aranges as int64 (KernelBench L1 45 pools a 4.3G-element input)."""
    P = kb.P
    body = dce(kb.lines)
    if any(prod(P.t[t].shape) >= INDEX_INT64_MIN for t in list(kb.leaves) + [kb.out] if t):
        # int32 offsets would overflow: program ids and aranges become int64, and with them every offset
        body = [re.sub(r"(tl\.(?:program_id|arange)\([^()]*\))", r"\1.to(tl.int64)", ln) for ln in body]
    ptrs = [p for p in kb.params if p[0].endswith("_ptr")]
    others = [p for p in kb.params if not p[0].endswith("_ptr")]
    sizes = sizes_used(P, body)   # --sizes symbolic: the size names the kernel reads, passed as constexprs
    sizes += scalars_read(P, body)   # and the module's scalars it reads (NamedScalar)
    sig = [p[0] for p in ptrs] + ["out_ptr"] + [p[0] for p in others if not p[2]] + \
          [f"{s}: tl.constexpr" for s in sizes] + \
          [f"{p[0]}: tl.constexpr" for p in others if p[2]] + [f"{b}: tl.constexpr" for b in blocks]
    src = ["@triton.jit", f"def {kb.name}(" + ", ".join(sig) + "):"] + body
    taken = {p[0] for p in kb.params} | {m.group(1) for ln in body
                                         for m in [re.match(r"\s*(?:for )?([A-Za-z_]\w*)", ln)] if m}
    if set(sizes) & taken:
        raise TeacherError(f"size names {sorted(set(sizes) & taken)} collide with kernel names (a teacher bug)")
    call = [p[1] for p in ptrs] + [out] + [p[1] for p in others if not p[2]] + list(sizes) + \
           [f"{p[0]}={p[1]}" for p in others if p[2]] + [f"{b}={v}" for b, v in blocks.items()]
    return src, call


def scalars_read(P: Prog, lines: list[str]) -> list[str]:
    """The module scalars (Prog.name_scalars) that the code reads."""
    words = {w for ln in lines for w in re.findall(r"(?<![.\w'\"])[A-Za-z_]\w*", ln)}
    return [s for s in P.scalar_attrs if s in words]


def sizes_used(P: Prog, lines: list[str]) -> list[str]:
    """The size names (--sizes symbolic) that the code reads, in naming order."""
    words = {w for ln in lines for w in re.findall(r"(?<![.\w'\"])[A-Za-z_]\w*", ln)}
    return [s for s in P.sizes if s in words]


def bind_sizes(P: Prog, leaf_names: list, needed: list[str]) -> list[str]:
    """Wrapper lines binding each needed size name from the shape of a tensor the wrapper receives
    (`batch_size, channels, length = in0.shape`); a name none of them has is bound to its value."""
    leaf_names = [(t, pn) for t, pn in leaf_names if t not in P.optional]   # None has no shape
    provided = {s.expr for t, _ in leaf_names for s in P.t[t].shape if isinstance(s, Sym) and s.op is None}
    needed = set(needed)
    for s in reversed(list(P.derived)):   # a derived size no tensor has needs the sizes of its definition
        if s in needed and s not in provided:
            needed |= set(sizes_used(P, [P.derived[s].expr]))
    lines, left = [], [s for s in P.sizes if s in needed]
    for t, pname in leaf_names:
        shape = P.t[t].shape
        targets = []
        for s in shape:
            take = isinstance(s, Sym) and s.op is None and s.expr in left
            targets.append(s.expr if take else "_")
            if take:
                left.remove(s.expr)
        if P.attrs.get(t) == "scalar":   # a module scalar the wrapper receives under its own name
            attr = t.split(".", 1)[1]
            if attr in left:
                left.remove(attr)
            if pname != attr:
                lines.append(f"{attr} = {pname}")
            continue
        if not any(x != "_" for x in targets):
            continue
        if P.attrs.get(t) == "int":   # a module's int attribute: `groups = conv2d_groups`
            lines.append(f"{targets[0]} = {pname}")
        elif t in P.attrs:            # a module's tuple attribute: `stride_h, stride_w = conv2d_stride`
            lines.append(f"{targets[0]} = {pname}[0]" if len(shape) == 1 else f"{', '.join(targets)} = {pname}")
        else:
            lines.append(f"{targets[0]} = {pname}.shape[0]" if len(shape) == 1 else
                         f"{', '.join(targets)} = {pname}.shape")
    return lines + [f"{s} = {P.derived[s].expr if s in P.derived else P.sizes[s]}" for s in left]


def dce(lines: list[str]) -> list[str]:
    lines = list(lines)
    while True:
        drop = None
        for i, ln in enumerate(lines):
            m = re.match(r"\s*([A-Za-z_]\w*) = ", ln)
            if not m:
                continue
            name = m.group(1)
            pat = re.compile(rf"\b{name}\b")
            if not any(pat.search(other) for j, other in enumerate(lines) if j != i):
                drop = i
                break
        if drop is None:
            return lines
        del lines[drop]


def region_ops(P: Prog, A, E) -> list[str]:
    """Op names of the fused region (for names and the summary)."""
    names = []
    order = [n["name"] for n in P.nodes]
    lo = order.index(A) if A else order.index(E)
    for n in P.nodes[lo:order.index(E) + 1]:
        if n["name"] == A or (P.kind(n["name"]) in ("pointwise",) and P.t[n["name"]].ref is None) or n["name"] == E:
            names.append(n["op"].replace("_scalar", ""))
    return names


def k_elementwise(P: Prog, st: Style, E: str) -> Kernel:
    out = P.t[E]
    ops = region_ops(P, None, E)
    kb = KB(P, st, st.kernel_name(["fused"] + ops[-3:] if len(ops) > 1 else ops))
    n = max(1, prod(out.shape))
    BLOCK = st.block_1d(n, P.symbolic)
    kb.line("pid = tl.program_id(0)")
    kb.line("offs = pid * BLOCK + tl.arange(0, BLOCK)")
    kb.line("mask = offs < n_elements")
    kb.masks["o"] = "mask"
    kb.arg("n_elements", "out.numel()")
    offs = Ix("offs", frozenset("o"))
    idx = kb.unravel(offs, out.shape)
    kb.flat = (tuple(i.code for i in idx), list(out.shape), offs)
    val = kb.epilogue(None, E, None, idx)
    if not val.axes:
        val = kb.emit(f"tl.zeros([BLOCK], dtype=tl.float32) + {val.code}", "o", "y")
    kb.store(E, idx, val, "o")
    return finish(kb, E, "(triton.cdiv(n_elements, meta['BLOCK']),)".replace("n_elements", "out.numel()"),
                  {"BLOCK": BLOCK}, "elementwise " + " + ".join(ops))


def k_elementwise_cl(P: Prog, st: Style, E: str) -> Kernel:
    """The elementwise region ending at E over a channels-last convolution output (heavy="torch-cl"): 2-D
    tiles of (spatial positions x channels) per sample, read channels-last (contiguous along channels) and
    written contiguous (along the spatial positions), so both sides are coalesced and the layout change costs no
    extra pass; per-channel parameters are one vector load a tile. Where E is the task's output it is written
    channels-last, as read: the same values and shape, the layout torch.compile returns (an earlier run's sweep:
    1_Conv2D_ReLU_BiasAdd's hybrid-cl took 2.73 ms against compile's 1.62 and the channels-last conv's 1.61)."""
    out = P.t[E]
    S = list(out.shape)
    if P.symbolic or len(S) not in (4, 5):
        raise TeacherError("heavy='torch-cl': literal sizes and 4-D/5-D epilogues only")
    N, C, sp = S[0], S[1], S[2:]
    HW = prod(sp)
    ops = region_ops(P, None, E)
    kb = KB(P, st, st.kernel_name(["fused"] + ops[-3:] if len(ops) > 1 else ops))
    BHW, BC = 64, max(16, min(64, npow2(C)))
    n_hw = -(-HW // BHW)
    kb.line("pid = tl.program_id(0)")
    kb.line("pid_c = tl.program_id(1)")
    kb.line(f"n = pid // {n_hw}")
    kb.line(f"hw = (pid % {n_hw}) * BLOCK_HW + tl.arange(0, BLOCK_HW)")
    kb.line("ch = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)")
    kb.line(f"mask_hw = hw[:, None] < {HW}")
    kb.line(f"mask_c = ch[None, :] < {C}")
    kb.masks["h"], kb.masks["c"] = "mask_hw", "mask_c"
    idx = [Ix("n"), Ix("ch[None, :]", frozenset("c"))] + kb.unravel(Ix("hw[:, None]", frozenset("h")), sp, "s")
    # every full-size tensor this region reads at idx is channels-last: (n, position, channel) in memory
    kb.flat = (tuple(i.code for i in idx), S, Ix(f"n * {HW * C} + hw[:, None] * {C} + ch[None, :]", frozenset("ch")))
    kb.flat_cl = True
    val = kb.epilogue(None, E, None, idx)
    cl_out = E == P.output  # the task's output is written channels-last as read (what torch.compile returns);
    if not cl_out:          # a tensor the forward goes on with is written contiguous, as views and kernels read it
        kb.flat, kb.flat_cl = None, False
    if not val.axes:
        val = kb.emit(f"tl.zeros([BLOCK_HW, BLOCK_C], dtype=tl.float32) + {val.code}", "ch", "y")
    kb.store(E, idx, val, "ch")
    for t in kb.leaves:
        if t not in P.scalars and t not in P.attrs and list(P.t[t].shape) == S and t not in P.cl:
            raise TeacherError("heavy='torch-cl': the epilogue also reads a full-size contiguous tensor")
    return finish(kb, E, f"({N} * triton.cdiv({HW}, meta['BLOCK_HW']), triton.cdiv({C}, meta['BLOCK_C']))",
                  {"BLOCK_HW": BHW, "BLOCK_C": BC}, "channels-last elementwise " + " + ".join(ops),
                  channels_last_reader=channels_last_format(len(S)) if cl_out else True)


# ---- row kernels: reductions, scans, softmax-likes, norms, cross entropy --------------------------
def row_geometry(P: Prog, n: dict):
    """(input tensor, n_rows, n_cols, index builder, output index builder, affine) for a row op."""
    op, a = n["op"], n["attrs"]
    x = n["inputs"][0]
    S = P.t[x].shape
    r = len(S)
    if op in ("layer_norm", "rms_norm"):
        nd = len(n["module_args"]["normalized_shape"]) if n.get("module_args") else 1
        red = list(range(r - nd, r))
    elif op == "group_norm":
        G = n["module_args"]["num_groups"]
        N, C = S[0], S[1]
        Psp = prod(S[2:])
        Cg = C // G

        def build(kb, rows, cols):
            nn_ = kb.emit(f"{rows.code} // {G}", rows.axes, "n") if N > 1 else ZERO
            g = kb.emit(f"{rows.code} % {G}", rows.axes, "g") if G > 1 else ZERO
            cl = kb.emit(f"{cols.code} // {Psp}", cols.axes, "cl") if Cg > 1 else ZERO
            sp = kb.unravel(kb.emit(f"{cols.code} % {Psp}", cols.axes, "sp"), S[2:]) if Psp > 1 else [ZERO] * (r - 2)
            c = kb.emit(f"{g.code} * {Cg} + {cl.code}", g.axes | cl.axes, "ch") if C > 1 else ZERO
            return [nn_, c] + sp, {"channel": c}
        # a group's channels are adjacent: row n * G + g is the flat run at row * (Cg * Psp), so x and the output
        # are read and written at `rows * n_cols + cols` (the channel index stays, for the affine only)
        return x, N * G, Cg * Psp, build, True
    elif op.startswith("batch_norm"):
        N, C = S[0], S[1]
        Psp = prod(S[2:])

        def build(kb, rows, cols):
            nn_ = kb.emit(f"{cols.code} // {Psp}", cols.axes, "n") if (N > 1 and Psp > 1) else (cols if N > 1 else ZERO)
            sp = kb.unravel(kb.emit(f"{cols.code} % {Psp}", cols.axes, "sp") if N > 1 else cols, S[2:]) \
                if Psp > 1 else [ZERO] * (r - 2)  # (N, C, 1): the unit length dim still needs an index
            return [nn_, rows if C > 1 else ZERO] + sp, {"channel": rows if C > 1 else ZERO}
        return x, C, N * Psp, build, False
    elif op.startswith("instance_norm"):
        N, C = S[0], S[1]
        Psp = prod(S[2:])

        def build(kb, rows, cols):
            nn_ = kb.emit(f"{rows.code} // {C}", rows.axes, "n") if N > 1 else ZERO
            c = kb.emit(f"{rows.code} % {C}", rows.axes, "ch") if C > 1 else ZERO
            return [nn_, c] + kb.unravel(cols, S[2:]), {"channel": c}
        return x, N * C, Psp, build, True   # row n * C + c is the flat run at row * Psp
    elif op == "ce_row":
        red = [1]
    elif op == "rsum":
        red = sorted(d % max(1, r) for d in a["dims"]) if r else []
    else:
        dim = a.get("dim")
        if dim is None:
            red = list(range(r))
        else:
            red = sorted({d % r for d in (dim if isinstance(dim, (list, tuple)) else [dim])})
    keep = [d for d in range(r) if d not in red]
    rshape = [S[d] for d in keep]
    cshape = [S[d] for d in red]

    def build(kb, rows, cols):
        ri = kb.unravel(rows, rshape, "r")
        ci = kb.unravel(cols, cshape, "j")
        idx = [None] * r
        for d, i in zip(keep, ri):
            idx[d] = i
        for d, i in zip(red, ci):
            idx[d] = i
        return idx, {"cols": ci}
    contiguous = red == list(range(r - len(red), r))
    return x, prod(rshape), prod(cshape), build, contiguous


STRIDED_INNER_MIN = 32  # GPU target: a reduction over middle dims with this many elements after them runs strided


def strided_split(P: Prog, n: dict):
    """(outer, reduced, inner) element counts when a row op of row_geometry's generic kind reduces one run of
    adjacent middle dims (torch.sum(x, dim=1) of (B, R, I)), else None. Its column elements are `inner` apart."""
    op, a = n["op"], n["attrs"]
    if op in ("layer_norm", "rms_norm", "group_norm", "ce_row", "rsum") or \
            op.startswith(("batch_norm", "instance_norm")):
        return None
    S = P.t[n["inputs"][0]].shape
    r = len(S)
    dim = a.get("dim")
    if dim is None or not r:
        return None
    red = sorted({d % r for d in (dim if isinstance(dim, (list, tuple)) else [dim])})
    if red != list(range(red[0], red[-1] + 1)) or red[-1] == r - 1:
        return None
    return prod(S[:red[0]]), prod(S[red[0]:red[-1] + 1]), prod(S[red[-1] + 1:])


REDUCE_NEUTRAL = {"amax": "float('-inf')", "amin": "float('inf')", "argmax": "float('-inf')",
                  "argmin": "float('inf')", "logsumexp": "float('-inf')", "softmax": "float('-inf')",
                  "log_softmax": "float('-inf')", "ce_row": "float('-inf')", "cumprod": "1.0"}


def max_sumexp_init(kb: KB, zeros: str) -> None:
    """Running row max m = -inf and sum s = 0 before a looped online max/sum-of-exp pass."""
    kb.line("m = tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)")
    kb.line(f"s = {zeros}")


def max_sumexp_update(kb: KB, v: str, loop: bool) -> None:
    """Row max m and sum s of exp(v - m) (softmax, log_softmax, logsumexp, cross-entropy): rescaled online
    per tile when the row is looped over, in one pass otherwise."""
    if loop:
        kb.line(f"m_new = tl.maximum(m, tl.max({v}, axis=1, keep_dims=True))")
        kb.line(f"s = s * tl.exp(m - m_new) + tl.sum(tl.exp({v} - m_new), axis=1, keep_dims=True)")
        kb.line("m = m_new")
    else:
        kb.line(f"m = tl.max({v}, axis=1, keep_dims=True)")
        kb.line(f"s = tl.sum(tl.exp({v} - m), axis=1, keep_dims=True)")


def norm_affine(P: Prog, n: dict, S) -> dict:
    """{"weight": tensor, "bias": tensor} of a norm module's affine parameters (those it has), registered in
    the tensor table; {} for a functional norm. S: the normalised input's shape."""
    if not n.get("module"):
        return {}
    op, margs = n["op"], n.get("module_args") or {}
    has_w = margs.get("elementwise_affine", margs.get("affine", not op.startswith("instance_norm")))
    has_b = has_w and margs.get("bias", True) and op != "rms_norm"
    affine = {}
    for nm, ok in (("weight", has_w), ("bias", has_b)):
        if ok:
            tname = f"{n['module']}.{nm}"
            if tname not in P.t:
                shp = S[len(S) - len(margs["normalized_shape"]):] if op in ("layer_norm", "rms_norm") else [S[1]]
                P.t[tname] = TInfo(tname, shp, "float32", f"{module_ref(n['module'])}.{nm}")
            affine[nm] = tname
    return affine


def apply_affine(kb: KB, y: Ix, affine: dict, aidx: list) -> Ix:
    """y * weight + bias, the parameters indexed at aidx (the channel, or the normalised dims)."""
    code = y.code
    if "weight" in affine:
        code = f"{code} * {kb.value(affine['weight'], aidx).code}"
    if "bias" in affine:
        code = f"{code} + {kb.value(affine['bias'], aidx).code}"
    return kb.emit(code, "rj", "y")


SDPA_FUSED_MAX_D = 256   # attention with a larger head dim is lowered to GEMM, softmax, GEMM (Prog._lower)
SPLIT_K_MIN_BLOCKS = 64  # GPU target: a split-K program loops over at least this many blocks of K
# k_matmul_bf16x3's tile on the GPU target: (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages); the bf16 hi and lo
# tiles of A and B take 64 KB of shared memory a stage
BF16X3_TILE = (128, 128, 64, 8, 3)
GROUP_M = 8  # k_matmul_bf16x3 visits output tiles in groups of this many tile rows (their B tiles shared in L2)
# k_conv's tile where K runs (kernel offset, channel) (GPU target): BLOCK_M output pixels (halved to 64 for two waves
# of programs), BLOCK_N output channels (at most), BLOCK_K channels (at most Cg), num_warps, num_stages
CONV_TILE = (128, 128, 32, 8, 3)
CONV_TAP_MAJOR = True  # False: every convolution's K in (channel, offset) order, as on the CPU target (an ablation)
CONV_ROW_TILE = True   # False: a flat block of output positions a program, as on the CPU target (an ablation)
SPLIT_SUM_MIN = 8192  # GPU: a sum of everything over more elements than this is split over programs
SPLIT_NORM_MIN = 8192  # GPU: a batch norm over more elements per channel (a layer or group norm: per row, in fewer
                       # than WAVE_PROGRAMS rows) than this is split over programs
SPLIT_NORM_LONG_ROW = 1 << 17  # GPU: ... and a group norm over this many elements per row, however many rows
SPLIT_BLOCK = 1024     # elements per program of the split kernels
ROW_TILE_MAX = 8192    # GPU target: rows up to this many elements are one tile (16 warps over 8,192)
SYMBOLIC_ROW_BLOCK = 128  # symbolic sizes: the widest column block of a (then always looped) row kernel
# Symbolic sizes: a flat (elementwise or pooled) kernel's block, whatever the validation size. Its launcher runs at
# any size, and a model copies the block it was shown: sized to a few hundred validation elements (the CPU target's
# next power of two), it ran KernelBench level 1's elementwise tasks at 0.40x eager (BLOCK=128) or 0.79x (256).
# 1,024 is the GPU target's common choice.
SYMBOLIC_BLOCK_1D = 1024


class RowTiles:
    """The column blocks of a row kernel's rows: each block's load (prologue fused, lanes outside the rows
    set to the op's neutral value), and a body run over all of them: one straight block when a row fits in
    BLOCK_COLS, a `for start in range(0, n_cols, BLOCK_COLS)` loop otherwise."""

    zeros = "tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)"  # a [BLOCK_ROWS, 1] accumulator

    def __init__(self, kb: KB, x: str, S, build, flat: str | None, loop: bool, neutral: str):
        self.kb, self.x, self.S, self.build, self.flat = kb, x, S, build, flat   # flat: the tile's offset code
        self.loop, self.neutral = loop, neutral
        self.rows = Ix("rows", frozenset("r"))
        self.single = None   # the one block of a row that is not looped over, emitted once

    def tile(self, start: str):
        """Emit the column block starting at `start`; returns (masked value, idx, cols Ix, extra)."""
        kb = self.kb
        kb.cache.clear()
        kb.line(f"cols = {start} + tl.arange(0, BLOCK_COLS)[None, :]" if start != "0" else
                "cols = tl.arange(0, BLOCK_COLS)[None, :]")
        kb.line("col_mask = cols < n_cols")
        cols = Ix("cols", frozenset("j"))
        idx, extra = self.build(kb, self.rows, cols)
        kb.flat = (tuple(i.code for i in idx), list(self.S), Ix(self.flat, frozenset("rj"))) if self.flat else None
        v = kb.value(self.x, idx)
        v = kb.emit(f"tl.where(row_mask & col_mask, {v.code}, {self.neutral})", "rj", "x")
        return v, idx, cols, extra

    def single_tile(self):
        """The row's only block (no loop), emitted on first use and shared by every pass."""
        if self.single is None:
            self.single = self.tile("0")
        return self.single

    def loop_over(self, body):
        """Run body(tile...) over all column blocks: one straight block or a for loop."""
        kb = self.kb
        if not self.loop:
            return body(*self.single_tile())
        kb.line("for start in range(0, n_cols, BLOCK_COLS):")
        kb.ind += 1
        res = body(*self.tile("start"))
        kb.ind -= 1
        kb.cache.clear()
        return res

    def row_sum(self, var: str, term):
        """`var` = the row sums of term(tile value code): accumulated over the column blocks, or one tl.sum."""
        kb = self.kb
        if self.loop:
            kb.line(f"{var} = {self.zeros}")
            self.loop_over(lambda v, *_: kb.line(f"{var} += tl.sum({term(v.code)}, axis=1, keep_dims=True)"))
        else:
            kb.line(f"{var} = tl.sum({term(self.single_tile()[0].code)}, axis=1, keep_dims=True)")


ROW_REDUCTIONS = ("sum", "mean", "norm", "rsum", "var", "amax", "amin", "argmax", "argmin", "logsumexp", "ce_row")


def k_rows(P: Prog, st: Style, A: str, E: str) -> Kernel:
    """A row kernel: BLOCK_ROWS rows per program, each row's columns in one block or a loop over blocks.
    Reductions (ROW_REDUCTIONS) write one value per row; row maps (softmax-likes, norms, scans) write every
    element. A large sum of everything, a large batch norm and a layer or group norm of few or (group norm) very
    long rows go to the split kernels instead."""
    n = P.node_of[A]
    op = n["op"]
    if reduces_module_dim(P, n, E):
        return k_reduce_dim(P, st, A, E)
    x, n_rows, n_cols, build, contiguous = row_geometry(P, n)
    if st.target != "cpu" and A == E and n_rows == 1 and n_cols > SPLIT_SUM_MIN and op in ("sum", "mean", "rsum") \
            and P.t[E].dtype == "float32":
        return k_sum_split(P, st, A, E, x, n_cols, build, contiguous)
    if st.target != "cpu" and n_cols > SPLIT_NORM_MIN and \
            (op.startswith("batch_norm") or (op == "layer_norm" and n_rows < WAVE_PROGRAMS)
             or (op == "group_norm" and (n_rows < WAVE_PROGRAMS or n_cols >= SPLIT_NORM_LONG_ROW))):
        return k_norm_split(P, st, A, E, x, n_rows, n_cols, build, contiguous is True)
    S = P.t[x].shape
    ops = region_ops(P, A, E)
    kb = KB(P, st, st.kernel_name(ops[:3] if len(ops) > 1 else [op.replace("ce_row", "cross_entropy_row")]))
    split = strided_split(P, n) if st.target != "cpu" and not contiguous else None
    if split and (split[2] < STRIDED_INNER_MIN or split[0] > 65535
                  or -(-split[2] // STRIDED_INNER_MIN) * split[0] < SM_COUNT):
        split = None
    if split:
        # Reduced elements `inner` apart (torch.sum(x, dim=1) of (B, R, I)): one row per program read each
        # column I elements from the last, 32 bytes moved per 4 used (KernelBench L1 47-53 at 0.15-0.20x eager).
        # Here a program takes BLOCK_ROWS adjacent rows of one outer index (a 2-D grid), so a tile's rows are
        # adjacent in memory and each column block is one coalesced read.
        outer, _, inner = split
        BR, BJ = st.strided_row_blocks(outer, n_cols, inner, passes=op not in ROW_REDUCTIONS)
        kb.arg("n_inner", bare(inner))
        kb.line("pid = tl.program_id(0)")
        kb.line("pid_outer = tl.program_id(1)")
        kb.line("inner = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]")
        kb.line("row_mask = inner < n_inner")
        kb.line("rows = pid_outer * n_inner + inner")
        flat = f"pid_outer * {bare(n_cols * inner)} + cols * n_inner + inner"
        grid = f"(triton.cdiv({bare(inner)}, meta['BLOCK_ROWS']), {bare(outer)})"
    else:
        BR, BJ = st.row_blocks(n_rows, n_cols)
        kb.arg("n_rows", bare(n_rows))
        kb.line("pid = tl.program_id(0)")
        kb.line("rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]")
        kb.line("row_mask = rows < n_rows")
        flat = "rows * n_cols + cols" if contiguous is True else None
        grid = f"(triton.cdiv({bare(n_rows)}, meta['BLOCK_ROWS']),)"
    if P.symbolic:
        # Symbolic sizes (the pipeline's SFT pairs) always loop over a row's column blocks of at most
        # SYMBOLIC_ROW_BLOCK: the one-block form (BLOCK_COLS = next_power_of_2(n_cols)), all a model saw of
        # training's short rows, does not compile at KernelBench's lengths (23_Softmax: 393,216 columns, a
        # 4M-element block), while a looped row is right at any length
        BJ = min(BJ, SYMBOLIC_ROW_BLOCK)
    loop = n_cols > BJ or P.symbolic
    kb.arg("n_cols", bare(n_cols))
    kb.masks["r"] = "row_mask"
    kb.masks["j"] = "col_mask"
    tiles = RowTiles(kb, x, S, build, flat, loop, REDUCE_NEUTRAL.get(op, "0.0"))
    if op in ROW_REDUCTIONS:
        store_row_result(P, kb, A, E, tiles.rows, row_reduction(kb, tiles, n, n_cols))
    else:
        # row maps: statistics first (if any), then a pass that writes every element
        kind = synth.OPS[op].kind if op in synth.OPS else op
        affine = norm_affine(P, n, S) if kind == "norm" else {}
        write = row_map_stats(kb, tiles, n, kind, n_cols)
        row_map_write(kb, tiles, A, E, op, write, affine)
    # a single-block row (literal sizes; symbolic rows loop) needs BLOCK_COLS >= n_cols
    blocks = {"BLOCK_ROWS": BR, "BLOCK_COLS": BJ if loop else covering_block(n_cols, BJ)}
    nw = None if st.target == "cpu" else (4 if BR * BJ <= 2048 else 8 if BR * BJ <= 4096 else 16)
    return finish(kb, E, grid, blocks, f"row kernel {' + '.join(ops)}" + (" (strided rows)" if split else ""), nw)


def reduces_module_dim(P: Prog, n: dict, E: str) -> bool:
    """Whether node n is a reduction of a forward input over a dim the module holds (Prog.dim_attrs), the one
    node of its op, with nothing fused after it (but the values of torch.max(x, dim)[0]): k_reduce_dim's case."""
    op, a = n["op"], n["attrs"]
    values = P.node_of[E]["op"] == "identity" and P.node_of[E]["inputs"] == [n["name"]]
    return op in P.dim_attrs and (n["name"] == E or values) and isinstance(a.get("dim"), int) and \
        n["inputs"][0] in P.input_names and n["inputs"][0] not in P.scalars and \
        sum(m["op"] == op for m in P.nodes) == 1


def k_reduce_dim(P: Prog, st: Style, A: str, E: str) -> Kernel:
    """A reduction over the dim the module holds (`torch.sum(x, dim=self.dim)`, symbolic sizes): forward passes
    `self.dim` and the wrapper works out (n_rows, n_cols, n_inner) from the input's shape at that dim, so the
    answer reads the same for every dim a task's constructor may be given. Row r of the kernel is output r:
    outer index r // n_inner, inner index r % n_inner, its elements n_inner apart (adjacent rows are adjacent
    in memory, so a column block is one coalesced read; n_inner = 1 for the last dim)."""
    n = P.node_of[A]
    op, a = n["op"], n["attrs"]
    x = n["inputs"][0]
    S = P.t[x].shape
    d = a["dim"] % len(S)
    n_cols, inner = int(S[d]), int(prod(S[d + 1:]))
    n_rows = int(prod(S)) // max(1, n_cols)
    kb = KB(P, st, st.kernel_name([op]))
    if inner > 1 and st.target != "cpu":
        BR, BJ = st.strided_row_blocks(n_rows // inner, n_cols, inner)
    else:
        BR, BJ = st.row_blocks(n_rows, n_cols)
    BJ = min(BJ, SYMBOLIC_ROW_BLOCK)
    for name in ("n_rows", "n_cols", "n_inner"):
        kb.arg(name, name)
    kb.line("pid = tl.program_id(0)")
    kb.line("rows = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]")
    kb.line("row_mask = rows < n_rows")
    kb.line("outer = rows // n_inner")
    kb.line("inner = rows % n_inner")
    kb.masks["r"], kb.masks["j"] = "row_mask", "col_mask"
    tiles = RowTiles(kb, x, S, lambda kb_, r, c: ([r, c], {}), "outer * (n_cols * n_inner) + cols * n_inner + inner",
                     True, REDUCE_NEUTRAL.get(op, "0.0"))
    res = kb.emit(row_reduction(kb, tiles, n, Sym(n_cols, "n_cols")), "r", "res")
    kb.cache.clear()
    int64 = P.t[E].dtype == "int64"
    kb.line(f"tl.store(out_ptr + rows, {res.code}{'.to(tl.int64)' if int64 else ''}, mask=row_mask)")
    kb.out = E
    blocks = {"BLOCK_ROWS": BR, "BLOCK_COLS": BJ}
    src, call = kernel_source(kb, blocks, "out")
    attr = P.dim_attrs[op]
    xp = kb.leaf(x)
    wname = st.wrapper_name(kb.name)
    kept = "(1,) + " if a.get("keepdim") else ""
    warps = [] if st.target == "cpu" else [f"num_warps={4 if BR * BJ <= 2048 else 8}"]
    w = [f"def {wname}({xp}, dim):",
         f"    dim = dim % {xp}.dim()",
         f"    n_cols = {xp}.shape[dim]",
         f"    n_inner = {xp}.stride(dim)   # the elements after the reduced dim ({xp} is contiguous)",
         f"    n_rows = {xp}.numel() // n_cols",
         f"    out = torch.empty({xp}.shape[:dim] + {kept}{xp}.shape[dim + 1:], device={xp}.device, "
         f"dtype={'torch.int64' if int64 else 'torch.float32'})",
         "    grid = lambda meta: (triton.cdiv(n_rows, meta['BLOCK_ROWS']),)",
         f"    {kb.name}[grid](" + ", ".join(call + warps) + ")",
         "    return out"]
    return Kernel(kb.name, wname, "\n".join(src), "\n".join(w), [P.t[x].ref, f"self.{attr}"], E,
                  f"row kernel {op} over self.{attr}")


def row_reduction(kb: KB, t: RowTiles, n: dict, n_cols) -> str:
    """Emit the passes of a row reduction (ROW_REDUCTIONS) over the row's blocks; returns the code of its
    [BLOCK_ROWS, 1] result."""
    op, a = n["op"], n["attrs"]
    loop, zeros = t.loop, t.zeros
    if op == "norm":
        if a.get("p", 2.0) not in (2.0, 2, "fro", None):
            raise TeacherError(f"norm with p={a.get('p')!r}")
        # scaled by the row's max |x| as torch does, so squares of large values do not overflow
        if loop:
            kb.line(f"amax = {zeros}")
            t.loop_over(lambda v, *_: kb.line(f"amax = tl.maximum(amax, tl.max(tl.abs({v.code}), axis=1, keep_dims=True))"))
        else:
            kb.line(f"amax = tl.max(tl.abs({t.single_tile()[0].code}), axis=1, keep_dims=True)")
        kb.line("scale = tl.where(amax > 0.0, amax, 1.0)")
        t.row_sum("acc", lambda c: f"({c} / scale) * ({c} / scale)")
        return "scale * tl.sqrt(acc)"
    if op in ("sum", "mean", "rsum", "var"):
        if op == "var":
            corr = a.get("correction", 1 if a.get("unbiased", True) else 0)
            row_mean_m2(kb, t, n_cols)
            return f"m2 / {max(1, n_cols - corr)}" if n_cols - corr > 0 else "m2 / 0.0"
        t.row_sum("acc", lambda c: c)
        if op == "mean":
            return f"acc / {n_cols}"
        if op == "rsum":
            return "acc" if a["count"] == 1 else mean_of("acc", a["count"])
        return "acc"
    if op in ("amax", "amin"):
        f = "max" if op == "amax" else "min"
        if loop:
            kb.line(f"acc = tl.full([BLOCK_ROWS, 1], {t.neutral}, tl.float32)")
            t.loop_over(lambda v, *_: kb.line(f"acc = tl.{f}imum(acc, tl.{f}({v.code}, axis=1, keep_dims=True))"))
            return "acc"
        return f"tl.{f}({t.single_tile()[0].code}, axis=1, keep_dims=True)"
    if op in ("argmax", "argmin"):
        f, cmp = ("max", ">") if op == "argmax" else ("min", "<")

        def body(v, idx, cols, extra):
            kb.line(f"blk = tl.{f}({v.code}, axis=1, keep_dims=True)")
            kb.line(f"blk_idx = tl.min(tl.where({v.code} == blk, cols, n_cols), axis=1, keep_dims=True)")
            if loop:
                kb.line(f"take = blk {cmp} best")
                kb.line("best_idx = tl.where(take, blk_idx, best_idx)")
                kb.line("best = tl.where(take, blk, best)")
        if loop:
            kb.line(f"best = tl.full([BLOCK_ROWS, 1], {t.neutral}, tl.float32)")
            kb.line("best_idx = tl.zeros([BLOCK_ROWS, 1], dtype=tl.int32)")
            t.loop_over(body)
            return "best_idx"
        body(*t.single_tile())
        return "blk_idx"
    # logsumexp, ce_row: online max and sum of exponentials
    ce = op == "ce_row"
    if ce:
        kb.line(f"target = tl.load({kb.ptr(n['inputs'][1])} + rows, mask=row_mask, other=0)")

    def body(v, idx, cols, extra):
        max_sumexp_update(kb, v.code, loop)
        if ce:
            upd = f"tl.sum(tl.where(cols == target, {v.code}, 0.0), axis=1, keep_dims=True)"
            kb.line(f"picked += {upd}" if loop else f"picked = {upd}")
    if loop:
        max_sumexp_init(kb, zeros)
        if ce:
            kb.line(f"picked = {zeros}")
        t.loop_over(body)
    else:
        body(*t.single_tile())
    return "m + tl.log(s)" + (" - picked" if ce else "")


def row_mean_m2(kb: KB, t: RowTiles, n_cols) -> None:
    """mean and m2 (the sum of squared deviations from it) of each row. One block: the mean, then the squares
    of the block held in registers. Looped: one pass that merges each block's count, mean and m2 into the
    running ones (Chan et al.'s pairwise update, as stable as two passes), where a pass for the mean and a
    second for m2 read a looped row twice before the norm's writing pass reads it a third time."""
    if not t.loop:
        v = t.single_tile()[0]
        kb.line(f"mean = tl.sum({v.code}, axis=1, keep_dims=True) / {n_cols}")
        kb.line(f"diff = tl.where(row_mask & col_mask, {v.code} - mean, 0.0)")
        kb.line("m2 = tl.sum(diff * diff, axis=1, keep_dims=True)")
        return
    kb.line(f"mean = {t.zeros}")
    kb.line(f"m2 = {t.zeros}")

    def body(v, *_):
        kb.line("cnt = start * 1.0")                                  # elements merged so far (every row)
        kb.line("nb = tl.minimum(n_cols - start, BLOCK_COLS) * 1.0")  # this block's
        kb.line(f"mb = tl.sum({v.code}, axis=1, keep_dims=True) / nb")
        kb.line(f"db = tl.where(row_mask & col_mask, {v.code} - mb, 0.0)")
        kb.line("delta = mb - mean")
        kb.line("mean += delta * (nb / (cnt + nb))")
        kb.line("m2 += tl.sum(db * db, axis=1, keep_dims=True) + delta * delta * (cnt * nb / (cnt + nb))")
    t.loop_over(body)


def store_row_result(P: Prog, kb: KB, A: str, E: str, rows: Ix, res: str) -> None:
    """The reduction epilogue: one value per row, stored at the row's place in the (contiguous) output."""
    r_ = kb.emit(res, "r", "res")
    kb.cache.clear()
    kb.flat = None
    out_idx = kb.unravel(rows, P.t[A].shape, "o") if P.t[A].shape else []
    val = kb.epilogue(A, E, r_, out_idx)
    kb.line(f"tl.store(out_ptr + rows, {val.code}{'.to(tl.int64)' if P.t[E].dtype == 'int64' else ''}, mask=row_mask)")


def row_map_stats(kb: KB, t: RowTiles, n: dict, kind: str, n_cols):
    """Emit a row map's statistics pass(es) (row max and sum of exps, sum of squares, mean and variance);
    returns write(v, idx, extra) -> the code of an output element, or None for the scans (their write pass
    computes them)."""
    op, margs = n["op"], n.get("module_args") or {}
    if op in ("softmax", "log_softmax"):
        def body(v, *_):
            max_sumexp_update(kb, v.code, t.loop)
        if t.loop:
            max_sumexp_init(kb, t.zeros)
        t.loop_over(body)
        return (lambda v, idx, ex: f"tl.exp({v.code} - m) / s") if op == "softmax" else \
            (lambda v, idx, ex: f"{v.code} - m - tl.log(s)")
    if op == "l2_normalize" or op == "rms_norm":
        t.row_sum("ss", lambda c: f"{c} * {c}")
        if op == "l2_normalize":
            kb.line("inv = 1.0 / tl.maximum(tl.sqrt(ss), 1e-12)")
        else:
            kb.line(f"inv = tl.rsqrt(ss / {n_cols} + {flt(margs.get('eps') or 1.1920928955078125e-07)})")
        return lambda v, idx, ex: f"{v.code} * inv"
    if kind == "norm":
        row_mean_m2(kb, t, n_cols)
        eps = float(margs.get("eps") or 1e-5)
        kb.line(f"rstd = tl.rsqrt(m2 / {n_cols} + {flt(eps)})")
        return lambda v, idx, ex: f"({v.code} - mean) * rstd"
    return None


def row_map_write(kb: KB, t: RowTiles, A: str, E: str, op: str, write, affine: dict) -> None:
    """The pass that writes every element of a row map: write(...) of each tile (scans write as they go,
    carrying the running sum/product across blocks), the norm's affine, the region's epilogue, the store."""
    loop = t.loop

    def wbody(v, idx, cols, extra):
        if op == "cumsum":
            y = kb.emit(f"tl.cumsum({v.code}, axis=1)" + (" + carry" if loop else ""), "rj", "y")
            if loop:
                kb.line(f"carry += tl.sum({v.code}, axis=1, keep_dims=True)")
        elif op == "cumprod":
            y = kb.emit(f"tl.cumprod({v.code}, axis=1)" + (" * carry" if loop else ""), "rj", "y")
            if loop:
                kb.line(f"carry = tl.sum(tl.where(tl.arange(0, BLOCK_COLS)[None, :] == BLOCK_COLS - 1, {y.code}, 0.0), axis=1, keep_dims=True)")
        else:
            y = kb.emit(write(v, idx, extra), "rj", "y")
        if affine:
            y = apply_affine(kb, y, affine, extra["cols"] if op in ("layer_norm", "rms_norm") else [extra["channel"]])
        saved = dict(kb.cache)
        val = kb.epilogue(A, E, y, idx)
        kb.cache = saved
        kb.store(E, idx, val, "rj")
    if op in ("cumsum", "cumprod") and loop:
        kb.line(f"carry = {t.zeros}" if op == "cumsum" else "carry = tl.full([BLOCK_ROWS, 1], 1.0, tl.float32)")
    t.loop_over(wbody)


def k_sum_split(P: Prog, st: Style, A: str, E: str, x: str, n_cols, build, contiguous) -> Kernel:
    """A sum (or mean, or a loss's reduction) of every element, over many programs: each sums its block
    (prologue fused) and adds its share into the zeroed output with tl.atomic_add. One program per row, the
    row kernel's way, gave a 200k-element mse_loss one program on the whole GPU."""
    n = P.node_of[A]
    op, a = n["op"], n["attrs"]
    ops = region_ops(P, A, E)
    kb = KB(P, st, st.kernel_name(ops[:3] if len(ops) > 1 else [op]))
    kb.arg("n_elements", bare(n_cols))
    kb.masks["j"] = "mask"
    kb.line("pid = tl.program_id(0)")
    kb.line("offs = pid * BLOCK + tl.arange(0, BLOCK)")
    kb.line("mask = offs < n_elements")
    idx, _ = build(kb, ZERO, Ix("offs", frozenset("j")))
    if contiguous is True:  # x itself is read at offs (other leaves of its shape too), not through the unravel
        kb.flat = (tuple(i.code for i in idx), list(P.t[x].shape), Ix("offs", frozenset("j")))
    v = kb.value(x, idx)
    kb.line(f"part = tl.sum(tl.where(mask, {v.code}, 0.0), axis=0)")
    count = n_cols if op == "mean" else (a.get("count", 1) if op == "rsum" else 1)
    kb.line(f"tl.atomic_add(out_ptr, {'part' if count == 1 else mean_of('part', count)})")
    return finish(kb, E, f"(triton.cdiv({bare(n_cols)}, meta['BLOCK']),)", {"BLOCK": SPLIT_BLOCK},
                  f"split sum {' + '.join(ops)}", 4, zero_out=True)


def k_norm_split(P: Prog, st: Style, A: str, E: str, x: str, n_rows, n_cols, build, contiguous=False) -> Kernel:
    """A batch norm (batch statistics) over many elements per channel, or a layer norm of few long rows, on a
    program per (channel or row, block of SPLIT_BLOCK elements): a statistics kernel stores each block's mean and
    sum of squared deviations, a moments kernel (a program per row) merges them into mean and rstd (the pairwise
    formula of Chan et al.: stable where E[x^2] - E[x]^2 is not), then the normalising kernel, over the same
    blocks, writes its block with the affine and the fused epilogue. The row kernel's one program per row ran a
    4-channel batch norm on 4 of 132 SMs, and KernelBench L1 40's layer norm (16 rows of 4.2M elements) on 16
    (6.5 ms; torch.compile 0.32 ms). Group norms too (a row: one group of one sample, its channels adjacent): L2
    60's 512 rows of 492k elements took 3.2 ms on a program per row, where the conv before it took 3.8 ms."""
    n = P.node_of[A]
    ops = region_ops(P, A, E)
    margs = n.get("module_args") or {}
    eps = float(margs.get("eps") or 1e-5)
    n_blocks = (n_cols + (SPLIT_BLOCK - 1)) // SPLIT_BLOCK     # a Sym expression with symbolic sizes
    blocks_code = f"triton.cdiv({bare(n_cols)}, {SPLIT_BLOCK})"  # the same count, computed by the wrapper
    grid = f"({bare(n_rows)}, {blocks_code})"

    def block(kb):
        """The block's x values (prologue fused), zero outside the channel's n_cols elements."""
        kb.arg("n_cols", bare(n_cols))
        kb.masks["j"] = "col_mask"
        kb.line("rows = tl.program_id(0) + tl.arange(0, 1)[:, None]")   # the channel, as a [1, 1] tile
        kb.line("blk = tl.program_id(1)")
        kb.line("cols = blk * BLOCK_COLS + tl.arange(0, BLOCK_COLS)[None, :]")
        kb.line("col_mask = cols < n_cols")
        idx, extra = build(kb, Ix("rows", frozenset("r")), Ix("cols", frozenset("j")))
        if contiguous:   # a layer norm's row is one run: x and the output at rows * n_cols + cols
            kb.flat = (tuple(i.code for i in idx), list(P.t[x].shape), Ix("rows * n_cols + cols", frozenset("rj")))
        return idx, extra, kb.emit(f"tl.where(col_mask, {kb.value(x, idx).code}, 0.0)", "rj", "x")

    stats = KB(P, st, st.kernel_name(ops[:2] + ["stats"]))
    _, _, v = block(stats)
    stats.line("cnt = tl.sum(col_mask.to(tl.float32), axis=1, keep_dims=True)")
    stats.line(f"mu = tl.sum({v.code}, axis=1, keep_dims=True) / cnt")
    stats.line(f"d = tl.where(col_mask, {v.code} - mu, 0.0)")
    stats.line("slot = (rows * tl.num_programs(1) + blk) * 2")
    stats.line("tl.store(out_ptr + slot, mu)")
    stats.line("tl.store(out_ptr + slot + 1, tl.sum(d * d, axis=1, keep_dims=True))")
    stats_src, stats_call = kernel_source(stats, {"BLOCK_COLS": SPLIT_BLOCK}, "stats")

    # One program per channel merges its block statistics into mean and rstd. Merged inside the normalising
    # kernel instead (every program repeating it), the [1, BLOCK_S] merge beside the [1, BLOCK_COLS] block took
    # that kernel to 255 registers on sm_90 (ptxas), against 64 this way: occupancy a memory-bound kernel needs.
    mom = KB(P, st, st.kernel_name(ops[:2] + ["moments"]))
    mom.arg("stats_ptr", "stats")
    mom.arg("n_cols", bare(n_cols))
    mom.arg("n_blocks", blocks_code)
    mom.line("rows = tl.program_id(0) + tl.arange(0, 1)[:, None]")
    mom.line("s = tl.arange(0, BLOCK_S)[None, :]")
    mom.line("s_ok = s < n_blocks")
    mom.line("cnt = tl.where(s_ok, tl.minimum(n_cols - s * BLOCK_COLS, BLOCK_COLS), 0).to(tl.float32)")
    mom.line("mus = tl.load(stats_ptr + (rows * n_blocks + s) * 2, mask=s_ok, other=0.0)")
    mom.line("m2s = tl.load(stats_ptr + (rows * n_blocks + s) * 2 + 1, mask=s_ok, other=0.0)")
    mom.line(f"mean = tl.sum(cnt * mus, axis=1, keep_dims=True) / {n_cols}")
    mom.line("m2 = tl.sum(m2s + cnt * (mus - mean) * (mus - mean), axis=1, keep_dims=True)")
    mom.line("tl.store(out_ptr + rows * 2, mean)")
    mom.line(f"tl.store(out_ptr + rows * 2 + 1, tl.rsqrt(m2 / {n_cols} + {flt(eps)}))")
    mom_src, mom_call = kernel_source(mom, {"BLOCK_COLS": SPLIT_BLOCK,
                                            "BLOCK_S": covering_block(n_blocks, max(2, npow2(n_blocks)))}, "moments")

    kb = KB(P, st, st.kernel_name(ops[:3]))
    idx, extra, v = block(kb)
    kb.arg("moments_ptr", "moments")
    kb.line("mean = tl.load(moments_ptr + rows * 2)")
    kb.line("rstd = tl.load(moments_ptr + rows * 2 + 1)")
    y = kb.emit(f"({v.code} - mean) * rstd", "rj", "y")
    affine = norm_affine(P, n, P.t[x].shape)
    if affine:
        y = apply_affine(kb, y, affine, extra["cols"] if n["op"] == "layer_norm" else [extra["channel"]])
    kb.store(E, idx, kb.epilogue(A, E, y, idx), "rj")
    dev = f"{next(iter(stats.leaves.values()))}.device"
    pre = [f"stats = torch.empty(({bare(n_rows)}, {blocks_code}, 2), device={dev}, dtype=torch.float32)",
           f"{stats.name}[{grid}](" + ", ".join(stats_call) + ", num_warps=4)",
           f"moments = torch.empty(({bare(n_rows)}, 2), device={dev}, dtype=torch.float32)",
           f"{mom.name}[({bare(n_rows)},)](" + ", ".join(mom_call) + ", num_warps=4)"]
    k = finish(kb, E, grid, {"BLOCK_COLS": SPLIT_BLOCK}, f"split norm {' + '.join(ops)}", 4, pre=pre)
    k.src = "\n".join(stats_src + ["", ""] + mom_src) + "\n\n\n" + k.src
    return k


# ---- tiled tl.dot: matmul, linear, bmm, einsum ---------------------------------------------------
def gemm_tile(kb: KB, M: int, N: int, K: int, axis2: str | None, row_len: int | None = None,
              grouped: bool = False):
    """The tile prologue shared by the tl.dot kernels (matmul and implicit-GEMM conv): sizes, program ids
    (a third grid axis named `axis2` for batch or group), row/column offsets and masks. row_len (k_conv's row
    tiles): the BLOCK_M rows are adjacent positions of one output row of row_len positions, program id 0 is (row,
    block of the row) and `row` the row's index, so addresses along M are a scalar plus tl.arange. grouped
    (k_matmul_bf16x3): program id 0 runs over all output tiles, GROUP_M tile rows at a time (a group's B tiles
    are shared in L2), and `axis2` is program id 1."""
    if row_len is None:
        kb.arg("M", bare(M))
    kb.arg("N", bare(N))
    kb.arg("K", bare(K))
    if grouped:
        kb.line("pid = tl.program_id(0)")
        kb.line("tiles_m = tl.cdiv(M, BLOCK_M)")
        kb.line("tiles_n = tl.cdiv(N, BLOCK_N)")
        kb.line("group_start = (pid // (GROUP_M * tiles_n)) * GROUP_M")
        kb.line("group_rows = tl.minimum(tiles_m - group_start, GROUP_M)")
        kb.line("pid_m = group_start + (pid % (GROUP_M * tiles_n)) % group_rows")
        kb.line("pid_n = (pid % (GROUP_M * tiles_n)) // group_rows")
    else:
        kb.line("pid_m = tl.program_id(0)")
        kb.line("pid_n = tl.program_id(1)")
    third = ZERO
    if axis2:
        kb.line(f"{axis2} = tl.program_id({1 if grouped else 2})")
        third = Ix(axis2)
    if row_len is None:
        m = Ix("offs_m", frozenset("m"))
        kb.line("offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]")
    else:
        m = Ix("offs_w", frozenset("m"))
        kb.line(f"row = pid_m // triton.cdiv({row_len}, BLOCK_M)")
        kb.line(f"offs_w = (pid_m % triton.cdiv({row_len}, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]")
    kb.line("offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]")
    kb.line(f"mask_m = {m.code} < {'M' if row_len is None else row_len}")
    kb.line("mask_n = offs_n < N")
    kb.masks.update(m="mask_m", n="mask_n", a="mask_ka", b="mask_kb")
    return m, Ix("offs_n", frozenset("n")), third


def dot_code(a: str, b: str, st: Style) -> str:
    prec = "tf32x3" if st.dot_precision == "bf16x3" else st.dot_precision   # bf16x3 is k_matmul_bf16x3's own
    return f"tl.dot({a}, {b}, input_precision=\"{prec}\")"


def contraction(P: Prog, n: dict, xs, ys, out_shape):
    """A matmul of any ranks (torch.matmul's batch broadcasting) or an einsum as one batched GEMM: the
    output's dims split into batch dims (in x, y and the output), M dims (x only) and N dims (y only); the
    K dims are in x and y but not the output. Each group is flattened (B, M, N, K) and unravelled back into
    the operands' dims in the kernel (`A (b, i, j, l) @ B (l, k)` is one GEMM with M = b * i * j). A size-1
    dim of an operand reads index 0 (broadcasting). Returns (B, M, K, N, a_idx, b_idx, o_idx)."""
    op = n["op"]
    if op == "matmul":
        if len(xs) < 2 or len(ys) < 2:
            raise TeacherError("matmul with a 1-D operand is not supported")
        r = len(out_shape)
        batch = "abcdefgh"[:r - 2]
        xl = batch[len(batch) - (len(xs) - 2):] + "mk"
        yl = batch[len(batch) - (len(ys) - 2):] + "kn"
        ol = batch + "mn"
    else:
        eq = n["attrs"]["equation"].replace(" ", "")
        m_ = re.fullmatch(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]*)", eq)
        if not m_:
            raise TeacherError(f"einsum {eq!r} is not supported (two operands, no ellipsis)")
        xl, yl, ol = m_.groups()
        if any(len(set(t)) != len(t) for t in (xl, yl, ol)) or set(ol) - set(xl + yl) or \
                (set(xl) ^ set(yl)) - set(ol):
            raise TeacherError(f"einsum {eq!r} is not supported (repeated or summed-out single-operand letters)")
    size = {}
    for letters, shape in ((xl, xs), (yl, ys), (ol, out_shape)):
        if len(letters) != len(shape):
            raise TeacherError(f"{op}: operand ranks do not match {xl},{yl}->{ol}")
        for c, v in zip(letters, shape):
            if v != 1 or c not in size:
                size[c] = v
    bl = [c for c in ol if c in xl and c in yl]
    ml = [c for c in ol if c in xl and c not in yl]
    nl = [c for c in ol if c in yl and c not in xl]
    kl = [c for c in xl if c in yl and c not in ol]
    if not kl:
        raise TeacherError(f"{op}: no contracted dim")
    B, M, N, K = (prod(size[c] for c in g) for g in (bl, ml, nl, kl))

    def index(kb, letters, shape, groups):
        got = {}
        for flat, g, hint in groups:
            for c, i in zip(g, kb.unravel(flat, [size[c] for c in g], hint) if g else []):
                got[c] = i
        return [ZERO if s == 1 else got[c] for c, s in zip(letters, shape)]
    a_idx = lambda kb, m, k, b: index(kb, xl, xs, [(b, bl, "b"), (m, ml, "m"), (k, kl, "k")])
    b_idx = lambda kb, k, nn_, b: index(kb, yl, ys, [(b, bl, "b"), (k, kl, "k"), (nn_, nl, "n")])
    o_idx = lambda kb, m, nn_, b: index(kb, ol, out_shape, [(b, bl, "b"), (m, ml, "m"), (nn_, nl, "n")])
    return B, M, K, N, a_idx, b_idx, o_idx


def gemm_k_loop(kb: KB, split) -> None:
    """Open a GEMM's loop over blocks of K (with split K, this program's every SPLIT_K-th block), with the block's
    K offsets for the A tile (offs_ka, a row) and the B tile (offs_kb, a column); the caller closes it."""
    kb.line("acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)")
    kb.line("for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):" if split else "for k0 in range(0, K, BLOCK_K):")
    kb.ind += 1
    kb.line("offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]")
    kb.line("offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]")


def gemm_store(kb: KB, A: str, E: str, o_idx, tile: tuple, bias: str | None, split) -> None:
    """Close a GEMM's K loop and write its tile: the bias (with split K, added by the first split only), the fused
    epilogue, and a store (split K: an atomic add into the zeroed output) at o_idx(kb, *tile), tile = (rows,
    columns, batch) Ixs; the output index is built after the loop, so its unravelling is not in the loop body."""
    kb.ind -= 1
    kb.cache.clear()
    kb.flat = None
    oidx, n_ix = o_idx(kb, *tile), tile[1]
    acc = Ix("acc", frozenset("mn"))
    if bias:
        b_ = kb.value(bias, [n_ix]).code
        acc = kb.emit(f"acc + tl.where(pid_k == 0, {b_}, 0.0)" if split else f"acc + {b_}", "mn", "acc")
    kb.store(E, oidx, kb.epilogue(A, E, acc, oidx), "mn", atomic=bool(split))


def k_matmul(P: Prog, st: Style, A: str, E: str) -> Kernel:
    n = P.node_of[A]
    op = n["op"]
    ops = region_ops(P, A, E)
    kb = KB(P, st, st.kernel_name(ops[:3]))
    x = n["inputs"][0]
    xs = P.t[x].shape
    out_shape = P.t[A].shape
    bias = None
    if op == "linear":
        margs = n.get("module_args") or {}
        mref = module_ref(n["module"])
        wname = f"{n['module']}.weight"
        K, N = xs[-1], out_shape[-1]
        P.t.setdefault(wname, TInfo(wname, [N, K], "float32", f"{mref}.weight"))
        if margs.get("bias", True):
            bias = f"{n['module']}.bias"
            P.t.setdefault(bias, TInfo(bias, [N], "float32", f"{mref}.bias"))
        B, M = 1, prod(xs[:-1])
        lead = xs[:-1]
        a_idx = lambda kb, m, k, b: kb.unravel(m, lead, "m") + [k]
        b_idx = lambda kb, k, nn_, b: [nn_, k]
        o_idx = lambda kb, m, nn_, b: kb.unravel(m, lead, "m") + [nn_]
        y = wname
    else:
        y = n["inputs"][1]
        ys = P.t[y].shape
        eq = n["attrs"].get("equation", "bij,bjk->bik").replace(" ", "")
        if (op == "matmul" and (len(xs) != 2 or len(ys) != 2)) or \
                (op == "einsum" and eq not in ("bij,bjk->bik", "bij,jk->bik")):
            B, M, K, N, a_idx, b_idx, o_idx = contraction(P, n, xs, ys, out_shape)
        elif op == "matmul" or (op == "einsum" and eq == "bij,jk->bik"):
            K, N = xs[-1], ys[1]   # K named after x (ys[0] has the same value)
            B, M = 1, prod(xs[:-1])
            lead = xs[:-1]
            a_idx = lambda kb, m, k, b: kb.unravel(m, lead, "m") + [k]
            o_idx = lambda kb, m, nn_, b: kb.unravel(m, lead, "m") + [nn_]
            b_idx = lambda kb, k, nn_, b: [k, nn_]
        else:
            B, M, K = xs
            N = ys[2]
            a_idx = lambda kb, m, k, b: [b, m, k]
            o_idx = lambda kb, m, nn_, b: [b, m, nn_]
            b_idx = lambda kb, k, nn_, b: [b, k, nn_]
    split = st.split_k(M, N, K) if B == 1 and A == E and P.t[E].dtype == "float32" else None
    if st.dot_precision == "bf16x3":
        return k_matmul_bf16x3(P, st, kb, A, E, (x, y), (B, M, K, N), (a_idx, b_idx, o_idx), bias, split, ops)
    if split:
        # Few output tiles over a long K (KernelBench L1 6: 256 x 256 over K = 524,288 ran as 256 16 x 16 tiles,
        # 0.22x eager): 64 x 64 tiles, each K split over SPLIT_K programs (a third grid axis) that take every
        # SPLIT_K-th block of K and add their partial tile into the zeroed output.
        BM, BN, BK, nw = split[0], split[1], split[2], 4
    else:
        BM, BN, BK, nw = st.mm_blocks(M, N, K, batch=B)
    m_ix, n_ix, bvar = gemm_tile(kb, M, N, K, "pid_b" if B > 1 else "pid_k" if split else None)
    if split:
        bvar = ZERO
    gemm_k_loop(kb, split)
    kb.line("mask_ka = offs_ka < K")
    kb.line("mask_kb = offs_kb < K")
    av = kb.value(x, a_idx(kb, m_ix, Ix("offs_ka", frozenset("a")), bvar))
    # a prologue (log, rsqrt, ...) of the zeros in masked lanes can be inf: zero the lanes before tl.dot
    if av.axes != frozenset("ma") or P.t[x].ref is None:
        av = kb.emit(f"tl.where(mask_m & mask_ka, {av.code}, 0.0)", "ma", "a")
    bv = kb.value(y, b_idx(kb, Ix("offs_kb", frozenset("b")), n_ix, bvar))
    if bv.axes != frozenset("bn") or P.t[y].ref is None:
        bv = kb.emit(f"tl.where(mask_kb & mask_n, {bv.code}, 0.0)", "bn", "b")
    kb.line(f"acc += {dot_code(av.code, bv.code, st)}")
    gemm_store(kb, A, E, o_idx, (m_ix, n_ix, bvar), bias, split)
    grid = f"(triton.cdiv({bare(M)}, meta['BLOCK_M']), triton.cdiv({bare(N)}, meta['BLOCK_N'])" + \
        (f", {bare(B)})" if B > 1 else ", meta['SPLIT_K'])" if split else ")")
    blocks = {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK} | ({"SPLIT_K": split[3]} if split else {})
    return finish(kb, E, grid, blocks, f"tl.dot {' + '.join(ops)}" + (" (split K)" if split else ""),
                  None if st.target == "cpu" else nw, zero_out=bool(split))


def bf16_split_kernel(P: Prog, st: Style, main: KB, t: str, shape: list, index, hint: str):
    """k_matmul_bf16x3's split of GEMM operand t (its prologue inlined) into two bf16 tensors of `shape` ([batch,
    rows, cols], the GEMM's layout), hi = bf16(v) and lo = bf16(v - hi), one pass over the operand. index(kb, r,
    c, b) gives t's index of element (b, r, c). Returns (kernel source lines, wrapper lines that allocate hi and lo
    and launch it); the kernel takes its tensors under `main`'s parameter names."""
    kb = KB(P, st, st.kernel_name([hint, "split_bf16"]))
    kb.leaves = main.leaves   # one set of wrapper parameter names for the GEMM and its split kernels
    n = prod(shape)
    block = st.block_1d(n)
    kb.arg("n_elements", str(n))
    kb.line("pid = tl.program_id(0)")
    kb.line("offs = pid * BLOCK + tl.arange(0, BLOCK)")
    kb.line("mask = offs < n_elements")
    kb.masks["o"] = "mask"
    b, r, c = kb.unravel(Ix("offs", frozenset("o")), shape, "s")
    v = kb.value(t, index(kb, r, c, b))
    kb.arg("lo_ptr", f"{hint}_lo")
    kb.line(f"hi = ({v.code}).to(tl.bfloat16)")
    kb.line("tl.store(out_ptr + offs, hi, mask=mask)")
    kb.line(f"tl.store(lo_ptr + offs, ({v.code} - hi.to(tl.float32)).to(tl.bfloat16), mask=mask)")
    src, call = kernel_source(kb, {"BLOCK": block}, f"{hint}_hi")
    dev = next(p[1] for p in kb.params if p[0].endswith("_ptr") and p[0] != "lo_ptr")
    pre = [f"{hint}_hi = torch.empty({tuple(shape)!r}, device={dev}.device, dtype=torch.bfloat16)",
           f"{hint}_lo = torch.empty_like({hint}_hi)",
           f"{kb.name}[(triton.cdiv({n}, {block}),)](" + ", ".join(call) + (", num_warps=4)" if st.target != "cpu"
                                                                          else ")")]
    return src, pre


def k_matmul_bf16x3(P: Prog, st: Style, kb: KB, A: str, E: str, xy, dims, idxs, bias, split, ops) -> Kernel:
    """A GEMM on the bf16 tensor cores at fp32-level error (dot_precision "bf16x3"). Split kernels write
    each operand once, its prologue applied, as bf16 hi + lo (bf16_split_kernel) in the order the operand is stored
    in, so the split reads it in order: A as [batch, M, K], or [batch, K, M] where M is its innermost dim; B as
    [batch, K, N], or [batch, N, K] where K is (a linear's weight, the K of q @ k^T); an operand whose index does
    not depend on the batch is written once. Per block of K the kernel adds hi*lo, lo*hi and hi*hi (small terms
    first) into the fp32 accumulator; lo*lo, about 2^-16 of each product, is left out. cuBLAS's fp32 GEMM (eager
    PyTorch: no TF32 for matmul) runs on the FMA units at a fraction of the tensor cores' rate: 1.06-3.64x eager on
    level 1's GEMMs (H200). Output tiles are visited GROUP_M tile rows at a time (a 1-D grid),
    so a group's B tiles are read from L2; a second grid axis takes the batch or split K's slices."""
    if P.symbolic:
        raise TeacherError("dot_precision='bf16x3': literal sizes only")
    x, y = xy
    B, M, K, N = dims
    if min(M, N) < 16:
        # a matrix-vector product reads each element of the matrix once for 2 FLOPs: memory-bound, and the split's
        # extra pass over it (read 4 bytes, write 4) would cost more than the dot saves
        raise TeacherError("dot_precision='bf16x3': a GEMM with fewer than 16 rows or columns (memory-bound)")
    a_idx, b_idx, o_idx = idxs
    # which dims an operand's index depends on, and which one its innermost (stored) dim is
    probe, g = KB(P, st, "probe"), Ix("g", frozenset("g"))
    a_probe = a_idx(probe, Ix("m", frozenset("m")), Ix("k", frozenset("k")), g)
    b_probe = b_idx(probe, Ix("k", frozenset("k")), Ix("n", frozenset("n")), g)
    a_batched = B > 1 and any("g" in i.axes for i in a_probe)
    b_batched = B > 1 and any("g" in i.axes for i in b_probe)
    a_km = "m" in a_probe[-1].axes and "k" not in a_probe[-1].axes
    b_nk = "k" in b_probe[-1].axes and "n" not in b_probe[-1].axes
    ba, bb = B if a_batched else 1, B if b_batched else 1
    a_src, a_pre = (bf16_split_kernel(P, st, kb, x, [ba, K, M], lambda k_, r, c, b: a_idx(k_, c, r, b), "a")
                    if a_km else bf16_split_kernel(P, st, kb, x, [ba, M, K], a_idx, "a"))
    b_src, b_pre = (bf16_split_kernel(P, st, kb, y, [bb, N, K], lambda k_, r, c, b: b_idx(k_, c, r, b), "b")
                    if b_nk else bf16_split_kernel(P, st, kb, y, [bb, K, N], b_idx, "b"))
    if split:
        BM, BN, BK, nw, ns = split[0], split[1], split[2], 4, 3
    else:
        BM, BN, BK, nw, ns = st.bf16x3_blocks(M, N, B)
    for name, wexpr in (("a_hi_ptr", "a_hi"), ("a_lo_ptr", "a_lo"), ("b_hi_ptr", "b_hi"), ("b_lo_ptr", "b_lo")):
        kb.arg(name, wexpr)
    m_ix, n_ix, bvar = gemm_tile(kb, M, N, K, "pid_k" if split else "pid_b" if B > 1 else None, grouped=True)
    if split:
        bvar = ZERO
    a_base = "pid_b * (M * K) + " if a_batched else ""
    b_base = "pid_b * (K * N) + " if b_batched else ""
    a_off = "offs_ka * M + offs_m" if a_km else "offs_m * K + offs_ka"
    b_off = "offs_n * K + offs_kb" if b_nk else "offs_kb * N + offs_n"
    gemm_k_loop(kb, split)
    kb.line("mask_a = mask_m & (offs_ka < K)")
    kb.line("mask_b = (offs_kb < K) & mask_n")
    kb.line(f"a_off = {a_base}{a_off}")
    kb.line(f"b_off = {b_base}{b_off}")
    for t in ("a_hi", "a_lo"):
        kb.line(f"{t} = tl.load({t}_ptr + a_off, mask=mask_a, other=0.0)")
    for t in ("b_hi", "b_lo"):
        kb.line(f"{t} = tl.load({t}_ptr + b_off, mask=mask_b, other=0.0)")
    kb.line("acc = tl.dot(a_hi, b_lo, acc)")
    kb.line("acc = tl.dot(a_lo, b_hi, acc)")
    kb.line("acc = tl.dot(a_hi, b_hi, acc)")
    gemm_store(kb, A, E, o_idx, (m_ix, n_ix, bvar), bias, split)
    tiles = f"triton.cdiv({bare(M)}, meta['BLOCK_M']) * triton.cdiv({bare(N)}, meta['BLOCK_N'])"
    grid = f"({tiles}, meta['SPLIT_K'])" if split else f"({tiles}, {bare(B)})" if B > 1 else f"({tiles},)"
    blocks = {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK, "GROUP_M": GROUP_M} | ({"SPLIT_K": split[3]} if split else {})
    cpu = st.target == "cpu"
    k = finish(kb, E, grid, blocks, f"bf16x3 tl.dot {' + '.join(ops)}" + (" (split K)" if split else ""),
               None if cpu else nw, pre=a_pre + b_pre, zero_out=bool(split), num_stages=None if cpu else ns)
    k.src = "\n".join(a_src + ["", ""] + b_src) + "\n\n\n" + k.src
    return k


# ---- convolutions as implicit GEMM ---------------------------------------------------------------
def bind_module_attrs(kb: KB, n: dict) -> None:
    """Make the named attributes of node n's module (Prog.conv_geometry, Prog.pool_geometry) leaves of kb: forward
    passes `self.conv2d.stride` and the wrapper unpacks it (bind_sizes)."""
    P = kb.P
    for attr, names in P.attr_syms.get(n["name"], ((), {}))[1].items():
        t = f"{n['module']}.{attr}"
        P.t.setdefault(t, TInfo(t, names if isinstance(names, list) else [names], "attr",
                                f"{module_ref(n['module'])}.{attr}"))
        P.attrs[t] = "tuple" if isinstance(names, list) else "int"
        kb.leaf(t)


def shown(v, neutral: int) -> bool:
    """Whether a conv attribute enters the index code: a name always, a number unless it is neutral."""
    return isinstance(v, Sym) or v != neutral


def conv_geometry(n: dict, d: int):
    ma = n["module_args"] or {}
    ks = synth.tuple_attr(ma["kernel_size"], d)
    s = synth.tuple_attr(ma.get("stride", 1), d)
    pad = ma.get("padding", 0)
    if isinstance(pad, str):
        if pad == "valid":
            pad = 0
        else:
            raise TeacherError(f"conv padding={pad!r} is not supported")
    p = synth.tuple_attr(pad, d)
    dil = synth.tuple_attr(ma.get("dilation", 1), d)
    g = int(ma.get("groups", 1))
    if ma.get("padding_mode", "zeros") != "zeros":
        raise TeacherError("conv padding_mode other than zeros")
    return ks, s, p, dil, g, ma


def k_conv(P: Prog, st: Style, A: str, E: str) -> Kernel:
    n = P.node_of[A]
    transposed = n["op"].startswith("conv_transpose")
    x = n["inputs"][0]
    xs = P.t[x].shape
    d = len(xs) - 2
    ks, s, p, dil, G, ma = P.conv_geometry(n, d)
    out_shape = P.t[A].shape
    Nb, C = xs[0], xs[1]
    OC = out_shape[1]
    OS, IS = out_shape[2:], xs[2:]
    Cg, OCg = C // G, OC // G
    grouped = isinstance(G, Sym) or G > 1   # a named groups (Prog.conv_geometry) runs the grouped form at any value
    KK = prod(ks)
    M, K = Nb * prod(OS), Cg * KK
    ops = region_ops(P, A, E)
    kb = KB(P, st, st.kernel_name(ops[:3]))
    mref = module_ref(n["module"])
    wname = f"{n['module']}.weight"
    wshape = [C, OCg] + ks if transposed else [OC, Cg] + ks
    P.t.setdefault(wname, TInfo(wname, wshape, "float32", f"{mref}.weight"))
    bias = None
    # a constructor that names bias (`bias=bias`, KernelBench level 1's spelled-out convs, bias False by default):
    # forward passes self.conv.bias, None or not, and the kernel adds it under a constexpr, so the answer reads the
    # same for either value (11 of gs24's 35 level-1 conv answers loaded a bias that was None)
    bias_named = P.symbolic and "bias" in P.module_args.get(n["module"], ())
    if ma.get("bias", True) or bias_named:
        bias = f"{n['module']}.bias"
        P.t.setdefault(bias, TInfo(bias, [OC], "float32", f"{mref}.bias"))
        if bias_named:
            P.optional.add(bias)
    if st.target != "cpu" and not P.symbolic and not transposed and G > 1 and Cg == 1 and Nb * OC <= 65535:
        return k_conv_depthwise(P, st, kb, A, E, (x, wname, bias), (ks, s, p, dil), ops)
    # GPU target, literal sizes: K ordered (kernel offset, input channel) where BLOCK_K input channels divide Cg,
    # so each block of K is one kernel offset (`tap`, a scalar) and positions and bounds are computed per output
    # row ([BLOCK_M, 1]) instead of per element of the [BLOCK_M, BLOCK_K] tile, and the weight can be laid out
    # with K in order (below). The order alone was within noise of the (channel, offset) one on the H200; the
    # K-ordered weight took 63 from 0.30x to 0.41x eager and 67 from 0.19x to 0.24x.
    tap_major = CONV_TAP_MAJOR and st.target != "cpu" and not P.symbolic and Cg % 16 == 0
    BM, BN, BK, nw = st.mm_blocks(M, OCg, K, batch=G)
    if st.target == "cpu":
        BM = min(max(16, npow2(M)), 128)
    if tap_major:
        BM, BN, BK, nw = CONV_TILE[0], min(CONV_TILE[1], max(16, npow2(OCg))), min(CONV_TILE[2], Cg), CONV_TILE[3]
        # BLOCK_K channels must divide Cg (a block of K is one kernel offset): 16 does, 32 where Cg allows
        BK = BK if Cg % BK == 0 else 16
        while BM > 64 and -(-M // BM) * -(-OCg // BN) * G < WAVE_PROGRAMS:
            BM //= 2
    # GPU target, literal sizes, output rows of 64 or more: a program's BLOCK_M GEMM rows are adjacent positions of
    # one output row (gemm_tile's row_len), so input and output addresses are a scalar plus tl.arange along M, which
    # the compiler can see runs in order (a flat block unravelled with div/mod hides that). Measured on 7 level-1
    # convs: the same speed as flat rows on 6, 71 slower (0.70x against 0.81x); the convs' cost is elsewhere
    #. Level 1's sweep ran with it; CONV_ROW_TILE = False turns it off.
    row_tiled = CONV_ROW_TILE and st.target != "cpu" and not P.symbolic and OS[-1] >= 64
    if row_tiled:
        BM = min(BM, npow2(OS[-1])) if tap_major else min(128, npow2(OS[-1]))
        m_ix, n_ix, gv = gemm_tile(kb, M, OCg, K, "group" if grouped else None, row_len=OS[-1])
        outer = kb.unravel(Ix("row"), [Nb] + list(OS[:-1]), "o")   # the row's batch and outer positions: scalars
        bidx, osp = outer[0], outer[1:] + [m_ix]
    else:
        m_ix, n_ix, gv = gemm_tile(kb, M, OCg, K, "group" if grouped else None)
        # output pixel of each GEMM row: (batch, spatial...)
        mi = kb.unravel(m_ix, [Nb] + OS, "o")
        bidx, osp = mi[0], mi[1:]
    oc = Ix(f"{gv.code} * {OCg} + offs_n", frozenset("n")) if grouped else n_ix
    kb.line("acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)")
    kb.line("for k0 in range(0, K, BLOCK_K):")
    kb.ind += 1
    if tap_major:
        kb.line(f"tap = k0 // {Cg}")
        kb.line(f"c0 = k0 - tap * {Cg}")
        kb.line("offs_ka = c0 + tl.arange(0, BLOCK_K)[None, :]")
        kb.line("offs_kb = c0 + tl.arange(0, BLOCK_K)[:, None]")
        kb.line(f"mask_ka = offs_ka < {Cg}")
        kb.line(f"mask_kb = offs_kb < {Cg}")
        c_local, kpos = Ix("offs_ka", frozenset("a")), kb.unravel(Ix("tap"), ks, "k")
    else:
        kb.line("offs_ka = k0 + tl.arange(0, BLOCK_K)[None, :]")
        kb.line("offs_kb = k0 + tl.arange(0, BLOCK_K)[:, None]")
        kb.line("mask_ka = offs_ka < K")
        kb.line("mask_kb = offs_kb < K")
        ka = Ix("offs_ka", frozenset("a"))
        kparts = kb.unravel(ka, [Cg] + ks, "k")
        c_local, kpos = kparts[0], kparts[1:]
    cin = kb.emit(f"{gv.code} * {Cg} + {c_local.code}", c_local.axes, "ci") if grouped else c_local
    pos, valid = [], []
    for j in range(d):
        o_, k_ = osp[j], kpos[j]
        if o_.code == "0" and k_.code == "0":  # output size 1 and kernel size 1: a constant position
            t_ = -p[j] if not transposed else p[j]
            ok = (0 <= t_ < IS[j]) if not transposed else (t_ >= 0 and t_ % s[j] == 0 and t_ // s[j] < IS[j])
            if not ok:
                raise TeacherError("conv with a window entirely in the padding")
            pos.append(Ix(str(t_ if not transposed else t_ // s[j])))
            continue
        # a named attribute (symbolic sizes) is always written, so the code reads the same for any value
        if not transposed:
            code = f"{o_.code} * {s[j]}" if shown(s[j], 1) else o_.code
            if shown(p[j], 0):
                code += f" - {p[j]}"
            if k_.code != "0":
                code += f" + {k_.code}" + (f" * {dil[j]}" if shown(dil[j], 1) else "")
            q = kb.emit(code, o_.axes | k_.axes, "ip")
            valid.append(kb.emit(f"(({q.code} >= 0) & ({q.code} < {IS[j]}))", q.axes, "ok"))
            pos.append(q)
        else:
            code = o_.code + (f" + {p[j]}" if shown(p[j], 0) else "")
            if k_.code != "0":
                code += f" - {k_.code}" + (f" * {dil[j]}" if shown(dil[j], 1) else "")
            t_ = kb.emit(code, o_.axes | k_.axes, "tp")
            q = kb.emit(f"{t_.code} // {s[j]}", t_.axes, "ip") if shown(s[j], 1) else t_
            cond = f"({t_.code} >= 0) & ({q.code} < {IS[j]})"
            if shown(s[j], 1):
                cond += f" & ({t_.code} % {s[j]} == 0)"
            valid.append(kb.emit(f"({cond})", t_.axes, "ok"))
            pos.append(q)
    if row_tiled:   # a bound on an outer dim is one scalar for the program: fold it into the row mask, so loads test it
        valid = [v if v.axes else kb.emit(f"mask_m & {v.code}", "m", "ok") for v in valid]
    av = kb.value(x, [bidx, cin] + pos, tuple(valid))
    vm = " & ".join(["mask_m", "mask_ka"] + [v.code for v in valid])
    av = kb.emit(f"tl.where({vm}, {av.code}, 0.0)", "ma", "a")
    kb.cache.clear()
    # weight tile [BLOCK_K, BLOCK_N]: K runs over (c_in_local, kernel offsets), contiguous in the weight
    kbx = Ix("offs_kb", frozenset("b"))
    wp = kb.ptr(wname)
    pre = []
    if tap_major:
        # the wrapper lays the weight out as [C_out, *kernel, Cg] (transposed: [OCg, *kernel, C]), so a
        # [BLOCK_K, BLOCK_N] weight tile (channels at one offset) runs along K in memory, the order the tf32
        # tensor cores take it in; the task's [C_out, Cg, *kernel] read it 9 or more elements apart
        wn = kb.leaf(wname)
        spatial = ", ".join(map(str, range(2, d + 2)))
        pre.append(f"{wn} = {wn}.permute({'1' if transposed else '0'}, {spatial}, {'0' if transposed else '1'})"
                   ".contiguous()")
        tap = f" + tap * {Cg if not transposed else C}" if KK > 1 else ""
        if not transposed:   # [OC, *kernel, Cg]
            oc_w = f"({gv.code} * {OCg} + offs_n)" if grouped else "offs_n"
            woff = f"{oc_w} * {K}{tap} + offs_kb"
        else:                # [OCg, *kernel, C]
            woff = f"offs_n * {KK * C}{tap} + " + (f"{gv.code} * {Cg} + offs_kb" if grouped else "offs_kb")
    elif not transposed:
        woff = f"({gv.code} * {OCg} + offs_n) * {K} + offs_kb" if grouped else f"offs_n * {K} + offs_kb"
    else:
        cl = kb.emit(f"offs_kb // {KK}", "b", "wc") if KK > 1 else kbx
        kr = f" + offs_kb % {KK}" if KK > 1 else ""
        cg = f"{gv.code} * {Cg} + {cl.code}" if grouped else cl.code
        woff = f"{par(cg)} * {OCg * KK} + offs_n * {KK}{kr}"
    bv = kb.emit(f"tl.load({wp} + {woff}, mask=mask_kb & mask_n, other=0.0)", "bn", "w")
    bind_module_attrs(kb, n)
    kb.line(f"acc += {dot_code(av.code, bv.code, st)}")
    kb.ind -= 1
    kb.cache.clear()
    acc = Ix("acc", frozenset("mn"))
    if bias in P.optional:
        has_bias = kb.arg("HAS_BIAS", f"{kb.leaf(bias)} is not None", constexpr=True)
        kb.line(f"if {has_bias}:")
        kb.ind += 1
        kb.line(f"acc = acc + {kb.value(bias, [oc]).code}")
        kb.ind -= 1
        kb.cache.clear()   # the load lives in the branch
    elif bias:
        acc = kb.emit(f"acc + {kb.value(bias, [oc]).code}", "mn", "acc")
    oidx = [bidx, oc] + osp
    val = kb.epilogue(A, E, acc, oidx)
    kb.store(E, oidx, val, "mn")
    m_programs = (f"{Nb * prod(OS[:-1])} * triton.cdiv({OS[-1]}, meta['BLOCK_M'])" if row_tiled else
                  f"triton.cdiv({bare(M)}, meta['BLOCK_M'])")
    grid = f"({m_programs}, triton.cdiv({bare(OCg)}, meta['BLOCK_N'])" + (f", {G})" if grouped else ")")
    return finish(kb, E, grid, {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK},
                  f"implicit-GEMM {' + '.join(ops)}", None if st.target == "cpu" else nw, pre=pre,
                  num_stages=CONV_TILE[4] if tap_major else None)


def k_conv_depthwise(P: Prog, st: Style, kb: KB, A: str, E: str, tensors, geometry, ops) -> Kernel:
    """A depthwise convolution (groups = input channels, one input channel a group; GPU target, literal sizes) as
    a direct kernel: a program per block of BLOCK output positions of one (sample, output channel) plane, the
    kernel offsets unrolled, one weight a tap loaded as a scalar. As an implicit GEMM its K was the kernel's 9-21
    offsets and N its one output channel, padded to 16 x 16 tl.dot tiles, and ran at 0.03-0.2x cuDNN (KernelBench
    L1 82-85); the work is a few FMAs per input element, so the kernel is memory-bound."""
    x, wname, bias = tensors
    ks, s, p, dil = geometry
    xs, out_shape = P.t[x].shape, P.t[A].shape
    d = len(xs) - 2
    Nb, OC, OS, IS = xs[0], out_shape[1], out_shape[2:], xs[2:]
    OCg = OC // xs[1]
    n_pix, planes = prod(OS), Nb * OC
    BLOCK = halve_to_waves(min(1024, max(128, npow2(n_pix))), n_pix * planes, 128)
    kb.arg("n_pix", str(n_pix))
    kb.line("pid = tl.program_id(0)")
    kb.line("plane = tl.program_id(1)")
    kb.line("offs = pid * BLOCK + tl.arange(0, BLOCK)")
    kb.line("mask = offs < n_pix")
    kb.masks["o"] = "mask"
    bidx = kb.emit(f"plane // {OC}", (), "b")
    oc = kb.emit(f"plane % {OC}", (), "oc")
    cin = kb.emit(f"{oc.code} // {OCg}", (), "ci") if OCg > 1 else oc
    osp = kb.unravel(Ix("offs", frozenset("o")), OS, "o")
    taps = ["kd", "kh", "kw"][3 - d:]
    kb.line("acc = tl.zeros([BLOCK], dtype=tl.float32)")
    for j in range(d):
        kb.line(f"for {taps[j]} in tl.static_range({ks[j]}):")
        kb.ind += 1
    pos, valid = [], []
    for j in range(d):
        code = osp[j].code + (f" * {s[j]}" if s[j] != 1 else "") + (f" - {p[j]}" if p[j] else "") + \
            f" + {taps[j]}" + (f" * {dil[j]}" if dil[j] != 1 else "")
        q = kb.emit(code, osp[j].axes, "ip")
        valid.append(kb.emit(f"(({q.code} >= 0) & ({q.code} < {IS[j]}))", q.axes, "ok"))
        pos.append(q)
    xv = kb.value(x, [bidx, cin] + pos, tuple(valid))
    xv = kb.emit(f"tl.where({' & '.join(['mask'] + [v.code for v in valid])}, {xv.code}, 0.0)", "o", "a")
    woff = " + ".join([f"{oc.code} * {prod(ks)}"] + [taps[j] + (f" * {prod(ks[j + 1:])}" if j < d - 1 else "")
                                                      for j in range(d)])
    w = kb.emit(f"tl.load({kb.ptr(wname)} + {woff})", (), "w")
    kb.line(f"acc += {xv.code} * {w.code}")
    kb.ind -= d
    kb.cache.clear()
    acc = Ix("acc", frozenset("o"))
    if bias:
        acc = kb.emit(f"acc + {kb.value(bias, [oc]).code}", "o", "acc")
    oidx = [bidx, oc] + osp
    kb.store(E, oidx, kb.epilogue(A, E, acc, oidx), "o")
    grid = f"(triton.cdiv({n_pix}, meta['BLOCK']), {planes})"
    return finish(kb, E, grid, {"BLOCK": BLOCK}, f"depthwise {' + '.join(ops)}", 4)


# ---- pooling ---------------------------------------------------------------------------------------
def pool_window(P: Prog, n: dict) -> list[int]:
    """Window extent per spatial dim of a pooling node: its kernel size, or for an adaptive pool the largest
    window any output position covers."""
    xs = P.t[n["inputs"][0]].shape
    d = len(xs) - 2
    if n["op"].startswith("adaptive"):
        IS, OS = xs[2:], P.t[n["name"]].shape[2:]
        return [int(max(-(-((o + 1) * L) // O) - (o * L) // O for o in range(O))) for L, O in zip(IS, OS)]
    return list(P.pool_geometry(n, d)[0])


def pool_bounds(kb: KB, n: dict, oi: list) -> list:
    """An adaptive pool's window bounds (lo, hi) per spatial dim at output index oi ([] for other pools)."""
    if not n["op"].startswith("adaptive"):
        return []
    xs = kb.P.t[n["inputs"][0]].shape
    bounds = []
    for j, (L, O) in enumerate(zip(xs[2:], kb.P.t[n["name"]].shape[2:])):
        if oi[2 + j].code == "0":
            bounds.append((ZERO, Ix(bare(L) if O == 1 else str(-(-int(L) // O)))))
        else:
            bounds.append((kb.emit(f"({oi[2 + j].code} * {L}) // {O}", "o", "lo"),
                           kb.emit(f"(({oi[2 + j].code} + 1) * {L} + {O - 1}) // {O}", "o", "hi")))
    return bounds


def pool_positions(kb: KB, n: dict, oi: list, k: list, axes: str, bounds: list) -> tuple[list, list]:
    """Input positions and their validity per spatial dim of a pooling window: output index oi, window
    offsets k (an Ix per dim), an adaptive pool's `pool_bounds`. -> (pos, valid)"""
    xs = kb.P.t[n["inputs"][0]].shape
    d = len(xs) - 2
    pos, valid = [], []
    if bounds:
        for j, (lo, hi) in enumerate(bounds):
            q = kb.emit(f"{lo.code} + {k[j].code}", axes, "ip")
            valid.append(kb.emit(f"({q.code} < {hi.code})", axes, "ok"))
            pos.append(q)
        return pos, valid
    _, s, p, dil = kb.P.pool_geometry(n, d)
    for j in range(d):
        o_ = oi[2 + j]
        code = (f"{o_.code} * {s[j]}" if shown(s[j], 1) else o_.code) + (f" - {p[j]}" if shown(p[j], 0) else "") + \
            f" + {k[j].code}" + (f" * {dil[j]}" if shown(dil[j], 1) else "")
        q = kb.emit(code, axes, "ip")
        valid.append(kb.emit(f"(({q.code} >= 0) & ({q.code} < {xs[2 + j]}))", axes, "ok"))
        pos.append(q)
    return pos, valid


def pool_checks(n: dict) -> tuple[bool, bool, object]:
    """(is_max, count_include_pad, divisor_override) of a pooling node; raises for what the teacher lacks."""
    ma = n["module_args"] or {}
    if ma.get("return_indices"):
        raise TeacherError("max pool with return_indices")
    if not n["op"].startswith(("adaptive", "max")) and ma.get("ceil_mode"):
        # a max pool's last window, cut off by ceil_mode, reads only positions inside the input (the masks);
        # an average pool's divisor there follows rules of its own
        raise TeacherError("average pooling with ceil_mode=True")
    return n["op"].startswith("max"), ma.get("count_include_pad", True), ma.get("divisor_override")


def pool_mean(kb: KB, n: dict, acc: str, cnt: str | None, bounds, axes: str) -> Ix:
    """An average pool's result from the window sum `acc` (and the valid count `cnt` without padding)."""
    if bounds:
        return kb.emit(f"{acc} / ({' * '.join(f'({hi.code} - {lo.code})' for lo, hi in bounds)})", axes, "avg")
    _, cip, div = pool_checks(n)
    ks = kb.P.pool_geometry(n, len(kb.P.t[n["name"]].shape) - 2)[0]
    if cip and not div and isinstance(prod(ks), Sym):   # named kernel sizes: divide by their product
        return kb.emit(f"{acc} / {prod(ks)}", axes, "avg")
    return kb.emit(f"{acc} / {flt(div or prod(ks))}" if (cip or div) else f"{acc} / {cnt}", axes, "avg")


# A window this large (elements) runs as a [rows of outputs, window] tile on the GPU target instead of an
# unrolled loop per output (an adaptive_avg_pool3d with 4 x 7 x 12 windows unrolled 336 loads per output and
# ran as 67 programs, 0.36x eager on the H200). Up to POOL_TILE_MAX, one tile covers it.
POOL_TILE_MIN, POOL_TILE_MAX = 32, 4096
POOL_TILE_LOOP = 2048  # columns a loop step of a window larger than POOL_TILE_MAX (any target)


def k_pool(P: Prog, st: Style, A: str, E: str) -> Kernel:
    n = P.node_of[A]
    is_max, cip, _ = pool_checks(n)
    x = n["inputs"][0]
    out_shape = P.t[A].shape
    d = len(out_shape) - 2
    ops = region_ops(P, A, E)
    kb = KB(P, st, st.kernel_name(ops[:3]))
    total = max(1, prod(out_shape))
    window = pool_window(P, n)
    if (st.target != "cpu" and prod(window) >= POOL_TILE_MIN) or prod(window) > POOL_TILE_MAX:
        return k_pool_tile(kb, n, E, window, ops)
    BLOCK = st.block_1d(total, P.symbolic)
    kb.arg("n_elements", bare(total))
    kb.line("pid = tl.program_id(0)")
    kb.line("offs = pid * BLOCK + tl.arange(0, BLOCK)")
    kb.line("mask = offs < n_elements")
    kb.masks["o"] = "mask"
    offs = Ix("offs", frozenset("o"))
    oi = kb.unravel(offs, out_shape, "o")
    if any(i is ZERO for i in oi[2:]):  # window positions must be vectors, even for an output size of 1
        kb.line("zero = tl.zeros_like(offs)")
        oi = oi[:2] + [Ix("zero", frozenset("o")) if i is ZERO else i for i in oi[2:]]
    adaptive = n["op"].startswith("adaptive")
    bounds = pool_bounds(kb, n, oi)
    init = "tl.full([BLOCK], float('-inf'), tl.float32)" if is_max else "tl.zeros([BLOCK], dtype=tl.float32)"
    kb.line(f"acc = {init}")
    counted = not is_max and not cip and not adaptive
    if counted:
        kb.line("cnt = tl.zeros([BLOCK], dtype=tl.float32)")
    names = [f"k{j}" for j in range(d)]
    for j in range(d):
        kb.line(f"for {names[j]} in tl.static_range({window[j]}):")
        kb.ind += 1
    pos, valid = pool_positions(kb, n, oi, [Ix(k) for k in names], "o", bounds)
    kb.cache.clear()
    v = kb.value(x, oi[:2] + pos, tuple(valid))
    ok = " & ".join(([] if not adaptive else ["mask"]) + [q.code for q in valid])
    if is_max:
        kb.line(f"acc = tl.maximum(acc, tl.where({ok}, {v.code}, float('-inf')))")
    else:
        kb.line(f"acc += tl.where({ok}, {v.code}, 0.0)")
        if counted:
            kb.line(f"cnt += tl.where({ok}, 1.0, 0.0)")
    kb.ind -= d
    kb.cache.clear()
    res = Ix("acc", frozenset("o")) if is_max else pool_mean(kb, n, "acc", "cnt", bounds, "o")
    kb.flat = (tuple(i.code for i in oi), list(out_shape), offs)
    val = kb.epilogue(A, E, res, oi)
    kb.store(E, oi, val, "o")
    bind_module_attrs(kb, n)
    return finish(kb, E, f"(triton.cdiv({bare(total)}, meta['BLOCK']),)", {"BLOCK": BLOCK},
                  f"pooling {' + '.join(ops)}")


def k_pool_tile(kb: KB, n: dict, E: str, window: list, ops: list) -> Kernel:
    """Pooling with a large window: each program takes BLOCK_ROWS outputs (the rows of its tile) and their
    windows, flattened (the columns), and reduces along the columns, so the window is a vectorised load and
    tl.sum / tl.max instead of an unrolled loop. A window of up to POOL_TILE_MAX elements is one tile
    (BLOCK_W >= its size); a larger one is walked in tiles of POOL_TILE_LOOP columns (a global pool over
    254 x 254 positions, KernelBench L2 67, unrolled 64,516 loads per output and never finished compiling)."""
    P, A = kb.P, n["name"]
    is_max, cip, _ = pool_checks(n)
    out_shape = P.t[A].shape
    total = max(1, prod(out_shape))
    size = prod(window)
    looped = size > POOL_TILE_MAX
    BW = POOL_TILE_LOOP if looped else npow2(size)
    BR = halve_to_waves(max(1, min(npow2(total), 4096 // BW)), total, 1)
    kb.arg("n_elements", bare(total))
    kb.line("pid = tl.program_id(0)")
    kb.line("offs = pid * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)[:, None]")
    kb.line("mask = offs < n_elements")
    kb.masks["o"], kb.masks["w"] = "mask", "wmask"
    offs = Ix("offs", frozenset("o"))
    oi = kb.unravel(offs, out_shape, "o")
    bounds = pool_bounds(kb, n, oi)
    counted = not is_max and not cip and not bounds
    if looped:  # the window's tiles in a loop; the accumulators are [BLOCK_ROWS, 1]
        kb.line("acc = " + ("tl.full([BLOCK_ROWS, 1], float('-inf'), tl.float32)" if is_max
                            else "tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)"))
        if counted:
            kb.line("cnt = tl.zeros([BLOCK_ROWS, 1], dtype=tl.float32)")
        kb.line(f"for w0 in range(0, {size}, BLOCK_W):")
        kb.ind += 1
        kb.line("w = w0 + tl.arange(0, BLOCK_W)[None, :]")
    else:
        kb.line("w = tl.arange(0, BLOCK_W)[None, :]")
    kb.line(f"wmask = w < {size}")
    k = kb.unravel(Ix("w", frozenset("w")), window, "k")
    pos, valid = pool_positions(kb, n, oi, k, "ow", bounds)
    v = kb.value(n["inputs"][0], oi[:2] + pos, tuple(valid))
    ok = " & ".join(["mask", "wmask"] + [q.code for q in valid])
    if is_max:
        part = f"tl.max(tl.where({ok}, {v.code}, float('-inf')), axis=1, keep_dims=True)"
        kb.line(f"acc = tl.maximum(acc, {part})" if looped else f"acc = {part}")
    else:
        part = f"tl.sum(tl.where({ok}, {v.code}, 0.0), axis=1, keep_dims=True)"
        kb.line(f"acc += {part}" if looped else f"acc = {part}")
        if counted:
            part = f"tl.sum(tl.where({ok}, 1.0, 0.0), axis=1, keep_dims=True)"
            kb.line(f"cnt += {part}" if looped else f"cnt = {part}")
    if looped:
        kb.ind -= 1
        kb.cache.clear()  # names made inside the loop are not defined after it
    res = Ix("acc", frozenset("o")) if is_max else pool_mean(kb, n, "acc", "cnt", bounds, "o")
    kb.cache.clear()
    kb.flat = (tuple(i.code for i in oi), list(out_shape), offs)
    val = kb.epilogue(A, E, res, oi)
    kb.store(E, oi, val, "o")
    bind_module_attrs(kb, n)
    return finish(kb, E, f"(triton.cdiv({bare(total)}, meta['BLOCK_ROWS']),)", {"BLOCK_ROWS": BR, "BLOCK_W": BW},
                  f"pooling tile {' + '.join(ops)}", 4 if BR * BW <= 2048 else 8)


# ---- attention (flash-style online softmax) -------------------------------------------------------
def k_attention(P: Prog, st: Style, A: str, E: str) -> Kernel:
    n = P.node_of[A]
    q, k, v = n["inputs"][:3]
    a = n["attrs"]
    if a.get("attn_mask") is not None or a.get("is_causal") or a.get("dropout_p", 0.0):
        raise TeacherError("sdpa with mask, causal or dropout")
    B, H, S, D = P.t[q].shape
    Sk = P.t[k].shape[2]
    Dv = P.t[v].shape[3]
    if Dv != D:
        raise TeacherError("sdpa with value head dim != query head dim")
    ops = region_ops(P, A, E)
    kb = KB(P, st, st.kernel_name(ops[:3]))
    scale = a.get("scale") or 1.0 / math.sqrt(D)
    BD = max(16, npow2(D))
    BM = min(max(16, npow2(S)), 64)
    BN = min(max(16, npow2(Sk)), 64 if st.target == "cpu" else 32)
    kb.arg("seq_q", bare(S))
    kb.arg("seq_k", bare(Sk))
    kb.line("pid_m = tl.program_id(0)")
    kb.line("pid_bh = tl.program_id(1)")
    kb.line(f"b = pid_bh // {H}")
    kb.line(f"h = pid_bh % {H}")
    kb.line("offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]")
    kb.line("offs_d = tl.arange(0, BLOCK_D)[None, :]")
    kb.line("offs_dt = tl.arange(0, BLOCK_D)[:, None]")
    kb.line("mask_m = offs_m < seq_q")
    kb.line(f"mask_d = offs_d < {D}")
    kb.line(f"mask_dt = offs_dt < {D}")
    kb.masks.update(m="mask_m", d="mask_d", e="mask_dt", n="mask_n", v="mask_nv")
    bI, hI = Ix("b"), Ix("h")
    m_ix, d_ix, dt_ix = Ix("offs_m", frozenset("m")), Ix("offs_d", frozenset("d")), Ix("offs_dt", frozenset("e"))
    # GPU target, head dim over 64: q @ k^T runs over BLOCK_DC-wide slices of the head dim, q's slice
    # reloaded per key block (L1/L2 hits). Whole, a [64, 128] fp32 q beside [128, 32] keys sent ptxas to 32
    # registers and 6.7 KB of spills per thread (sm_90; the H200 ran L2_0_00093 at 0.02x eager).
    chunked = st.target != "cpu" and BD > 64
    if not chunked:
        qv = kb.value(q, [bI, hI, m_ix, d_ix])
        kb.line(f"q = tl.where(mask_m & mask_d, {qv.code}, 0.0) * {flt(scale)}")
    kb.line("m_i = tl.full([BLOCK_M, 1], float('-inf'), tl.float32)")
    kb.line("l_i = tl.zeros([BLOCK_M, 1], dtype=tl.float32)")
    kb.line("acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)")
    kb.line("for start in range(0, seq_k, BLOCK_N):")
    kb.ind += 1
    kb.cache.clear()
    kb.line("offs_n = start + tl.arange(0, BLOCK_N)[None, :]")
    kb.line("offs_nv = start + tl.arange(0, BLOCK_N)[:, None]")
    kb.line("mask_n = offs_n < seq_k")
    kb.line("mask_nv = offs_nv < seq_k")
    if chunked:
        kb.masks.update(c="mask_c", f="mask_ct")
        kb.line("scores = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)")
        kb.line("for dc in range(0, BLOCK_D, BLOCK_DC):")
        kb.ind += 1
        kb.line("offs_c = dc + tl.arange(0, BLOCK_DC)[None, :]")
        kb.line("offs_ct = dc + tl.arange(0, BLOCK_DC)[:, None]")
        kb.line(f"mask_c = offs_c < {D}")
        kb.line(f"mask_ct = offs_ct < {D}")
        qv = kb.value(q, [bI, hI, m_ix, Ix("offs_c", frozenset("c"))])
        kb.line(f"qc = tl.where(mask_m & mask_c, {qv.code}, 0.0)")
        kt = kb.value(k, [bI, hI, Ix("offs_n", frozenset("n")), Ix("offs_ct", frozenset("f"))])
        kb.line(f"kc = tl.where(mask_ct & mask_n, {kt.code}, 0.0)")
        kb.line(f"scores += {dot_code('qc', 'kc', st)}")
        kb.ind -= 1
        kb.cache.clear()
        kb.line(f"scores = tl.where(mask_n, scores * {flt(scale)}, float('-inf'))")
    else:
        kt = kb.value(k, [bI, hI, Ix("offs_n", frozenset("n")), dt_ix])
        kb.line(f"kt = tl.where(mask_dt & mask_n, {kt.code}, 0.0)")
        kb.line(f"scores = tl.where(mask_n, {dot_code('q', 'kt', st)}, float('-inf'))")
    vv = kb.value(v, [bI, hI, Ix("offs_nv", frozenset("v")), d_ix])
    kb.line(f"vt = tl.where(mask_nv & mask_d, {vv.code}, 0.0)")
    kb.line("m_new = tl.maximum(m_i, tl.max(scores, axis=1, keep_dims=True))")
    kb.line("p = tl.exp(scores - m_new)")
    kb.line("alpha = tl.exp(m_i - m_new)")
    kb.line("l_i = l_i * alpha + tl.sum(p, axis=1, keep_dims=True)")
    kb.line(f"acc = acc * alpha + {dot_code('p', 'vt', st)}")
    kb.line("m_i = m_new")
    kb.ind -= 1
    kb.cache.clear()
    res = kb.emit("acc / l_i", "md", "o")
    oidx = [bI, hI, m_ix, d_ix]
    val = kb.epilogue(A, E, res, oidx)
    kb.store(E, oidx, val, "md")
    blocks = {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_D": covering_block(D, BD, floor=16)}
    if chunked:
        blocks["BLOCK_DC"] = 32
    return finish(kb, E, f"(triton.cdiv({bare(S)}, meta['BLOCK_M']), {bare(B * H)})", blocks,
                  f"flash attention {' + '.join(ops)}", None if st.target == "cpu" else 8 if chunked else 4)


def build_kernel(P: Prog, st: Style, A: str | None, E: str) -> Kernel:
    if A is None:
        return (k_elementwise_cl if P.cl and reads_channels_last(P, E) else k_elementwise)(P, st, E)
    op = P.node_of[A]["op"]
    kind = synth.OPS[op].kind if op in synth.OPS else op
    if kind in ("reduce", "scan", "softmax", "norm", "rsum", "ce_row"):
        return k_rows(P, st, A, E)
    if kind == "matmul":
        return k_matmul(P, st, A, E)
    if kind in ("conv", "conv_transpose"):
        return k_conv(P, st, A, E)
    if kind in ("pool", "adaptive_pool"):
        return k_pool(P, st, A, E)
    if kind == "attention":
        return k_attention(P, st, A, E)
    raise TeacherError(f"no kernel template for op {op} (kind {kind})")


# --------------------------------------------------------------------------------------------------
# Solution assembly
# --------------------------------------------------------------------------------------------------
# imports of a task's own helper classes that an answer may repeat (the judge's gate allows them)
HELPER_IMPORTS = {"torch.nn.functional", "math", "torch", "torch.nn", "itertools", "collections", "collections.abc"}


def _fold_numpy_constants(tree) -> None:
    """A numpy function called on number literals as an operand of arithmetic (Swin V2's `... / np.log2(8)`)
    becomes the number, in place: the judge's gate refuses numpy, and the constructor then needs none. Only as an
    operand: `torch.tensor(np.log2(8))` is float64 where `torch.tensor(3.0)` is float32. Any other use of numpy
    stays, and reaches _init_from_source's import check if the constructor reads it."""
    import numpy
    aliases = {(a.asname or a.name) for n in tree.body if isinstance(n, ast.Import) for a in n.names
               if a.name == "numpy"}

    def folded(node):
        f = getattr(node, "func", None)
        if isinstance(node, ast.Call) and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id in aliases and not node.keywords and node.args and \
                all(isinstance(a, ast.Constant) and type(a.value) in (int, float) for a in node.args):
            fn = getattr(numpy, f.attr, None)
            value = fn(*(a.value for a in node.args)) if isinstance(fn, numpy.ufunc) else None
            if isinstance(value, numpy.floating) and math.isfinite(value):
                return ast.copy_location(ast.Constant(float(value)), node)
        return node

    class Fold(ast.NodeTransformer):
        def visit_BinOp(self, node):
            self.generic_visit(node)
            node.left, node.right = folded(node.left), folded(node.right)
            return node
    if aliases:
        Fold().visit(tree)


def _init_from_source(source: str):
    """(ModelNew's class body before forward, the module-level code to put before ModelNew), so ModelNew creates
    the same parameters in the same order: Model's class attributes, its __init__ (renamed for ModelNew, its
    docstring dropped) and the methods it calls; before the class, the imports, constants, classes (without
    their forward) and functions of the task that the constructor reaches."""
    tree = ast.parse(source)
    if not any(isinstance(n, ast.ClassDef) and n.name == "Model" for n in tree.body):
        raise TeacherError("task source has no class Model")
    _fold_numpy_constants(tree)
    init = model_method(tree, "__init__")
    if init is None:
        raise TeacherError("Model has no __init__")
    for node in ast.walk(init):
        if isinstance(node, ast.Name) and node.id == "Model":
            node.id = "ModelNew"
    if len(init.body) > 1 and isinstance(init.body[0], ast.Expr) and isinstance(init.body[0].value, ast.Constant) \
            and isinstance(init.body[0].value.value, str):
        init.body = init.body[1:]  # the docstring stays with the task (unparsed, its lines would shift right)
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    # what the constructor builds with: Model's class attributes (ResNet's `expansion = 4`, read as
    # self.expansion) and the methods __init__ calls (RegNet's self._make_stage) come with it; the task's own
    # module-level code that those reach (SqueezeNet's FireModule, EfficientNet's MBConv, constants, imports of
    # math or torch.nn.functional) goes before ModelNew, in the task's order
    attr_nodes = [n for n in model.body if isinstance(n, (ast.Assign, ast.AnnAssign))]
    own = {n.name: n for n in model.body if isinstance(n, ast.FunctionDef) and n.name not in ("__init__", "forward")}
    methods, todo = [], [init]
    while todo:   # Model's methods the constructor calls (self._make_layer, Model._make), through each other too
        called = {n.attr for n in ast.walk(todo.pop()) if isinstance(n, ast.Attribute) and
                  isinstance(n.value, ast.Name) and n.value.id in ("self", "Model", "ModelNew") and n.attr in own}
        more = [own[m] for m in sorted(called) if own[m] not in methods]
        todo += more
        methods += more
    # a helper class keeps what builds it, not its forward: ModelNew's forward calls the leaf modules itself
    for c in tree.body:
        if isinstance(c, ast.ClassDef) and c.name != "Model":
            c.body = [b for b in c.body if not (isinstance(b, ast.FunctionDef) and b.name == "forward")] or [ast.Pass()]

    def names_read(nodes):
        return {n.id for r in nodes for n in ast.walk(r) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

    def bound(n):   # the names a module-level statement binds
        if isinstance(n, (ast.ClassDef, ast.FunctionDef)):
            return {n.name}
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            return {(a.asname or a.name).split(".")[0] for a in n.names}
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AnnAssign,
                                                                                              ast.AugAssign)) else []
        return {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
    top = [n for n in tree.body if not (isinstance(n, ast.ClassDef) and n.name == "Model") and
           not (isinstance(n, ast.FunctionDef) and n.name in ("get_inputs", "get_init_inputs"))]
    used = names_read([init] + methods + attr_nodes) - {a.arg for a in init.args.args + init.args.kwonlyargs}
    reached = set()
    while True:   # module-level statements binding a name that the constructor's code reads, through each other
        more = [i for i, n in enumerate(top) if i not in reached and bound(n) & used]
        if not more:
            break
        reached |= set(more)
        used |= names_read([top[i] for i in more])
    consts, header = [], {"torch", "nn", "triton", "tl"}   # the answer's own imports
    for i in sorted(reached):
        n = top[i]
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
            if any(m not in HELPER_IMPORTS for m in mods):
                raise TeacherError(f"the constructor's code uses {', '.join(mods)}, which an answer may not import")
            if not bound(n) <= header:
                consts.append(ast.unparse(n))
            continue
        value = getattr(n, "value", None)
        name = next(iter(bound(n)), None)

        def calls_only():   # every read of `name` in the code the constructor reaches calls it
            return all(isinstance(p, ast.Call) and p.func is c or
                       not (isinstance(c, ast.Name) and c.id == name and isinstance(c.ctx, ast.Load))
                       for r in [init] + methods + [top[j] for j in reached]
                       for p in ast.walk(r) for c in ast.iter_child_nodes(p))
        if isinstance(n, ast.Assign) and len(bound(n)) == 1 and isinstance(value, ast.Call) and \
                isinstance(value.func, ast.Name) and calls_only():
            # `to_2tuple = _ntuple(2)` would call the task's function at import, which the judge's gate refuses:
            # a function used only as one is made when it is first called
            consts.append(f"def {name}(*args, **kwargs):\n    return {ast.unparse(value)}(*args, **kwargs)")
        else:
            consts.append(("\n\n" if isinstance(n, (ast.ClassDef, ast.FunctionDef)) else "") + ast.unparse(n))
    attrs = [ast.unparse(n) for n in attr_nodes]
    return "\n".join(attrs + [ast.unparse(init)] + [ast.unparse(m) for m in methods]), consts


def forward_signature(source: str, n_inputs: int) -> tuple[list[str], str]:
    """(the forward arguments get_inputs() fills, Model.forward's parameter list after self, defaults included).
    Trailing arguments with defaults that get_inputs() leaves out (Mamba's `initial_states=None`) stay in the
    signature with the default None (the answer never reads them; a default naming the task's constants or an
    annotation from typing would not resolve in the answer); any other count mismatch raises TeacherError."""
    fwd = model_method(ast.parse(source), "forward")
    if fwd is None:
        raise TeacherError("Model has no forward")
    args = fwd.args.args[1:]
    if not len(args) - len(fwd.args.defaults) <= n_inputs <= len(args) or fwd.args.vararg or fwd.args.kwonlyargs:
        raise TeacherError("forward arguments do not match the traced inputs")
    params = [a.arg for a in args[:n_inputs]] + [f"{a.arg}=None" for a in args[n_inputs:]]
    return [a.arg for a in args[:n_inputs]], ", ".join(params)


def index_code(a, top: bool = False) -> str:
    """Python code of an imported index (synth._json_index): ints, {"slice": [start, stop, step]}, "None",
    "Ellipsis", and lists for tuples."""
    if isinstance(a, dict) and "slice" in a:
        lo, hi, step = ("" if v is None else repr(v) for v in a["slice"])
        return f"{lo}:{hi}" + (f":{step}" if step else "")
    if isinstance(a, list):
        inner = ", ".join(index_code(x) for x in a)
        return inner if top and a else f"({inner},)" if len(a) == 1 else f"({inner})"
    if a in ("None", "Ellipsis"):
        return "..." if a == "Ellipsis" else "None"
    if isinstance(a, int) and not isinstance(a, bool):
        return repr(a)
    raise TeacherError(f"index {a!r} is not supported")


class Raw(str):
    """Code that a repr() writes as it is."""
    def __repr__(self):
        return str(self)


def view_call(P: Prog, n: dict) -> str:
    """Forward code for an imported view node (torch view calls are allowed under the strict policy)."""
    short = n["op"][5:]
    src = n["inputs"][0] if n["inputs"] else None

    def r(v):
        if isinstance(v, str) and v in P.t:
            return P.t[v].ref or v
        return repr(v)
    args = n["attrs"].get("args", [])
    kwargs = n["attrs"].get("kwargs", {})
    if short in ("getattr",):
        return f"{r(src)}.{args[0]}" + (".contiguous()" if args[0] in ("T", "mT", "H", "mH") else "")
    if short == "getitem":   # x.shape[0], x[:, 0]: an indexed tensor is a view, made contiguous
        if len(args) != 1:
            raise TeacherError(f"indexing with {args!r} is not supported")
        code = f"{r(src)}[{index_code(args[0], top=True)}]"
        return code if n["name"] in P.non_tensors else code + ".contiguous()"
    if n["op"].startswith("torch:"):
        return torch_call(n, [r(i) for i in n["inputs"]])
    if short == "to":  # a device the trace saw (x.device, "cuda") is the device of the forward's first tensor
        first = next((i for i in P.input_names if i not in P.scalars), None)

        def r(v, plain=r):
            is_device = type(v).__name__ == "device" or isinstance(v, str) and v.split(":")[0] in ("cpu", "cuda")
            return f"{plain(first)}.device" if is_device and first else plain(v)
        kwargs = {k: Raw(r(v)) for k, v in kwargs.items()}
    parts = [r(x) for x in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    if short in ("size", "dim", "numel"):
        return f"{r(src)}.{short}({', '.join(parts)})"
    call = f"{r(src)}.{short}({', '.join(parts)})"
    return call if n["name"] in P.non_tensors else call + ".contiguous()"   # split, chunk: a tuple of tensors


def torch_call(n: dict, ins: list[str]) -> str:
    """Forward code for an op kept in torch: a random dropout, or a heavy op under heavy="torch". A module op
    calls the task's own module (same weights, same cuDNN/cuBLAS path as the reference)."""
    op = n["op"][6:]
    a = n["attrs"]
    if n.get("module") and (a.get("no_bias") or a.get("channels_last")):
        # a 2-D/3-D convolution through torch.nn.functional with the module's own weights: channels-last input
        # written by a Triton kernel (TO_CL: aten's layout copy ran at a third of the bandwidth),
        # float16 operands under heavy="torch-cl16", the bias left to the kernel after it under no_bias
        m = module_ref(n["module"])
        dt = "torch.float16" if a.get("half") else "torch.float32"
        x = f"{TO_CL}({ins[0]}, {dt})" if a.get("channels_last") else ins[0]
        cast = ".to(torch.float16)" if a.get("half") else ""
        b = "None" if a.get("no_bias") or not (n.get("module_args") or {}).get("bias", True) else f"{m}.bias{cast}"
        if op == "linear":
            return f"torch.nn.functional.linear({x}, {m}.weight{cast}, {b})"
        geo = f"{m}.stride, {m}.padding, {m}.output_padding, {m}.groups, {m}.dilation" if op.startswith("conv_t") \
            else f"{m}.stride, {m}.padding, {m}.dilation, {m}.groups"
        return f"torch.nn.functional.{op}({x}, {m}.weight{cast}, {b}, {geo})"
    if n.get("module") and "args" in a:  # a library layer: the task's own call, lstm(x, (h0, c0))
        refs = dict(zip(n["inputs"], ins))

        def code(v):
            if isinstance(v, list):
                return "(" + ", ".join(code(x) for x in v) + ("," if len(v) == 1 else "") + ")"
            return refs[v] if isinstance(v, str) and v in refs else repr(v)
        args = [code(v) for v in a["args"]] + [f"{k}={code(v)}" for k, v in a.get("kwargs", {}).items()]
        if a.get("cells"):  # rnn_cells(self.lstm, x, (h0, c0)): the same call with the cells in Triton
            return f"{RNN_FN}({', '.join([module_ref(n['module'])] + args)})"
        return f"{module_ref(n['module'])}({', '.join(args)})"
    if n.get("module"):
        return f"{module_ref(n['module'])}({ins[0]})"
    if op == "dropout":
        return f"torch.nn.functional.dropout({ins[0]}, p={n['attrs']['p']!r}, training=True)"
    if op == "cat" and a.get("copy"):
        return f"{CAT_FN}([{', '.join(ins)}], {a.get('dim', 0)})"
    if op in ("full", "randn"):   # ins[0]: the forward input whose device it is made on
        size = f"({', '.join(map(str, a['shape']))}{',' if len(a['shape']) == 1 else ''})"
        value = f", {flt(a['value'])}" if op == "full" else ""
        device = f", device={ins[0]}.device" if a.get("on_device", True) else ""   # else the CPU's generator
        return f"torch.{op}({size}{value}, dtype=torch.{a['dtype']}{device})"
    if op == "einsum":   # its result can be a permuted view; the kernels after it index it as contiguous
        return f"torch.einsum({n['attrs']['equation']!r}, {', '.join(ins)}).contiguous()"
    if op in ("matmul", "bmm"):
        return f"torch.{op}({ins[0]}, {ins[1]})"
    raise TeacherError(f"no torch call for {op}")


# A recurrent layer (nn.RNN/LSTM/GRU) with its cells in Triton (plan hybrid-cells). Per layer and direction, one
# torch GEMM projects every time step's input at once; each step then runs the hidden-state GEMM in torch and one
# Triton kernel for the cell (gate nonlinearities, the LSTM cell state, the new hidden state written straight
# into the layer's output). The hybrid plan keeps the whole layer one cuDNN call; where that call is all a task
# computes, this is the form in which Triton does the task's work. Gate orders are torch's: LSTM (i, f, g, o),
# GRU (r, z, n) with n = tanh(x W_in + b_in + r (h W_hn + b_hn)). No dropout between layers (random).
RNN_FN = "rnn_cells"
RNN_SRC = f'''@triton.jit
def {RNN_FN}_kernel(gx_ptr, gh_ptr, h_ptr, h_stride, c_ptr, c_out_ptr, y_ptr, y_stride, B, H,
                    MODE: tl.constexpr, GATES: tl.constexpr, BLOCK: tl.constexpr):
    # one time step of B x H cells: gx, gh [B, GATES * H] (the input's and the hidden state's projections),
    # h the previous hidden state (row stride h_stride), c / c_out the LSTM cell state [B, H] before / after,
    # y the new hidden state (row stride y_stride)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < B * H
    b = offs // H
    j = offs % H
    row = b * (GATES * H) + j
    a0 = tl.load(gx_ptr + row, mask=mask, other=0.0) + tl.load(gh_ptr + row, mask=mask, other=0.0)
    if MODE == 0:  # LSTM
        a1 = tl.load(gx_ptr + row + H, mask=mask, other=0.0) + tl.load(gh_ptr + row + H, mask=mask, other=0.0)
        a2 = tl.load(gx_ptr + row + 2 * H, mask=mask, other=0.0) + tl.load(gh_ptr + row + 2 * H, mask=mask, other=0.0)
        a3 = tl.load(gx_ptr + row + 3 * H, mask=mask, other=0.0) + tl.load(gh_ptr + row + 3 * H, mask=mask, other=0.0)
        g = 1.0 - 2.0 / (tl.exp(2.0 * a2) + 1.0)
        c = tl.sigmoid(a1) * tl.load(c_ptr + offs, mask=mask, other=0.0) + tl.sigmoid(a0) * g
        tl.store(c_out_ptr + offs, c, mask=mask)
        h = tl.sigmoid(a3) * (1.0 - 2.0 / (tl.exp(2.0 * c) + 1.0))
    elif MODE == 1:  # GRU
        a1 = tl.load(gx_ptr + row + H, mask=mask, other=0.0) + tl.load(gh_ptr + row + H, mask=mask, other=0.0)
        r = tl.sigmoid(a0)
        z = tl.sigmoid(a1)
        hn = tl.load(gh_ptr + row + 2 * H, mask=mask, other=0.0)
        a2 = tl.load(gx_ptr + row + 2 * H, mask=mask, other=0.0) + r * hn
        n = 1.0 - 2.0 / (tl.exp(2.0 * a2) + 1.0)
        h = (1.0 - z) * n + z * tl.load(h_ptr + b * h_stride + j, mask=mask, other=0.0)
    elif MODE == 2:  # RNN, tanh
        h = 1.0 - 2.0 / (tl.exp(2.0 * a0) + 1.0)
    else:  # RNN, relu
        h = tl.maximum(a0, 0.0)
    tl.store(y_ptr + b * y_stride + j, h, mask=mask)


def {RNN_FN}(m, x, hx=None):
    """The module m's forward (nn.RNN/LSTM/GRU, batched input) with the cells in Triton: (output, h_n) or, for an
    LSTM, (output, (h_n, c_n))."""
    mode = {{"LSTM": 0, "GRU": 1, "RNN_TANH": 2, "RNN_RELU": 3}}[m.mode]
    gates = (4, 3, 1, 1)[mode]
    H, D, L = m.hidden_size, 2 if m.bidirectional else 1, m.num_layers
    seq = x.transpose(0, 1) if m.batch_first else x
    T, B = seq.shape[0], seq.shape[1]
    h0, c0 = hx if mode == 0 and hx is not None else (hx, None)
    if h0 is None:
        h0 = torch.zeros(L * D, B, H, device=x.device, dtype=x.dtype)
    if c0 is None:
        c0 = torch.zeros(L * D, B, H, device=x.device, dtype=x.dtype)
    h0, c0 = h0.contiguous(), c0.contiguous()
    h_n = torch.empty(L * D, B, H, device=x.device, dtype=x.dtype)
    c_n = torch.empty(L * D, B, H, device=x.device, dtype=x.dtype)
    BLOCK = min(1024, triton.next_power_of_2(B * H))
    grid = (triton.cdiv(B * H, BLOCK),)
    for layer in range(L):
        out = torch.empty(T, B, D * H, device=x.device, dtype=x.dtype)
        flat = seq.reshape(T * B, seq.shape[2])
        for d in range(D):
            k = layer * D + d
            w = m.all_weights[k]  # [w_ih, w_hh] (+ [b_ih, b_hh])
            gx = torch.addmm(w[2], flat, w[0].t()) if m.bias else torch.mm(flat, w[0].t())
            h, c = h0[k], c0[k]
            for t in (range(T) if d == 0 else range(T - 1, -1, -1)):
                gh = torch.addmm(w[3], h, w[1].t()) if m.bias else torch.mm(h, w[1].t())
                y = out[t, :, d * H:(d + 1) * H]
                c_new = torch.empty(B, H, device=x.device, dtype=x.dtype) if mode == 0 else c
                {RNN_FN}_kernel[grid](gx[t * B:(t + 1) * B], gh, h, h.stride(0), c, c_new, y, y.stride(0), B, H,
                                      MODE=mode, GATES=gates, BLOCK=BLOCK)
                h, c = y, c_new
            h_n[k] = h
            c_n[k] = c
        seq = out
    y = seq.transpose(0, 1).contiguous() if m.batch_first else seq
    return (y, (h_n, c_n)) if mode == 0 else (y, h_n)'''
RNN_OPS = ("rnn", "lstm", "gru")

# A cat of more than CAT_INLINE_MAX tensors (DenseNet's torch.cat(features, 1), up to 49 of them) is materialised
# by cat_copy: one Triton copy kernel per input into its slice of the output. Inlined into every kernel that reads
# it, each such read is a chain of that many where()s, and DenseNet-201's answer ran to 0.86 MB of source.
CAT_INLINE_MAX = 4
CAT_FN = "cat_copy"
CAT_SRC = f'''@triton.jit
def {CAT_FN}_kernel(src_ptr, dst_ptr, n, inner, dst_inner, offset, BLOCK: tl.constexpr):
    # src as [outer, inner] rows, written at column `offset` of dst's [outer, dst_inner] rows
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // inner
    col = offs % inner
    tl.store(dst_ptr + row * dst_inner + offset + col, tl.load(src_ptr + offs, mask=mask), mask=mask)


def {CAT_FN}(tensors, dim):
    """torch.cat(tensors, dim) as one Triton copy kernel per tensor."""
    shape = list(tensors[0].shape)
    dim = dim % len(shape)
    shape[dim] = 0
    for t in tensors:
        shape[dim] += t.shape[dim]
    out = torch.empty(shape, device=tensors[0].device, dtype=tensors[0].dtype)
    trailing = 1
    for size in shape[dim + 1:]:
        trailing *= size
    offset = 0
    for t in tensors:
        t = t.contiguous()
        inner = t.shape[dim] * trailing
        if t.numel():
            {CAT_FN}_kernel[(triton.cdiv(t.numel(), 1024),)](t, out, t.numel(), inner, shape[dim] * trailing, offset,
                                                    BLOCK=1024)
        offset += inner
    return out'''


TO_CL = "to_channels_last"
TO_CL_SRC = f'''@triton.jit
def {TO_CL}_kernel(x_ptr, out_ptr, C, HW, BLOCK_C: tl.constexpr, BLOCK_HW: tl.constexpr):
    n = tl.program_id(2).to(tl.int64)
    hw = tl.program_id(0) * BLOCK_HW + tl.arange(0, BLOCK_HW)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (c[:, None] < C) & (hw[None, :] < HW)
    v = tl.load(x_ptr + n * C * HW + c[:, None] * HW + hw[None, :], mask=mask)
    tl.store(out_ptr + n * C * HW + hw[None, :] * C + c[:, None], v.to(out_ptr.dtype.element_ty), mask=mask)


def {TO_CL}(x, dtype):
    """x (N, C, *spatial) as `dtype` in the channels-last layout, for the convolution after it: tiles read along
    the positions and written along the channels."""
    x = x.contiguous()
    N, C = x.shape[0], x.shape[1]
    HW = x[0, 0].numel()
    out = torch.empty_like(x, dtype=dtype, memory_format=torch.channels_last_3d if x.dim() == 5 else torch.channels_last)
    BLOCK_C = min(32, triton.next_power_of_2(C))
    BLOCK_HW = 2048 // BLOCK_C
    grid = (triton.cdiv(HW, BLOCK_HW), triton.cdiv(C, BLOCK_C), N)
    {TO_CL}_kernel[grid](x, out, C, HW, BLOCK_C=BLOCK_C, BLOCK_HW=BLOCK_HW)
    return out'''


def _signature_names(src: str) -> list[str]:
    """The parameter names of every def in src, in order."""
    return [p.split(":")[0].split("=")[0].strip() for params in re.findall(r"def \w+\(([^)]*)\)", src)
            for p in params.split(",") if p.strip()]


def dedupe_kernels(kernels: list) -> tuple[list, dict]:
    """(the kernels with one of each, {wrapper: the wrapper of its identical earlier kernel}). Two kernels are
    identical when their kernel and launcher sources match with their own names and parameters written
    positionally: a network's repeated blocks (ResNet-101's 23 bottlenecks of one shape) compile to the same
    kernel, which the answer then defines once (the judge takes answers up to reward.MAX_SOLUTION_CHARS)."""
    first, same_as, kept = {}, {}, []
    for k in kernels:
        text = k.src + "\n" + k.wrapper_src
        names = [k.name, k.wrapper] + re.findall(r"def (\w+)\(", k.src + "\n" + k.wrapper_src) + \
            _signature_names(k.wrapper_src + "\n" + k.src)
        for i, name in enumerate(dict.fromkeys(names)):
            text = re.sub(rf"\b{re.escape(name)}\b", f"_p{i}_", text)
        if text in first:
            same_as[k.wrapper] = first[text].wrapper
        else:
            first[text] = k
            kept.append(k)
    return kept, same_as


def check_rnn_cells(node: dict, x_shape: list) -> None:
    """Raise TeacherError where rnn_cells cannot stand in for the recurrent layer: unbatched input, an LSTM
    projection, dropout between layers (random), or keyword arguments."""
    ma = node.get("module_args") or {}
    if len(x_shape) != 3:
        raise TeacherError(f"{node['op']} with a {len(x_shape)}-D input: rnn_cells takes batched input only")
    if ma.get("proj_size"):
        raise TeacherError("lstm with proj_size: rnn_cells has no projection")
    if ma.get("dropout") and int(ma.get("num_layers", 1)) > 1:
        raise TeacherError(f"{node['op']} with dropout between layers is random: it stays the library's call")
    if (node["attrs"] or {}).get("kwargs"):
        raise TeacherError(f"{node['op']} called with keyword arguments")


def kept_comment(op: str, cells: bool = False) -> str:
    """Forward's comment above an op kept in torch; it names KEPT_TORCH_OP, so `keeps_torch_ops` finds it."""
    if cells:
        return f"# {op} {KEPT_TORCH_OP} for its GEMMs (cuBLAS); rnn_cells runs its cells in Triton, a kernel a step"
    if op == "cat":
        return "# cat of many tensors: cat_copy writes each into its slice with a Triton copy kernel"
    if op in ("full", "randn"):
        return f"# {op} {KEPT_TORCH_OP}: a tensor made in forward, as the reference makes it"
    if op == "dropout":
        return f"# dropout with p > 0 in training mode is random: it {KEPT_TORCH_OP} (the same RNG draw as the reference)"
    return f"# {op} {KEPT_TORCH_OP} (cuBLAS/cuDNN); the Triton kernels compute what follows it"


KEPT_TORCH_OP = "stays a torch op"  # forward's comment where an op is kept in torch: the solution is hybrid


def keeps_torch_ops(solution: str) -> bool:
    """Whether a teacher solution calls a torch compute op in forward (a random dropout, or a heavy op under
    heavy="torch"), so the judge must verify it under the hybrid policy (strict forbids every torch compute op)."""
    return KEPT_TORCH_OP in solution


def resolve_program(record_or_program, source: str | None = None) -> tuple[dict, str | None]:
    """(program dict, task source) of what compile_program accepts: a task record, a program dict from synth
    (with `source`) or a KernelBench task source string (traced with synth.load_task)."""
    if isinstance(record_or_program, str):
        return synth.load_task(record_or_program), record_or_program
    rec = record_or_program
    program = rec.get("program", rec)
    source = source or rec.get("source") or program.get("source")
    if "nodes" not in program:
        program = synth.load_task(source, filename=rec.get("file"))
    return program, source


def compile_program(record_or_program, seed: int = 0, target: str = "cpu", source: str | None = None,
                    generic_names: bool = False, dot_precision: str = "ieee", sizes: str = "literal",
                    heavy: str = "triton", cells: bool = False) -> str:
    """Solution source (a KernelBench ModelNew with Triton kernels) for a task record, a program dict from
    synth (with `source`) or a KernelBench task source string. sizes="symbolic" writes sizes as names bound
    from the tensors' shapes (module docstring); heavy="torch" keeps GEMMs and convolutions as torch calls
    (HEAVY_PLACES); cells=True (with a heavy other than "triton") runs recurrent layers as rnn_cells (RNN_SRC).
    Raises TeacherError if unsupported, and for heavy="torch" where there is no heavy op or nothing left for
    Triton (a lone convolution)."""
    program, source = resolve_program(record_or_program, source)
    if not source:
        raise TeacherError("the program has no task source (needed for Model.__init__)")
    P = Prog(program, sizes, source, heavy, fold_bias=heavy in CL_HEAVY or (heavy == "torch" and target != "cpu"),
             cells=cells)
    st = Style(seed, target, generic_names, dot_precision)
    if P.output not in P.t:
        raise TeacherError(f"output {P.output!r} is not a tensor of the program")
    if heavy in HEAVY_PLACES[1:]:
        kept = [n for n in P.nodes if n["op"].startswith("torch:") and (n["op"][6:] in HEAVY_OPS or (
            n["op"][6:] in synth.OPS and synth.OPS[n["op"][6:]].kind == "library"))]
        if not kept:
            raise TeacherError(f"heavy='{heavy}': the program has no GEMM, convolution or library layer to keep in torch")
    if heavy in CL_HEAVY:
        if not P.cl:
            raise TeacherError("heavy='torch-cl': no 2-D or 3-D convolution to run channels-last")
        for t in P.cl:  # only Triton kernels may read the channels-last output (views and torch ops assume NCHW)
            if t == P.output or any(t in n["inputs"] and (is_view(n) or n["op"].startswith("torch:"))
                                    for n in P.nodes):
                raise TeacherError("heavy='torch-cl': a channels-last convolution output is returned, viewed "
                                   "or handed to a torch op")

    if P.kind(P.output) == "leaf":
        raise TeacherError("the program's output is an input: nothing to compute")
    for n in P.nodes:
        if is_view(n):
            P.t[n["name"]].ref = n["name"]
    launches = plan(P)
    kernels = [build_kernel(P, st, A, E) for A, E in launches]
    cells_used = any(n["op"].startswith("torch:") and n["attrs"].get("cells") for n in P.nodes)
    if cells and not cells_used:
        raise TeacherError("no recurrent layer (nn.RNN/LSTM/GRU) to run as Triton cells")
    if not kernels and not cells_used:
        kept = sorted({n["op"][6:] for n in P.nodes if n["op"].startswith("torch:")})
        why = {"dropout": "dropout with p > 0 in training mode (random)"}
        raise TeacherError("nothing to compute in Triton" + (
            f": what the program computes stays torch's ({', '.join(why.get(op, op) for op in kept)})" if kept
            else ""))
    by_end = {k.out: k for k in kernels}
    init_src, consts = _init_from_source(source)
    fargs, params = forward_signature(source, len(P.input_names))
    rename = dict(zip(P.input_names, fargs))
    taken = {k.name for k in kernels} | {k.wrapper for k in kernels} | {"torch", "nn", "triton", "tl", "self", TO_CL,
                                                                          RNN_FN, CAT_FN}
    for n in P.nodes:  # forward locals must not shadow the wrappers (imported nodes are named after ops)
        if n["name"] in taken:
            rename[n["name"]] = f"{n['name']}_out"
    for name, t in P.t.items():
        if t.ref is not None and t.ref in rename:
            t.ref = rename[t.ref]
    for k in kernels:
        k.leaf_refs = [rename.get(r, r) for r in k.leaf_refs]
    kernels, same_as = dedupe_kernels(kernels)
    body = []
    for n in P.nodes:
        var = rename.get(n["name"], n["name"])
        if n["name"] in by_end:
            k = by_end[n["name"]]
            body.append(f"{var} = {same_as.get(k.wrapper, k.wrapper)}({', '.join(k.leaf_refs)})")
        elif is_view(n):
            if n["op"].startswith("torch:"):
                body.append(kept_comment(n["op"][6:], n["attrs"].get("cells", False)))
            body.append(f"{var} = {view_call(P, n)}")
    ret = P.t[P.output].ref
    lines = ["import torch", "import torch.nn as nn", "import triton", "import triton.language as tl", ""]
    if consts:
        lines += consts + [""]
    # ModelNew first, its kernels and launchers after it (forward looks them up when it runs): the constructor,
    # a verbatim copy of Model's, is written right after the prompt shows it. At the end of a long answer the
    # copy was 1,000+ tokens away, and gpu-small's model dropped or invented arguments on 57 of KernelBench
    # level 2's answers (signature_mismatch).
    init_lines = ["    " + ln for ln in init_src.splitlines()]
    lines += ["", "class ModelNew(nn.Module):"] + init_lines + [""]
    lines.append(f"    def forward(self, {params}):")
    lines += ["        " + b for b in body] + [f"        return {ret}", ""]
    for k in kernels:
        lines += ["", k.src, "", "", k.wrapper_src, ""]
    if any(n["attrs"].get("channels_last") for n in P.nodes):
        lines += ["", TO_CL_SRC, ""]
    if cells_used:
        lines += ["", RNN_SRC, ""]
    if any(n["op"] == "torch:cat" for n in P.nodes):
        lines += ["", CAT_SRC, ""]
    return "\n".join(lines)


PLANS = ("triton", "triton-tf32x3", "triton-tf32", "triton-bf16x3", "hybrid", "hybrid-cl", "hybrid-fp16",
         "hybrid-cells")
# Plans with fp16 operands or outputs: outside what the reference itself computes in, so a precision-faithful run
# (eval.py --precision fp32) leaves them out. TF32 convolutions stay: eager's own cuDNN convolutions run in TF32.
FP16_PLANS = ("hybrid-fp16",)
CONV_OPS = {op for op in HEAVY_OPS if op.startswith("conv")}


def plans(record_or_program, seed: int = 0, target: str = "cpu", source: str | None = None,
          only=PLANS) -> list[tuple[str, str]]:
    """The teacher's candidate solutions for one task, [(plan, solution)], each judged and the fastest correct
    kept (the choice is measured, not a fixed rule):
      triton:        every op in Triton, fp32 dots in "ieee" precision (as eager PyTorch computes);
      triton-tf32x3: the same with tensor-core "tf32x3" dots (only where the program has a dot);
      triton-tf32:   one-pass "tf32" dots, only where every dot is a convolution's: the precision eager PyTorch
                     computes convolutions in (cuDNN with TF32, PyTorch's default), so no less accurate than the
                     reference (the judge's tolerance still decides);
      triton-bf16x3: GEMMs as three bf16 tensor-core dots of split operands (k_matmul_bf16x3), fp32-level error;
                     only where the program has a GEMM (its conv and attention dots are tf32x3);
      hybrid:        GEMMs and convolutions stay torch (cuBLAS/cuDNN), the rest fused in Triton (only where a
                     heavy op exists and some other op is left for Triton);
      hybrid-cl:     the same with the 2-D/3-D convolutions run channels-last, the kernels after them reading
                     that layout (only where no view or torch op takes such an output);
      hybrid-fp16:   hybrid-cl with those convolutions in float16 on cuDNN's tensor cores (heavy="torch-cl16",
                     to_channels_last): TF32's 10 mantissa bits, the output rounded to fp16, for the judge's 1e-2
                     tolerance (never KernelBench's 1e-4); the kernels after it compute in fp32;
      hybrid-cells:  hybrid with each recurrent layer (nn.RNN/LSTM/GRU) as rnn_cells: its GEMMs in torch, its
                     cells in Triton (only where the program has one; where the layer is all the task computes,
                     the hybrid plan's answer leaves Triton nothing of the task's work).
    only: the plans to try (a subset of PLANS). A plan the teacher cannot build is left out; TeacherError only
    if none can be built (the first plan's error). Where both tf32 plans are asked for and triton-tf32 applies
    (every dot is a convolution's), triton-tf32x3 is left out: the same kernels with three dots for one, to an
    accuracy beyond the reference's own TF32 convolutions (its all-Triton transposed convolutions
    ran 10-80 ms a call and held the GPU's timing lock for the sweep's longest stretches)."""
    out, first_error = [], None
    options = {"triton": {}, "triton-tf32x3": {"dot_precision": "tf32x3"}, "triton-tf32": {"dot_precision": "tf32"},
               "triton-bf16x3": {"dot_precision": "bf16x3"}, "hybrid": {"heavy": "torch"},
               "hybrid-cl": {"heavy": "torch-cl"}, "hybrid-fp16": {"heavy": "torch-cl16"},
               "hybrid-cells": {"heavy": "torch", "cells": True}}
    program, source = resolve_program(record_or_program, source)
    ops = {n["op"] for n in program["nodes"]}
    dot_kinds = {synth.OPS[op].kind for op in ops if op in synth.OPS} & {"matmul", "attention", "conv", "conv_transpose"}
    conv_dots_only = bool(ops & CONV_OPS) and not dot_kinds - {"conv", "conv_transpose"}
    for plan in only:
        kw = options[plan]
        if plan == "triton-tf32" and not conv_dots_only:
            continue
        if plan == "triton-tf32x3" and conv_dots_only and "triton-tf32" in only:
            continue
        try:
            sol = compile_program(program, seed=seed, target=target, source=source, **kw)
        except TeacherError as e:
            first_error = first_error or e
            continue
        if plan in ("triton-tf32x3", "triton-tf32") and "tl.dot(" not in sol or \
                plan == "triton-bf16x3" and "_split_bf16" not in sol:
            continue
        out.append((plan, sol))
    if not out:
        raise first_error or TeacherError(f"none of the plans {', '.join(only)} applies to this program (the "
                                          "tf32 plans need a dot, triton-tf32 only convolutions' dots)")
    return out


def add_plan_flags(parser, plans_effect: str) -> None:
    """--teacher-dot-precision and --teacher-plans, as eval.py and search.py take them (plans_effect: what each
    plan becomes there)."""
    parser.add_argument("--teacher-dot-precision", choices=["ieee", "tf32x3", "bf16x3"], default="ieee",
                        help="--policy teacher: fp32 tl.dot precision of its GEMM/conv/attention kernels")
    parser.add_argument("--teacher-plans", default=None,
                        help=f"--policy teacher: comma list of teacher plans ({', '.join(PLANS)}) or 'all'; "
                             + plans_effect)


def completion_text(solution: str, seed: int = 0) -> str:
    """One short sentence plus the solution in one python block (the SFT target)."""
    kernels = [ln for ln in solution.splitlines() if ln.startswith("@triton.jit")]
    rng = random.Random(f"sentence:{seed}")
    n = len(kernels)
    sentence = rng.choice([
        f"Here is a Triton implementation with {n} fused kernel{'s' if n != 1 else ''}.",
        f"The model below runs every operation in Triton, fused into {n} kernel{'s' if n != 1 else ''}.",
        f"This version replaces the PyTorch ops with {n} Triton kernel{'s' if n != 1 else ''}, fusing elementwise work.",
    ])
    return f"{sentence}\n\n```python\n{solution.strip()}\n```\n"


# --------------------------------------------------------------------------------------------------
# CLI: compile, verify with the judge, write verified SFT pairs
# --------------------------------------------------------------------------------------------------
def launch_geometry(solution: str, task_source: str, resources: bool = False) -> list[dict]:
    """The kernel launches of one forward of `solution` on the task's inputs, recorded instead of run:
    [{kernel, programs, elements (of the largest tensor argument), per_program, grid}]. `triton.jit` is swapped
    for a recorder while the solution is defined, and the model runs on meta tensors, so this needs no GPU,
    runs no kernel and allocates no tensor: a CPU-side check of the GPU target's geometry at any size
    (`teacher.py --launches`). resources: each launch is also compiled for an
    H200 (`kernel_resources`: registers and stack bytes a thread). For the teacher's own solutions only: it
    execs the source in this process (never a model's)."""
    import torch
    import triton

    launches, specs = [], []

    class Recorder:
        def __init__(self, fn):
            self.name = fn.__name__
            self.params = [(n, n in fn.__annotations__ and "constexpr" in str(fn.__annotations__[n]))
                           for n in fn.__code__.co_varnames[:fn.__code__.co_argcount]]

        def __getitem__(self, grid):
            def launch(*args, **meta):
                dims = tuple(grid(meta) if callable(grid) else grid)
                programs = math.prod(int(d) for d in dims)
                elements = max([a.numel() for a in args if isinstance(a, torch.Tensor)] + [0])
                launches.append({"kernel": self.name, "programs": programs, "elements": elements,
                                 "per_program": elements // max(1, programs), "grid": [int(d) for d in dims]})
                if resources:
                    specs.append(_launch_spec(self.name, self.params, args, meta))
            return launch

    task, ns = {}, {}
    exec(compile(task_source, "<task>", "exec"), task)
    jit = triton.jit
    triton.jit = lambda fn=None, **kw: Recorder(fn) if fn is not None else Recorder
    try:
        exec(compile(solution, "<solution>", "exec"), ns)
    finally:
        triton.jit = jit
    torch.manual_seed(0)
    with torch.device("meta"), torch.no_grad():   # shapes only: real KernelBench sizes allocate nothing
        model = ns["ModelNew"](*task["get_init_inputs"]())
        model(*task["get_inputs"]())
    if resources:
        for row, usage in zip(launches, kernel_resources(solution, specs)):
            row.update(usage)
    return launches


RESOURCE_TARGET = ("cuda", 90, 32)  # what `kernel_resources` compiles for: an H100/H200 (sm_90, 32-thread warps)
_TORCH_POINTER_TYPES = {"float32": "*fp32", "float16": "*fp16", "bfloat16": "*bf16", "float64": "*fp64",
                        "int64": "*i64", "int32": "*i32", "int16": "*i16", "int8": "*i8", "uint8": "*u8", "bool": "*i1"}


def _launch_spec(kernel, params, args, meta) -> dict:
    """What Triton compiles one launch from: {kernel, signature (name -> type), constants, options}."""
    import torch
    meta = dict(meta)
    options = {k: meta.pop(k) for k in ("num_warps", "num_stages") if k in meta}
    signature, constants = {}, dict(meta)
    for (name, constexpr), a in zip(params, args):
        if constexpr:
            constants[name] = a
        elif isinstance(a, torch.Tensor):
            signature[name] = _TORCH_POINTER_TYPES[str(a.dtype).removeprefix("torch.")]
        elif isinstance(a, bool):
            signature[name] = "i1"
        elif isinstance(a, int):
            signature[name] = "i32" if -2 ** 31 <= a < 2 ** 31 else "i64"
        else:
            signature[name] = "fp32"
    signature.update({k: "constexpr" for k in constants})
    return {"kernel": kernel, "signature": signature, "constants": constants, "options": options}


def kernel_resources(solution: str, specs: list[dict]) -> list[dict]:
    """{registers, stack_bytes} a thread and the block's shared_bytes for each launch spec (`_launch_spec`) of the
    solution's kernels, compiled by Triton for RESOURCE_TARGET and read back with the cuobjdump that ships with
    Triton: no GPU needed. Stack beyond a few dozen bytes is register spills (libdevice's sin/cos keep 32
    bytes): a 128-wide attention head once compiled to 32 registers and 6.7 KB of stack (0.02x eager on the
    H200). Triton
    imported in interpreter mode cannot generate code, so then a child process without TRITON_INTERPRET
    compiles (`--resources-of`)."""
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        import subprocess
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--resources-of", "-"],
                             input=json.dumps({"solution": solution, "specs": specs}), capture_output=True,
                             text=True, env=env, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])
    import importlib.util
    import subprocess
    import tempfile

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "solution.py")  # Triton reads the kernels' source lines from a file
        with open(path, "w") as f:
            f.write(solution)
        spec_ = importlib.util.spec_from_file_location("teacher_solution", path)
        mod = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(mod)
        out = []
        for s in specs:
            compiled = triton.compile(ASTSource(fn=getattr(mod, s["kernel"]), signature=s["signature"],
                                                constexprs=s["constants"]),
                                      target=GPUTarget(*RESOURCE_TARGET), options=s["options"])
            cubin = os.path.join(tmp, "kernel.cubin")
            with open(cubin, "wb") as f:
                f.write(compiled.asm["cubin"])
            dump = subprocess.run([tool, "--dump-resource-usage", cubin], capture_output=True, text=True,
                                  check=True).stdout
            usage = dict(m.groups() for m in re.finditer(r"(REG|STACK):(\d+)", dump))
            out.append({"registers": int(usage["REG"]), "stack_bytes": int(usage["STACK"]),
                        "shared_bytes": int(getattr(compiled.metadata, "shared", 0) or 0)})
    return out


SPILL_STACK_BYTES = 32  # `--launches --resources` marks kernels with more stack than this (register spills)
SHARED_MAX_BYTES = 232448  # ... and kernels asking for more shared memory than an sm_90 block may have (no launch)


def grid_fits(grid: list) -> bool:
    """Whether a launch grid is within CUDA's limits (x up to 2^31 - 1 programs, y and z up to 65,535)."""
    return all(0 < d <= (2 ** 31 - 1 if k == 0 else 65535) for k, d in enumerate(grid))


def print_launches(tasks, args) -> int:
    """`--launches`: each program's GPU-target launches; `!` marks one that leaves SMs idle (fewer programs
    than SM_COUNT) while each program handles over 8,192 elements (a candidate for smaller blocks or a split);
    `G` one whose grid exceeds CUDA's limits; with --resources, `S` one whose kernel spills registers on
    sm_90 and `M` one that asks for more shared memory than a block may have there (it would not launch:
    KernelBench L1 97's tf32x3 attention, 278,528 bytes)."""
    flagged = spilled = over_grid = over_shared = failed = 0
    for i, rec in enumerate(tasks):
        try:
            sol = compile_program(rec, seed=args.seed + (i if args.style == "varied" else 0), target="cuda",
                                  generic_names=args.style == "fixed", sizes=args.sizes, heavy=args.heavy,
                                  dot_precision=args.dot_precision)
            rows = launch_geometry(sol, rec["source"], resources=args.resources)
        except Exception as e:  # one program's failure is reported, the rest still print
            print(f"{rec['id']}: {type(e).__name__}: {e}")
            failed += 1
            continue
        marks = [("!" if r["programs"] < SM_COUNT and r["per_program"] > 8192 else " ") +
                 ("S" if r.get("stack_bytes", 0) > SPILL_STACK_BYTES else " ") +
                 ("G" if not grid_fits(r["grid"]) else " ") +
                 ("M" if r.get("shared_bytes", 0) > SHARED_MAX_BYTES else " ") for r in rows]
        flagged += any("!" in m for m in marks)
        spilled += any("S" in m for m in marks)
        over_grid += any("G" in m for m in marks)
        over_shared += any("M" in m for m in marks)
        print(f"{rec['id']} [{' -> '.join(rec.get('ops') or [])}]")
        for mark, r in zip(marks, rows):
            extra = f"  registers {r['registers']:>3}  stack {r['stack_bytes']:>5}  shared {r['shared_bytes']:>6}" \
                if "registers" in r else ""
            print(f" {mark} {r['kernel']:<40} programs {r['programs']:>7}  elements {r['elements']:>10}  "
                  f"per program {r['per_program']:>8}  grid {r['grid']}{extra}")
    print(f"{failed}/{len(tasks)} programs failed to compile or record; {over_grid}/{len(tasks)} have a launch "
          f"marked G (a grid beyond CUDA's limits: x < 2^31, y and z <= 65,535)")
    print(f"{flagged}/{len(tasks)} programs have a launch marked ! (< {SM_COUNT} programs, > 8,192 elements each)")
    if args.resources:
        print(f"{spilled}/{len(tasks)} programs have a kernel marked S (> {SPILL_STACK_BYTES} bytes of stack a "
              f"thread on sm_90: register spills)")
        print(f"{over_shared}/{len(tasks)} programs have a kernel marked M (> {SHARED_MAX_BYTES} bytes of shared "
              f"memory a block on sm_90: it does not launch)")
    return 0


def main(argv=None, verify_by_policy=None, task_prompt=None) -> int:
    """`python teacher.py`. Verifying pairs needs the judge and the prompt, which sit above the teacher on the
    ladder (shared/DESIGN.md "Files"): the entry point at the end of this file hands them in
    (reward.verify_by_policy, policy.task_prompt). Without them only --launches runs. A bad flag or input
    raises synth.UsageError, found before any work (synth.run_main turns it into one line, exit 2)."""
    p = synth.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", help="task JSONL (synth.py --out) or a directory of .py tasks (required)")
    p.add_argument("--out", default=None, help="output JSONL of verified SFT pairs")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="judge device (cpu = Triton interpreter)")
    p.add_argument("--workers", type=int, default=2, help="judge worker processes")
    p.add_argument("--seed", type=int, default=0, help="seed for surface variation (names, block sizes)")
    p.add_argument("--style", choices=["varied", "fixed"], default="varied",
                   help="varied: each task gets its own surface style (seed + task index), so a model does not "
                        "learn one string per op; fixed: every task uses --seed's style (a tiny model trained "
                        "from scratch for minutes learns consistent names far more easily), and kernels are named "
                        "generically (triton_kernel, launch_triton) rather than after their ops")
    p.add_argument("--dot-precision", choices=DOT_PRECISIONS, default="ieee",
                   help="fp32 tl.dot precision of GEMM, conv and attention kernels (see DOT_PRECISIONS)")
    p.add_argument("--sizes", choices=["literal", "symbolic"], default="literal",
                   help="literal: sizes are integers in kernels and wrappers; symbolic: sizes are names bound from "
                        "the inputs' shapes (batch_size, channels, ... as the task source calls them) and passed to "
                        "kernels as constexprs, so a model copies names instead of doing arithmetic on sizes")
    p.add_argument("--heavy", choices=HEAVY_PLACES, default="triton",
                   help="where GEMMs and convolutions run: triton compiles them like any op; torch keeps them as "
                        "the task's own torch call (the hybrid plan: cuBLAS/cuDNN, the ops after them fused in "
                        "Triton) where another op is left for Triton, and compiles the other programs all-Triton; "
                        "torch-cl also runs 2-D/3-D convolutions channels-last with epilogues that read that layout; "
                        "torch-cl16 runs them so in float16 (fp32 accumulation, output float16)")
    p.add_argument("--timeout-s", type=float, default=120.0, help="judge wall-clock limit per solution (s)")
    p.add_argument("--verdict-cache", default=None, metavar="JSONL",
                   help="correct verdicts kept across runs (reward.VerdictCache: keyed by the task source, the "
                        "solution, the judge's code and settings and the torch/triton versions): a pair judged "
                        "correct before is not judged again")
    p.add_argument("--limit", type=int, default=0, help="only the first N tasks (0 = all)")
    p.add_argument("--launches", action="store_true",
                   help="no judging: print the GPU-target solutions' kernel launches (programs, elements per "
                        "program), recorded on the CPU without running a kernel; marks launches that leave SMs idle")
    p.add_argument("--resources", action="store_true",
                   help="with --launches: compile each launch for an H200 (sm_90, no GPU needed) and print its "
                        "registers and stack bytes a thread; marks kernels that spill")
    p.add_argument("--resources-of", default=None, help=argparse.SUPPRESS)  # kernel_resources' child: JSON on stdin
    args = p.parse_args(argv)
    if args.resources_of:
        job = json.load(sys.stdin)
        print(json.dumps(kernel_resources(job["solution"], job["specs"])))
        return 0
    if not args.tasks:
        p.error("--tasks is required")
    if args.resources and not args.launches:
        p.error("--resources goes with --launches")
    synth.check_at_least(args, ("workers",))
    synth.check_at_least(args, ("limit",), low=0)
    if args.timeout_s <= 0:
        raise synth.UsageError(f"--timeout-s must be > 0, got {args.timeout_s}")
    try:
        tasks = synth.read_tasks(args.tasks)
    except (OSError, ValueError) as e:  # missing, empty, malformed: the message names the file (and line)
        raise synth.UsageError(f"--tasks: {synth.one_line(e)}") from None
    if args.launches:
        return print_launches(tasks[:args.limit or None], args)
    if verify_by_policy is None or task_prompt is None:
        p.error("verifying pairs needs the judge and the prompt: run `python teacher.py` (its entry point hands "
                "them in), or pass --launches")
    for path, flag in ((args.out, "--out"), ((args.out or "teacher") + ".run.json", "--out"),
                       (args.verdict_cache, "--verdict-cache")):
        if path:
            synth.check_out_path(path, flag)  # before the compiling and judging, not after
    if args.device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    if args.limit:
        tasks = tasks[:args.limit]
    t0 = time.time()
    pairs, sols, failures = [], [], []
    options = {}  # task id -> compile_program's options of a hybrid (compiled again all-Triton on torch_fallback)
    for i, rec in enumerate(tasks):
        kw = dict(seed=args.seed + (i if args.style == "varied" else 0), target=args.device,
                  generic_names=args.style == "fixed", dot_precision=args.dot_precision, sizes=args.sizes)
        try:
            sol = None
            # torch-cl falls back to torch, and both to the all-Triton solution (no heavy op, nothing left for
            # Triton, no channels-last epilogue)
            for heavy in HEAVY_PLACES[HEAVY_PLACES.index(args.heavy):0:-1]:
                try:
                    sol = compile_program(rec, heavy=heavy, **kw)
                    options[rec["id"]] = kw
                    break
                except TeacherError:
                    pass
            sols.append((rec, sol or compile_program(rec, **kw)))
        except TeacherError as e:
            failures.append((rec, "teacher_error", str(e)))
        except Exception as e:  # a teacher bug on one program must not lose the rest of a long run
            if any(n.startswith("import stage") for n in getattr(e, "__notes__", [])):  # the task's own fault
                where = rec.get("file") or str(rec["id"])
                text = f"{type(e).__name__}: {e}"
                failures.append((rec, "import_error", synth.one_line(text if where in text else f"{where}: {text}")))
            else:
                failures.append((rec, "teacher_bug", f"{type(e).__name__}: {e} (please report: a bug in the "
                                                     "teacher)"))

    def verify(batch):  # a random dropout stays torch: policy hybrid for a solution that keeps a torch op
        return verify_by_policy([(rec["source"], sol) for rec, sol in batch],
                                ["hybrid" if keeps_torch_ops(sol) else "strict" for _, sol in batch],
                                workers=args.workers, device=args.device, timeout_s=args.timeout_s,
                                cache=args.verdict_cache)

    print(f"compiled {len(sols)}/{len(tasks)} in {time.time() - t0:.1f}s; verifying with the judge "
          f"({args.device}, {args.workers} workers, policy strict; hybrid for the "
          f"{sum(keeps_torch_ops(sol) for _, sol in sols)} that keep a torch op)")
    verdicts = verify(sols)
    # A kept GEMM/conv whose Triton kernels the judge finds doing none of the work (torch_fallback: the epilogue
    # is a view, a second GEMM, or the identity on the trial data, as exp -> log) is compiled all-Triton and
    # judged again (otherwise about 1% of the hybrid programs of a data step are lost this way)
    redo = []
    for i, ((rec, sol), v) in enumerate(zip(sols, verdicts)):
        if v.error_type == "torch_fallback" and rec["id"] in options:
            with contextlib.suppress(TeacherError):
                redo.append((i, (rec, compile_program(rec, **options[rec["id"]]))))
    if redo:
        print(f"{len(redo)} hybrid solutions were torch_fallback: judging them again all-Triton")
        for (i, pair), v in zip(redo, verify([pair for _, pair in redo])):
            sols[i], verdicts[i] = pair, v
    per_op, per_level = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    for rec, _, _ in failures:
        for o in set(rec.get("ops") or []):
            per_op[o][1] += 1
        per_level[rec.get("level")][1] += 1
    for (rec, sol), v in zip(sols, verdicts):
        ok = bool(v.correct)
        for o in set(rec.get("ops") or []):
            per_op[o][0] += ok
            per_op[o][1] += 1
        per_level[rec.get("level")][0] += ok
        per_level[rec.get("level")][1] += 1
        if ok:
            pairs.append({"task_id": rec["id"], "prompt": task_prompt(rec["source"]),
                          "completion": completion_text(sol, seed=args.seed + (len(pairs) if args.style == "varied" else 0)),
                          "verdict": v.to_dict()})
        else:
            failures.append((rec, v.error_type, (v.error_msg or "")[:300]))
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out + ".tmp", "w") as f:
            for pr in pairs:
                f.write(json.dumps(pr) + "\n")
        os.replace(args.out + ".tmp", args.out)
    with open((args.out or "teacher") + ".run.json", "w") as f:
        json.dump({"argv": sys.argv, "args": vars(args), "n_tasks": len(tasks), "n_pairs": len(pairs)}, f)
    print("per level: " + ", ".join(f"L{lv}: {a}/{b} ({100 * a / max(1, b):.1f}%)"
                                    for lv, (a, b) in sorted(per_level.items(), key=lambda kv: str(kv[0]))))
    print("per op (pass/total): " + ", ".join(f"{o}={a}/{b}" for o, (a, b) in sorted(per_op.items())))
    errs = Counter(e for _, e, _ in failures)
    print(f"failures: {len(failures)} " + (str(dict(errs)) if errs else ""))
    for rec, e, msg in failures[:50]:
        print(f"  {rec['id']} [{' -> '.join(rec.get('ops') or [])}] {e}: {msg}")
    total = len(tasks)
    print(f"verified {len(pairs)}/{total} ({100 * len(pairs) / max(1, total):.1f}%) in {time.time() - t0:.1f}s"
          + (f" -> {args.out}" if args.out else ""))
    return 0


if __name__ == "__main__":
    # The command line reaches up the ladder: the judge (reward.py) verifies the pairs and the prompt (policy.py)
    # heads them. Only this block does; it runs as __main__, which no file imports, so it closes no import
    # circle (tests/test_layering.py leaves it out).
    def verify_by_policy(*args, **kwargs):  # imported when pairs are verified: --help and --launches stay light
        import reward

        return reward.verify_by_policy(*args, **kwargs)

    def task_prompt(source):
        import policy

        return policy.task_prompt(source)

    sys.exit(synth.run_main(lambda argv: main(argv, verify_by_policy=verify_by_policy, task_prompt=task_prompt),
                            on_interrupt="interrupted; nothing was written to --out (it is written at the end; "
                                         "verdicts judged so far stay in --verdict-cache)"))
