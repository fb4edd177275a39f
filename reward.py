"""The judge: is a model-written Triton solution correct, honest and fast? And the rewards built on it.

    python reward.py --task tests/judge_tasks/relu_add.py --solution tests/judge_tasks/good/relu_add.py
    python reward.py --task TASK.py --completion model_output.txt --device cuda --policy strict --seed 1234

Exit status: 0 correct, 1 incorrect, 2 broken task or usage error (one line on stderr, no traceback).

Three roles, three kinds of process (shared/DESIGN.md, "The judge"). Model-written code never runs in this (the
trainer's) process, nor in one that holds anything its verdict depends on.
  the static gate (`static_check`, pure AST analysis) refuses an answer before any process runs it;
  the reference side and comparator (`_Worker`, one per worker process): computes the reference outputs of each
     trial, times the reference on the GPU (or takes its times from the BaselineCache), compares what the answer
     returns and writes the verdict. It never imports answer code, so it serves many answers;
  the answer process (`_Answer`, one per answer): forked for that answer alone from the answer hatch, a clean
     helper that each worker forks before it touches CUDA or a task (torch and Triton imported, nothing else).
     It imports the answer from a file in its own directory (own TRITON_CACHE_DIR, HOME, TMPDIR), builds
     ModelNew, draws each trial's inputs from the seed the worker sends (the same draw as the reference's),
     runs the forward under the op recorder and sends back the outputs as raw bytes after a JSON header (never
     pickle; large ones through a memfd the worker made, sealed against shrinking, which the worker compares in
     place before its next request, while the answer process waits for it), with the launches and the aten ops
     it recorded. It holds no reference output, no reference model,
     no timing the verdict uses, and compares nothing. It is killed after its verdict and never reused.
Worker processes lead their own session (process group), have an environment scrubbed to an allowlist, their
own temp cwd, rlimits CUDA tolerates, and a hard wall-clock limit per answer enforced by the Judge, which kills
the whole group (the answer process is in it). The Judge also kills a worker past its host RSS cap. Memory caps
follow the machine (`memory_caps`): a share of the host's and GPU's memory per worker, with floors; an `oom`
verdict runs once more alone, with the caps lifted (oom_retried_exclusive, exclusive_task, BaselineCache's
ref_oom). Workers start forked from one zygote per Judge (default on Linux; it imports torch and Triton once
and never runs candidate code) or spawned (`start_method`).

A candidate is correct only if:
  1. it parses and passes the static gate: an allow-list resolved on the AST (aliases and attribute chains are
     resolved to the dotted path they stand for): imports of torch, torch.nn, torch.nn.functional, triton,
     triton.language and math only, and the names GATE_STDLIB lists of itertools and collections, none that
     the module lacks (unknown_name); under torch an allow-list too (GATE_TORCH_MODULES and the names beside
     it: C ops, tensors, dtypes, nn, F, init, linalg, fft, special, a few torch.cuda queries; no dispatch key
     guards, torch.ao, torch.accelerator, JIT types: torch_internals); no reflection (getattr/setattr/vars/type,
     dunders, private names, str.format but on a literal template of plain fields, modules used as values or
     reached through another module -- both judged on the objects a path names, so F.torch is the module torch
     --, attributes refused on an object reached through its class's path,
     gc/inspect/sys/os/ctypes/importlib/builtins/numpy; a refused builtin's name is not bound in a module or
     class body, where a read before the binding is the builtin), no
     dynamic code or file access, no assignment to attributes of anything but self in a method, no module-level
     code beyond imports, definitions and constants (import time is outside the recorded forward), no
     try/except, threads, streams, hooks, Tensor subclasses or use of the reference Model; and it defines a
     @triton.jit kernel. A failure names the rule and the line (flags static:<rule>). A plainly written ModelNew
     whose constructor cannot take the task's get_init_inputs() fails here too (`init_signature_error`);
  2. its answer process imports it and builds ModelNew (right after MODEL_SEED, as the reference's Model);
  3. over the trials of `trial_plan` (seeds fresh per verify_many call unless Judge(seed=...) or --seed is
     given; Verdict.seed records it) the output has exactly type torch.Tensor, the reference's shape and dtype,
     is within the tolerance table elementwise (|out - ref| <= atol + rtol |ref|, `_chunked_close`) and as a
     whole (||out - ref|| / ||ref|| <= rtol, `whole_output_rule`: an all-zeros answer to outputs below atol
     fails it, unless the reference is itself mostly rounding: `reference_noise`), and the inputs are unchanged
     (NaN where they held NaN). Besides the task's own draws, the plan widens the inputs
     (`widen_inputs`): sign-symmetric trials, trials with a random block scaled and trials with one random slice
     scaled to about a tenth of the input's weight (a statistic read from a fixed part of the indices either
     overweights it or misses it), wherever the reference stays finite there (else that trial is drawn plainly,
     flag trial_not_widened:<kind>);
  4. every forward launches >= 1 Triton kernel (the launchers are wrapped in the answer process);
  5. faithfulness: one more trial, drawn like the others at a random place in the plan but the first, runs with every
     launch suppressed and fresh empty* buffers poisoned; its output must be wrong;
  6. every aten op that ran during the forward is recorded at the dispatcher (a TorchDispatchMode), grid
     callables, autotune hooks and launchers included, so spelling changes nothing. `strict`: only allocation,
     view and copy ops. `hybrid` (default, as the paper): torch may also run GEMMs and convolutions (as many
     calls and multiply-adds as the reference's, more calls where one GEMM is split or the answer replaces the
     reference's attention or recurrent layer, whose multiply-adds then join the bound; a GEMM's accumulate
     operand or a convolution's bias is an add unless it is a bias broadcast over the output or, for a GEMM,
     what an earlier GEMM wrote: `_accumulates`; a reduction under 8 and under an eighth of the reference's
     shortest is elementwise work), dropout, and as many calls of each library layer (LIBRARY_LAYERS: an LSTM,
     attention, each of its classes and submodules' classes exactly as torch made them, holding and given only
     plain values: `_plain_layer`) as the reference makes (`hybrid_extra_ops`). Values read into Python
     (float(t), .item(), iteration to scalars, repr/str/format of a tensor, which the recorder counts itself)
     are compute ops too, but for a scalar parameter or buffer still holding its value as built
     (`_reads_constant`); not every compute op of the reference, and no torch op may already have computed the
     output before a later Triton launch (`_FallbackWatch`); all else is Triton's. A failure is torch_fallback
     with the rule in its flags (policy:hybrid_ops, policy:covers_reference, policy:torch_answer);
  7. the identities of critical functions in the answer process (torch, torch.Tensor, torch.nn, the launchers,
     this module) are unchanged after import and after every forward (patched_critical).
Timing (CUDA only, after correctness): the eager reference (and optionally torch.compile's) is timed by the
worker, which never imported answer code, or taken from the BaselineCache; the answer's runs are timed in its
own process with the same method (`_cuda_times`: L2 flush, a spin kernel so the whole call is queued before the
start event, CUDA events, a device-wide sync, warm-ups outside, medians; fewer runs, >= MIN_TIME_TRIALS, where
they would pass `time_budget_s`) while the worker holds the GPU exclusively (per-GPU file lock). The inputs of
each timed run are drawn fresh, each widened by a kind drawn per job from the trials' kinds, and the outputs of
up to five timed runs (picked at random, one of each widened kind among them, and the last) are checked
against the reference. The timed runs are audited like trials: every plain call of the timing loop
launches at least as many Triton kernels as the trial that launched fewest, and two timed runs drawn in the answer
process (one where fewer than 10) are recorded in their place, untimed, and pass the trials' policy checks
(rule timed_runs: torch_fallback with flag policy:timed_runs). speedup = ref_ms / runtime_ms, flagged
speedup_above_cap above SPEEDUP_CAP. On CPU (Triton interpreter) speed is not measured: speedup, runtime_ms and
ref_ms are None, flag "speed_unmeasured".

Threat model. The answer's author is an adversary who knows this file and the task.
  Defended: reaching the judge's code or state (the gate refuses reflection and every import but the six
  modules, and what would be reached lives in another process anyway); patching torch, Triton or nn classes
  (refused by the gate; a patch would last only in the answer's own process, which is killed afterwards and
  holds no reference, comparison or timing of the reference); work the recorder cannot see (the dispatcher
  sees every aten op of the forward, grid callables and launchers included, and counts a tensor's values read
  into Python; NumPy, host copies and import-time computation are refused statically); GEMMs or convolutions
  doing elementwise work (an identity or 1x1 operand: the hybrid budget is the reference's own count and
  multiply-adds, a replaced library layer's multiply-adds joining the bound; a GEMM computed as a convolution
  still covers the reference's GEMM); recognising trials (seeds fresh per judging, the faithfulness trial
  drawn and placed like any other but never first, widened draws mixed in at random places, timed runs widened
  and some recorded in place); inputs outside the task's own distribution (sign-symmetric and scaled trials); outputs below atol (the whole-output rule);
  a slowed reference (it is timed in a process the answer never ran in, or cached); output types that fool a
  comparison (exact torch.Tensor, bytes rebuilt by the comparator); answers that hang, crash, exhaust memory
  or print without end (per-job wall clock, rlimits, RSS and GPU caps, muted output); a verdict flagged as a
  hack earns what a wrong one earns (`earns`).
  Not defended: an answer that notices, during the faithfulness trial, that its launches did nothing (a canary
  a kernel writes) can change what it returns; this is harmless where the policy audit holds (it must still
  do the task's work in Triton to pass the other trials), and it is why the audit, not the faithfulness trial,
  decides who did the work. The answer's own timed runs are measured in its process: it cannot reach the
  timers (the gate) but it can do input-independent host work before its kernels are queued, which the spin
  kernel hides. It can recognise the timed runs (they come after the correctness trials), but not which of them
  are recorded: a path through torch's own kernels there fails the launch count or a recorded run, and a wrong
  path fails a spot check, each with a probability that grows with the share of runs it takes; one taken in a
  few runs only escapes, but moves the median time little. A recorded run shows the dispatch mode to an answer
  that could look for it (the gate refuses the private torch names that would). An approximation
  that stays within the tolerance on the task's own distribution (a mean over every 8th row is within 1e-2 of
  the mean of torch.rand values) passes if the answer can tell a widened trial from its values and does the
  full work there; its verdict carries fails_kb_tol when it misses 1e-4. A method of the answer's class called
  through a local alias with a foreign object as self reads that object's private attributes where the answer
  uses the same names on its own instances (no refused attribute, host copy or assignment outside a method).
  Triton kernels can read any memory of their own process, which holds nothing of the judge's but the key of the
  weights' prints (the recorder there checks which memory still holds the reference's weights): a kernel that
  finds the key, or the checksum weights drawn from it (zeroed after each print), could change a weight and
  balance the change so its print holds. A linear
  reduction done as a GEMM with a ones operand next to a large replaced library layer fits inside MACS_SLACK
  (0.1% of the layer's multiply-adds). A GEMM's accumulate operand that is an earlier GEMM's output counts as
  one GEMM split along K while no Triton launch was given that output and no torch op wrote it; a kernel that
  writes into it through a pointer to a neighbouring allocation is not seen. Where the timing inputs rotate
  over three drawn sets (flag timing_inputs_rotated: a get_inputs that cannot draw on the device), an answer can
  recognise a set it has seen and serve a cached output. Where the task's exact output is zero (a mean of a
  normalised tensor), the whole-output rule allows ten times the reference's own rounding, and a zero answer is
  the exact one. Hybrid answers whose kernels do a trivial part of the task (a bias add after a torch GEMM) pass
  by design. Under hybrid, a torch GEMM that takes the reference's weight is the reference's GEMM whatever its
  other operand: multiplying that weight by a tensor Triton prepared (a reference input plus a residual folded
  into extra rows) is bounded by the multiply-adds and the reduction lengths only. The two GEMMs lent per
  attention op must take a projection or an input, but only one of them: an answer that does the attention core
  in Triton can spend them on a GEMM of an input or a projection by a matrix of its own (x @ M computing part of a
  LayerNorm of the residual), two calls per attention op at most. Each reference weight's multiply-adds bound
  torch's use of it; an answer that does one weight's GEMM in Triton frees that weight's budget for a GEMM of its
  choosing on it (more Triton work than what torch then does for it); a constant of the answer's copied into fresh
  memory by a kernel is not told from the forward's own data there. What a kernel handed a projection writes is a
  projection (a bias, a head split, a scale or a rotation done in Triton), and every operand of a lent call must
  change direction with the inputs between recorded forwards; a matrix of the answer's plus a low-rank term made
  from the inputs (or from a hash of them), which a kernel takes out again afterwards, changes and passes. Refused
  though honest: a reference whose hand-written attention multiplies by a learned, input-independent query (its
  q @ k^T has an operand that never changes), answered with the same GEMM in torch. Side channels through the
  GPU shared with other processes are out of scope. Resource exhaustion of the host by a candidate beyond the
  caps (fork bombs are refused by the gate, not by an rlimit) is left to the caps and the wall clock.

Rewards (pure functions of verdicts; DESIGN.md "Rewards"): `rollout_classes` (S+, S-, or skipped),
`speed_value`, `drpo_weights`, `grpo_rewards`, `group_advantages`, `hack_counts`. A verdict carrying a flag in
HACK_FLAGS counts as wrong in all of them. Differences from the paper: speedups are clipped to [1/cap, cap] before
the log (the paper caps at 10 only from above), and unmeasured speed counts as speedup 1 (log 0).
"""
import ast
import builtins
import collections
import contextlib
import copy
import dataclasses
import functools
import gc
import hashlib
import io
import itertools
import json
import math
import os
import random
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import tokenize
import weakref
from dataclasses import dataclass, field

REWARD_PATH = os.path.abspath(__file__)
MAX_COMPLETION_CHARS = 400_000     # longer model text is rejected before any parsing
MAX_SOLUTION_CHARS = 400_000       # an extracted solution longer than this is rejected: a whole network's answer
#                                    (KernelBench level 3: DenseNet-201's teacher answer, a kernel per layer shape,
#                                    is 0.3 MB) fits, as long as a completion may be
MAX_MESSAGE_BYTES = 16 << 20       # a worker message longer than this is a protocol error
SPEEDUP_CAP = 10.0                 # DESIGN.md: speedup capped at 10 in rewards, flagged above it
TIME_BUDGET_S = 2.0                # a candidate's timed runs take about this long at most (each uncached baseline too)
MIN_TIME_TRIALS = 20               # ... but never fewer runs than this
MIN_TIME_TRIALS_LONG = 5           # ... or this where one timed round (candidate and reference) takes LONG_ROUND_S
LONG_ROUND_S = 0.1                 #     or more: all-Triton transposed 3-D convolutions ran 10-273 ms a call on the
                                   #     H200 and 20 rounds of them held the GPU lock for up to 6 s (the lab record)
KEEP_CACHE_BYTES = 256 << 20      # an idle worker's allocator keeps at most this much cached after a job; more goes
                                  # back to the GPU (it was 2 GB: on a H100, three idle workers' caches
                                  # were GBs that an exclusive level-1 retry did not see free)
TASK_CACHE_BYTES = 1 << 30         # a worker keeps cached tasks (reference outputs, weights) up to about this much
# A task's get_inputs that fails like this on the device is drawn on the CPU instead
DRAW_ERRORS = (RuntimeError, TypeError, ValueError, NotImplementedError, AssertionError)
MODEL_SEED = 42                    # both Model and ModelNew are built right after this seed
# Tolerance table: dtype -> (atol, rtol). fp32 default 1e-2 as KernelBench v0 and its peers.
TOLERANCES = {"float32": (1e-2, 1e-2), "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float64": (1e-2, 1e-2)}
STRICT_TOLERANCES = {"float32": (1e-4, 1e-4), "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2), "float64": (1e-6, 1e-6)}
# KernelBench's own per-precision tolerance (atol = rtol; its current harness, not v0's 1e-2): a correct verdict
# whose outputs miss it carries the flag "fails_kb_tol", so one run reports Acc at both (eval.py acc_kb_tol).
KB_TOL_FLAG = "fails_kb_tol"
KB_TOLERANCES = {"float32": (1e-4, 1e-4), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2), "float64": (1e-4, 1e-4)}
# Error types after which a worker is not reused: failures on the judge's own side (its reference ran out of
# memory, the task or the judge failed, an answer process sent something unreadable). An answer's own failures
# (runtime, kernel, import errors, a crash) happen in its answer process, which is gone after the verdict; the
# worker never ran that code, so it stays (with its cached references and its GPU context).
RECYCLE_ERRORS = {"oom", "task_error", "judge_error", "protocol_error"}
# ... and, cautious, after every answer failure too (bench.py compares the two)
RECYCLE_ERRORS_CAUTIOUS = RECYCLE_ERRORS | {"runtime_error", "kernel_error", "import_error", "init_error",
                                            "exit_called", "patched_critical", "compile_error", "missing_model_new",
                                            "signature_mismatch", "worker_crashed", "worker_died", "answer_died"}


# ----------------------------------------------------------------------------------------------------
# The verdict record


@dataclass
class Verdict:
    """What the judge concluded about one candidate. error_type None means no failure was found."""
    compiled: bool = False            # static checks passed, imported, built, first forward returned
    correct: bool = False
    speedup: float | None = None      # ref_ms / runtime_ms, CUDA only
    runtime_ms: float | None = None   # median candidate forward time, CUDA only
    ref_ms: float | None = None       # median eager reference forward time, CUDA only
    max_abs_err: float | None = None  # over all trials
    triton_launches: int = 0          # Triton launches in the first forward
    torch_ops: dict = field(default_factory=dict)  # aten op name -> count in the first forward
    flags: list = field(default_factory=list)
    error_type: str | None = None
    error_msg: str = ""
    timings: dict = field(default_factory=dict)    # verify_s, import_s, check_s, time_s, ref_gpu_trials, ...
    seed: int | None = None           # the judging's trial seed (trial_plan); Judge(seed=...) reproduces the verdict

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d):
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def init_signature_error(source, n_args):
    """Why `ModelNew(*init_inputs)` with `n_args` positional arguments cannot bind, read from the solution's AST
    alone (no candidate code runs), or None when it binds or the class is beyond a plain reading (decorated, a
    metaclass, __new__/__signature__/__init__ assigned, ModelNew rebound, bases other than nn.Module without an
    __init__); the runtime check after the reference then decides. The judge runs this before the reference:
    a KernelBench-sized reference can cost an exclusive retry of the whole GPU (the lab record), and an
    answer whose constructor does not fit the task fails either way."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"]
    rebound = [t for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
               if isinstance(t, ast.Name) and t.id == "ModelNew"]
    if len(classes) != 1 or rebound:
        return None
    cls = classes[0]
    if cls.decorator_list or cls.keywords:
        return None
    special = {"__new__", "__signature__", "__init__", "__init_subclass__"}
    for n in cls.body:
        targets = n.targets if isinstance(n, ast.Assign) else \
            [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id in special for t in targets):
            return None
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in special - {"__init__"}:
            return None
    inits = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"]
    if not inits:
        plain = all(isinstance(b, (ast.Name, ast.Attribute))
                    and (b.id if isinstance(b, ast.Name) else b.attr) == "Module" for b in cls.bases)
        return ("too many positional arguments" if n_args else None) if plain and cls.bases else None
    init = inits[-1]
    if init.decorator_list or isinstance(init, ast.AsyncFunctionDef):
        return None
    a = init.args
    positional = a.posonlyargs + a.args
    if not positional:  # no self: not a plain method
        return None
    params = positional[1:]
    required = params[:len(params) - len(a.defaults)]
    if n_args < len(required):
        return f"missing a required argument: '{required[n_args].arg}'"
    if n_args > len(params) and a.vararg is None:
        return "too many positional arguments"
    missing_kw = [k.arg for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    if missing_kw:
        return f"missing a required argument: '{missing_kw[0]}'"
    return None


def _failed(error_type, msg, **kw):
    return Verdict(error_type=error_type, error_msg=msg[:4000], **kw)


# ----------------------------------------------------------------------------------------------------
# Extracting the solution from model text


class SolutionError(ValueError):
    """The completion holds no usable solution; .error_type says why."""

    def __init__(self, error_type, msg):
        super().__init__(msg)
        self.error_type = error_type


_BLOCK = re.compile(r"```(?:python|py)[ \t]*\r?\n(.*?)```", re.DOTALL)


def extract_solution(completion):
    """The last ```python block of `completion` (str or bytes). Raises SolutionError with error_type in
    {not_utf8, too_long, no_code_block, unterminated_code_block, empty_code}."""
    if isinstance(completion, (bytes, bytearray)):
        try:
            completion = bytes(completion).decode("utf-8")
        except UnicodeDecodeError as e:
            raise SolutionError("not_utf8", f"completion is not valid UTF-8: {e}") from None
    if not isinstance(completion, str):
        raise SolutionError("not_utf8", f"completion must be str or bytes, got {type(completion).__name__}")
    try:
        completion.encode("utf-8")
    except UnicodeEncodeError as e:  # lone surrogates, e.g. from errors="surrogateescape"
        raise SolutionError("not_utf8", f"completion is not valid UTF-8: {e}") from None
    if len(completion) > MAX_COMPLETION_CHARS:
        raise SolutionError("too_long", f"completion has {len(completion)} chars > {MAX_COMPLETION_CHARS}")
    blocks = _BLOCK.findall(completion)
    if not blocks:
        if re.search(r"```(?:python|py)", completion):
            raise SolutionError("unterminated_code_block", "a ```python block is opened but never closed")
        raise SolutionError("no_code_block", "no ```python block in the completion")
    code = blocks[-1]
    if not code.strip():
        raise SolutionError("empty_code", "the last ```python block is empty")
    if len(code) > MAX_SOLUTION_CHARS:
        raise SolutionError("too_long", f"solution has {len(code)} chars > {MAX_SOLUTION_CHARS}")
    return code


# ----------------------------------------------------------------------------------------------------
# The static gate: an allow-list, resolved on the AST. Pure analysis of text, safe in any process (run in a
# worker anyway: a pathological source can blow the parser's C stack).
#
# What an answer may name is decided by what each name resolves to, not by how it is spelled: every import
# binds an alias to a dotted path ("tl" -> "triton.language"), attribute chains on an alias extend that path
# ("tl.math.exp" -> "triton.language.math.exp"), and the path is checked. An alias cannot be moved into
# another name (a module used as a value is refused) nor rebound, so no spelling reaches a module the gate
# did not resolve. The answer's own objects are reachable only through names it binds; on those, attribute
# names are checked (dunders, private names, host-side data access, hooks). Module-level code runs at import,
# outside any forward the judge records, so it may only import, define, and bind constants.

# The standard library's pure helpers that whole networks' constructors use (Swin's to_2tuple: itertools.repeat,
# collections.abc.Iterable), each module with the names an answer may take from it; nothing under those names.
GATE_STDLIB = {"itertools": {"repeat", "chain", "product", "islice", "zip_longest", "combinations", "permutations",
                             "count", "accumulate", "pairwise"},
               "collections": {"OrderedDict", "defaultdict", "deque", "namedtuple", "Counter", "abc"},
               "collections.abc": {"Iterable", "Iterator", "Sequence", "MutableSequence", "Mapping", "MutableMapping",
                                   "Sized", "Container", "Collection", "Callable", "Hashable", "Set"}}
GATE_MODULES = {"torch", "torch.nn", "torch.nn.functional", "triton", "triton.language", "math", *GATE_STDLIB}
ALLOWED_IMPORTS = f"only {', '.join(sorted(GATE_MODULES))} may be imported"
# Names of modules that an allowed module holds as an attribute because it imported them (torch.sys, torch.os):
# a path through one of them leaves the allow-list. The standard library's and a few third-party names; "math"
# is allowed anyway (and tl.math is Triton's own).
GATE_ESCAPES = (set(getattr(sys, "stdlib_module_names", ())) | {"numpy", "np", "sympy", "filelock", "jinja2",
                "networkx", "fsspec", "typing_extensions", "setuptools", "pkg_resources"}) - {
                "math", "chunk", "select", "trace"}  # torch.chunk, torch.select, torch.trace are functions
# Known module paths under the allowed roots: such a path may only be the base of a longer attribute chain.
GATE_MODULE_PATHS = GATE_MODULES | {
    "torch.cuda", "torch.linalg", "torch.fft", "torch.special", "torch.backends", "torch.utils", "torch.jit",
    "torch.autograd", "torch.random", "torch.testing", "torch.ops", "torch.library", "torch.distributions",
    "torch.nn.init", "torch.nn.utils", "torch.nn.modules", "torch.nn.parameter", "torch.nn.parallel",
    "torch.sparse", "torch.nested", "torch.masked", "torch.amp", "torch.func", "torch.fx", "torch.cpu",
    "torch.overrides", "torch.profiler", "torch.hub", "torch.compiler", "torch.export", "torch.onnx",
    "torch.distributed", "torch.multiprocessing", "torch.storage", "torch.serialization", "torch.version",
    "triton.language.math", "triton.language.extra", "triton.language.core", "triton.language.standard",
    "triton.runtime", "triton.testing", "triton.compiler", "triton.backends", "triton.tools", "triton.knobs"}
# Public names under torch that the gate refuses, with the rule each breaks (a prefix covers what is below it).
GATE_TORCH_DENIED = {
    **dict.fromkeys(["torch.utils", "torch.library", "torch.ops", "torch.classes", "torch.overrides",
                     "torch.fx", "torch.func", "torch.export"], "dispatch_hook"),
    **dict.fromkeys(["torch.jit", "torch.compile", "torch.compiler", "torch.onnx", "torch.package"],
                    "torch_compile"),
    **dict.fromkeys(["torch.multiprocessing", "torch.distributed", "torch.nn.parallel", "torch.nn.DataParallel",
                     "torch.fork", "torch.wait"], "process"),
    **dict.fromkeys(["torch.parse_ir", "torch.import_ir_module", "torch.import_ir_module_from_buffer"],
                    "torch_compile"),
    "torch.get_device_module": "cuda_state",   # torch.cuda itself, past torch.cuda's own list
    **dict.fromkeys(["torch.save", "torch.load", "torch.from_file", "torch.hub", "torch.serialization"],
                    "file_access"),
    **dict.fromkeys(["torch.from_numpy", "torch.frombuffer", "torch.asarray", "torch.UntypedStorage",
                     "torch.TypedStorage", "torch.storage", "torch.Storage"], "host_memory"),
    **dict.fromkeys(["torch.backends", "torch.use_deterministic_algorithms", "torch.set_grad_enabled",
                     "torch.set_printoptions", "torch.set_num_threads", "torch.set_num_interop_threads",
                     "torch.set_float32_matmul_precision", "torch.set_default_dtype", "torch.set_default_device",
                     "torch.set_default_tensor_type", "torch.set_flush_denormal", "torch.set_warn_always",
                     "torch.set_anomaly_enabled", "torch.set_autocast_enabled", "torch.set_deterministic_debug_mode",
                     "torch.autograd", "torch.profiler", "torch.testing", "torch.version"], "global_state"),
    **dict.fromkeys(["torch.random", "torch.seed", "torch.manual_seed", "torch.initial_seed", "torch.get_rng_state",
                     "torch.set_rng_state", "torch.default_generator", "torch.Generator"], "rng_state"),
    "torch.Tensor.__init__": "tensor_subclass",
}
# The allow-list under torch (after GATE_TORCH_DENIED's named refusals): a path may pass through these modules
# only (torch.cuda has its own list), and a name directly under torch must be a C op (torch._C._VariableFunctions:
# not fork, wait, parse_ir, the autocast nesting), a read-only is_*/get_* query, a class listed here, a
# Python function of GATE_TORCH_FUNCTION_MODULES (or torch's own is_*/get_*/sym_* queries and typename), or a
# dtype, layout, memory format or number. Everything else is refused as torch_internals: dispatch key guards
# (torch.ExcludeDispatchKeyGuard hides every op from the recorder), torch.ao's getattr_from_fqn (reflection by
# string), torch.accelerator's memory queries, torch.get_device_module, JIT types.
GATE_TORCH_MODULES = {"torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
                      "torch.nn.utils.rnn", "torch.nn.parameter", "torch.nn.modules", "torch.linalg", "torch.fft",
                      "torch.special", "torch.functional", "torch.amp", "torch.amp.autocast_mode"}
GATE_TORCH_MODULE_PREFIXES = ("torch.nn.modules.",)   # nn.modules.conv.Conv2d, as reference code spells a layer
GATE_TORCH_CLASSES = {"Tensor", "Size", "no_grad", "enable_grad", "inference_mode", "autocast", "finfo", "iinfo",
                      "dtype", "device", "layout", "memory_format"} | {
    f"{k}Tensor" for k in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")}
GATE_TORCH_FUNCTION_MODULES = {"torch.functional", "torch._linalg_utils", "torch._lobpcg", "torch._lowrank"}
GATE_TORCH_VALUES = {"dtype", "layout", "memory_format", "float", "int", "bool", "NoneType"}
# torch.cuda is refused except for these read-only queries and the device-wide sync.
GATE_TORCH_CUDA = {"is_available", "current_device", "device_count", "get_device_capability",
                   "get_device_properties", "get_device_name", "synchronize"}
# triton: the decorators and helpers a kernel file needs; triton.language is open (kernels are compiled code).
GATE_TRITON = {"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "language", "constexpr"}
# Builtins an answer may call or name. Everything else (getattr, setattr, vars, globals, type, open, exec,
# eval, compile, __import__, memoryview, exit, object, id, ...) is refused.
GATE_BUILTINS = {
    "abs", "all", "any", "bool", "callable", "dict", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "int", "isinstance", "iter", "len", "list", "map", "max", "min", "next", "pow", "print",
    "property", "range", "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod", "str", "sum",
    "super", "tuple", "zip", "True", "False", "None", "NotImplemented", "Ellipsis",
    "ValueError", "RuntimeError", "TypeError", "AssertionError", "NotImplementedError", "IndexError",
    "KeyError", "ZeroDivisionError", "ArithmeticError"}
_IS_BUILTIN = set(dir(builtins)).__contains__   # the names a module or class body falls back to
GATE_BUILTIN_RULES = {
    **dict.fromkeys(["getattr", "setattr", "delattr", "hasattr", "vars", "dir", "type", "object", "id",
                     "globals", "locals", "classmethod", "issubclass"], "reflection"),
    **dict.fromkeys(["eval", "exec", "compile", "__import__"], "dynamic_code"),
    **dict.fromkeys(["open", "input"], "file_access"),
    **dict.fromkeys(["memoryview", "bytearray", "bytes"], "host_memory"),
    **dict.fromkeys(["exit", "quit", "SystemExit", "KeyboardInterrupt", "BaseException"], "exit"),
    "breakpoint": "introspection", "help": "introspection",
}
# Attribute names refused on any object (the gate cannot know an arbitrary object's type), with their rule.
GATE_ATTRS = {
    **dict.fromkeys(["numpy", "tolist", "apply_", "map_", "map2_", "__array__", "__array_interface__",
                     "__cuda_array_interface__", "__dlpack__"], "host_compute"),
    **dict.fromkeys(["storage", "untyped_storage", "_typed_storage", "set_", "share_memory_", "data_ptr",
                     "const_data_ptr", "mutable_data_ptr", "storage_offset", "_base", "storage_type",
                     "from_buffer"], "host_memory"),
    "from_file": "file_access", "compile": "torch_compile",
    **dict.fromkeys(["as_subclass", "_make_subclass", "_make_wrapper_subclass"], "tensor_subclass"),
    **dict.fromkeys(["f_back", "f_locals", "f_globals", "f_code", "tb_frame", "tb_next", "gi_frame", "cr_frame",
                     "ag_frame", "_getframe", "exc_info",
                     # a JITFunction's (CUDA, not the interpreter's) hands out its function's __globals__, whose
                     # "__builtins__" holds getattr and __import__ (a string subscript is no attribute); the
                     # others parse or rebuild the kernel from its source and globals
                     "get_capture_scope", "used_global_vals", "parse", "preload", "create_binder"], "introspection"),
    **dict.fromkeys(["Stream", "ExternalStream", "stream", "set_stream", "StreamContext", "CUDAGraph", "graph",
                     "graphs", "make_graphed_callables", "Event"], "stream"),
    **dict.fromkeys(["load_inline", "cpp_extension", "CDLL", "cdll", "dlopen"], "native_code"),
    **dict.fromkeys(["fn", "cache", "device_caches", "src", "warmup", "run", "launch_metadata",
                     "cache_key", "pre_hook", "post_hook", "kernel_decorators"], "launcher"),
    # a class's own reflection and state: Iterable.mro() holds object; Sequence.register(torch.Tensor) edits the
    # process's ABC registry (reached through a local, the gate cannot see that the object is an ABC)
    "mro": "reflection", "register": "global_state",
}
# torch.nn classes that are tensors: a subclass overrides tensor methods (dim(), size()) that torch's own code, a
# library layer's included, calls on it
GATE_TENSOR_CLASSES = {"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer",
                       "UninitializedTensorMixin"}
# register_* methods that add state to a module (a constructor copied from the task registers its causal mask as
# a buffer), not a hook: the rest of register_* is refused as hooks.
GATE_REGISTER_OK = {"register_buffer", "register_parameter", "register_module"}
# Rule names of refused imports (anything outside GATE_MODULES is refused; these say why in more words).
GATE_IMPORT_RULES = {
    "threading": "thread", "_thread": "thread", "concurrent": "thread", "queue": "thread",
    "multiprocessing": "process", "subprocess": "process", "signal": "process", "pty": "process", "os": "os",
    "sys": "sys", "asyncio": "asyncio", "ctypes": "native_code", "cffi": "native_code", "mmap": "native_code",
    "gc": "introspection", "inspect": "introspection", "traceback": "introspection", "weakref": "introspection",
    "importlib": "import_machinery", "runpy": "import_machinery", "pkgutil": "import_machinery",
    "builtins": "patching", "__main__": "judge", "reward": "judge", "bench": "judge", "eval": "judge",
    "train": "judge", "search": "judge", "synth": "judge", "teacher": "judge", "policy": "judge",
    "numpy": "numpy", "pickle": "serialisation", "marshal": "serialisation", "io": "file_access",
    "pathlib": "file_access", "shutil": "file_access", "tempfile": "file_access", "socket": "network",
    "urllib": "network", "http": "network", "time": "timing", "timeit": "timing",
}
GATE_DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics", "staticmethod", "property",
                   "torch.no_grad", "torch.inference_mode"}
# Calls that module-level code (constants, decorator arguments, default values) may make at import.
GATE_IMPORT_TIME_CALLS = {"triton.Config", "triton.jit", "triton.autotune", "triton.heuristics", "triton.cdiv",
                          "triton.next_power_of_2", "triton.language.constexpr", "torch.no_grad",
                          "torch.inference_mode", "torch.device", "int", "float", "bool", "str", "tuple", "list",
                          "dict", "range", "len", "min", "max", "abs", "round", "pow", "sum", "sorted", "zip",
                          "enumerate", "staticmethod", "property"}


def static_check(source):
    """The static gate (module docstring, item 1) on a solution's source. Returns (error_type, violations):
    error_type None if it passes, else "syntax_error", "static_check", "unknown_name" (every violation a name an
    allowed module lacks: a mistake, not a hack) or "no_triton_kernel"; violations are
    (rule, line, text) tuples, the rule named as in the flag "static:<rule>"."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:
        return "syntax_error", [("syntax_error", getattr(e, "lineno", 0) or 0, str(e))]
    except (RecursionError, MemoryError) as e:
        return "syntax_error", [("syntax_error", 0, f"parser gave up: {type(e).__name__}")]
    # ast.parse reads the text; the importer reads the file's bytes in the encoding a coding line declares
    # (utf-7 turns `+AAo-` inside a comment into a newline): the gate must see what runs, so only UTF-8 passes
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source.encode("utf-8", "surrogatepass")).readline)[0]
    except SyntaxError as e:
        return "static_check", [("encoding", 1, str(e))]
    if encoding not in ("utf-8", "utf-8-sig"):
        return "static_check", [("encoding", 1, f"coding {encoding}: the answer must be UTF-8, as the gate reads it")]
    try:
        bad = _Gate(tree, source).run()
    except RecursionError:
        return "static_check", [("too_deep", 0, "the gate gave up on a too deeply nested source")]
    if bad:
        bad = sorted(set(bad), key=lambda b: (b[1], b[0]))
        # a library name misspelt or missing (tl.tanh) is a mistake, not a cheat: its own error type, no hack
        return ("unknown_name" if all(rule == "unknown_name" for rule, _, _ in bad) else "static_check"), bad
    if not any(isinstance(node, ast.FunctionDef) and "triton.jit" in node.gate_decorators
               for node in ast.walk(tree)):
        return "no_triton_kernel", [("no_triton_kernel", 0, "no @triton.jit function")]
    return None, []


class _Gate:
    """One pass of the static gate over a parsed answer (static_check)."""

    def __init__(self, tree, source=None):
        self.tree, self.source = tree, source
        self.bad = []
        self.aliases = {}      # name bound by an import -> dotted path it stands for
        self.classes = {}      # class defined by the answer -> names of its methods
        self.own_attrs = set()  # attribute names the answer binds on self (may be private)
        self.parents = {}

    def flag(self, rule, node, text):
        self.bad.append((rule, getattr(node, "lineno", 0) or 0, text[:120]))

    def run(self):
        tree = self.tree
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
            if isinstance(node, ast.FunctionDef):
                node.gate_decorators = set()
        self.imports()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_name(node.value, "self"):
                self.own_attrs.add(node.attr)
        self.import_bound = self.import_time_names()
        self.module_level()
        for node in ast.walk(tree):   # a class made in a function: its body runs as a module-level one's does
            if isinstance(node, ast.ClassDef) and not isinstance(self.parents.get(node), (ast.Module, ast.ClassDef)):
                self.definition(node)
        self.bindings()
        self.builtins()
        for node in ast.walk(tree):
            self.visit(node)
        return self.bad

    # --- imports and what names resolve to ----------------------------------------------------------

    def imports(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name not in GATE_MODULES:
                        self.flag(_import_rule(a.name), node, f"import {a.name}: {ALLOWED_IMPORTS}")
                        continue
                    name, path = (a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0])
                    self.bind_alias(name, path, node)
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level or mod == "__future__" and any(a.name != "annotations" for a in node.names):
                    self.flag("import_not_allowed", node, f"from {'.' * node.level}{mod} import ...")
                    continue
                if mod == "__future__":
                    continue
                if mod not in GATE_MODULES:
                    self.flag(_import_rule(mod), node, f"from {mod} import ...: {ALLOWED_IMPORTS}")
                    continue
                for a in node.names:
                    if a.name == "*":
                        self.flag("star_import", node, f"from {mod} import *")
                        continue
                    path = f"{mod}.{a.name}"
                    rule = self.path_rule(path)
                    if rule:
                        self.flag(rule, node, f"from {mod} import {a.name}")
                    self.bind_alias(a.asname or a.name, path, node)

    def bind_alias(self, name, path, node):
        if self.aliases.get(name, path) != path:
            self.flag("rebinds_import", node, f"{name} is imported as both {self.aliases[name]} and {path}")
        self.aliases[name] = path

    def resolve(self, node):
        """The dotted path an expression stands for when it is an import alias or an attribute chain on one."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and self.plain_super(node):
            return "super()"
        return None

    def path_rule(self, path):
        """The rule a resolved path breaks, or None."""
        parts = path.split(".")
        if parts[0] in GATE_STDLIB:   # collections.abc.Iterable: a listed name, and nothing under it
            module = "collections.abc" if parts[:2] == ["collections", "abc"] else parts[0]
            rest = parts[len(module.split(".")):]
            return None if not rest or len(rest) == 1 and rest[0] in GATE_STDLIB[module] else "stdlib_name"
        if parts[0] == "super()" and len(parts) > 1 and parts[1] in GATE_ATTRS:
            return GATE_ATTRS[parts[1]]   # super().tolist(): the refused attribute, reached through the base
        for part in parts[1:]:
            if part in GATE_ESCAPES and not (path.startswith("triton.language.random") and part == "random"):
                return "module_escape"  # a module another module imported (torch.sys, F.importlib, tl.core.np)
            if part.startswith("__") and part.endswith("__"):
                return None if part == "__init__" and path == "super().__init__" else "dunder"
            if part.startswith("_"):
                return "private_api"
            if "hook" in part.lower() or part.startswith("register_") and part not in GATE_REGISTER_OK:
                return "hook"
        # torch.Tensor.tolist(x): an attribute refused on any object is refused reached through its class too
        return self.root_rule(parts, path) or next((GATE_ATTRS[p] for p in parts[1:] if p in GATE_ATTRS), None) \
            or ("module_escape" if _escapes(path) else None) or ("unknown_name" if _unresolved(path) else None)

    @staticmethod
    def root_rule(parts, path):
        """The rule of the module a resolved path starts from, or None."""
        root = parts[0]
        if root == "math":
            return None
        if root == "triton":
            if len(parts) > 1 and parts[1] not in GATE_TRITON:
                return "triton_internals" if parts[1] != "testing" else "timing"
            return None
        if root == "torch":
            if len(parts) > 1 and parts[1] == "cuda":
                return None if len(parts) == 2 or parts[2] in GATE_TORCH_CUDA else "cuda_state"
            for prefix, rule in GATE_TORCH_DENIED.items():
                if path == prefix or path.startswith(prefix + "."):
                    return rule
            if len(parts) > 1 and parts[1].startswith("set_"):
                return "global_state"
            return _torch_internals(path)
        return None

    # --- module-level code, bindings and builtins ---------------------------------------------------

    def module_level(self):
        for node in self.tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                continue  # a docstring
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.definition(node)
                continue
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and all(
                    isinstance(t, ast.Name) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
                self.import_time(node.value)
                if isinstance(node, ast.AnnAssign):   # evaluated at import too
                    self.import_time(node.annotation)
                continue
            if isinstance(node, ast.Pass):
                continue
            self.flag("module_code", node, f"module-level {type(node).__name__.lower()} runs at import, outside "
                                           "the recorded forward: only imports, definitions and constants may")

    def import_time_names(self):
        """Names the answer binds where import-time code runs (the module and class bodies, the comprehensions of
        their expressions): there `len` or `staticmethod` may be the answer's own function, not the builtin."""
        bound, stack = set(), list(self.tree.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
                stack += node.decorator_list
                if isinstance(node, ast.ClassDef):
                    stack += node.bases + [k.value for k in node.keywords] + node.body
                else:
                    a = node.args
                    stack += a.defaults + [d for d in a.kw_defaults if d is not None] + [node.returns] + [
                        x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x]
                continue
            if node is None or isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            stack.extend(ast.iter_child_nodes(node))
        return bound

    def builtin_name(self, node):
        """The builtin a bare name stands for at import time, or None (not a name, or bound by the answer)."""
        return node.id if isinstance(node, ast.Name) and node.id not in self.import_bound else None

    def definition(self, node):
        """A def or class at import time: its decorators, defaults, bases and (for a class) body."""
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                call = d.func if isinstance(d, ast.Call) else d
                path = self.resolve(call) or (
                    call.id if self.builtin_name(call) in GATE_BUILTINS else None)
                if path not in GATE_DECORATORS:
                    self.flag("decorator", d, f"@{ast.unparse(d)}: decorators allowed are "
                                              f"{', '.join(sorted(GATE_DECORATORS))}")
                else:
                    node.gate_decorators.add(path)
                if isinstance(d, ast.Call):
                    for a in d.args + [k.value for k in d.keywords]:
                        self.import_time(a)
            args = node.args
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                self.import_time(default)
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if a is not None and a.annotation is not None:
                    self.import_time(a.annotation)
            if node.returns is not None:
                self.import_time(node.returns)
            return
        if node.decorator_list or node.keywords:
            self.flag("class_definition", node, f"class {node.name}: decorators and keywords (metaclass=) "
                                                "are not allowed")
        for base in node.bases:
            path = self.resolve(base)
            if isinstance(base, ast.Name) and base.id in self.classes:
                continue
            tensor_like = path is not None and path.split(".")[-1] in GATE_TENSOR_CLASSES
            if path is None or tensor_like or not (path.startswith("torch.nn.") and path.split(".")[2][:1].isupper()):
                rule = "subclasses_model" if ast.unparse(base).split(".")[-1] == "Model" else \
                    "tensor_subclass" if (path or "").endswith("Tensor") or tensor_like else "class_base"
                self.flag(rule, node, f"class {node.name}({ast.unparse(base)}): a class may derive only from "
                                      "torch.nn classes and the answer's own classes")
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                self.definition(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and all(
                    isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                self.import_time(stmt.value)
                if isinstance(stmt, ast.AnnAssign):
                    self.import_time(stmt.annotation)
            elif not (isinstance(stmt, ast.Pass)
                      or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                self.flag("module_code", stmt, f"class-body {type(stmt).__name__.lower()} runs at import: a class "
                                               "body may only define methods and constants")

    def import_time(self, expr):
        """An expression evaluated at import: constants, names, resolved attribute paths, lambdas (not run at
        import), and calls of GATE_IMPORT_TIME_CALLS only."""
        for node in _walk_outside_lambdas(expr):
            if isinstance(node, ast.Call):
                path = self.resolve(node.func) or self.builtin_name(node.func)
                if path not in GATE_IMPORT_TIME_CALLS and not (path or "").startswith("math."):
                    self.flag("import_time_call", node, f"{ast.unparse(node)[:60]} runs at import, outside the "
                                                        "recorded forward")
            elif isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
                self.flag("import_time_call", node, ast.unparse(node)[:60])

    def bindings(self):
        """No import alias may be rebound, `self` is never reassigned, and no global/nonlocal statements."""
        for node in ast.walk(self.tree):
            names = []
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names = [node.id]
            elif isinstance(node, ast.arg):
                names = [node.arg]
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.flag("global_state", node, f"{type(node).__name__.lower()} statement")
            for n in names:
                if n in self.aliases:
                    self.flag("rebinds_import", node, f"{n} (imported as {self.aliases[n]}) is rebound")
                if n == "self" and not isinstance(node, ast.arg):
                    self.flag("rebinds_self", node, "self is reassigned")
                if n.startswith("__") and n.endswith("__") \
                        and not (n == "__init__" and isinstance(node, ast.FunctionDef)):
                    self.flag("dunder", node, f"binds {n}")

    def builtins(self):
        """Names read but bound nowhere in their scope chain are builtins: only GATE_BUILTINS may be."""
        import symtable
        try:
            top = symtable.symtable(self.source if self.source is not None else ast.unparse(self.tree), "answer",
                                    "exec")
        except (SyntaxError, RecursionError, ValueError, MemoryError) as e:   # no check skipped: refused
            self.flag("too_deep", self.tree, f"the gate could not resolve the answer's names: {type(e).__name__}")
            return
        module_bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()
                        or s.is_namespace()}
        free, rebound = set(), set()
        stack = [top]
        while stack:
            t = stack.pop()
            stack.extend(t.get_children())
            for s in t.get_symbols():
                # A module or class body looks a name up in its own namespace, then the module's, then builtins,
                # at the time of the read: `g = getattr; getattr = None` reads the real builtin before the
                # binding runs, though the name counts as bound below. So a refused builtin's name is never bound
                # there (a function's locals are resolved when it is compiled and cannot be read early).
                if (t is top or t.get_type() == "class") and _IS_BUILTIN(s.get_name()) \
                        and s.get_name() not in GATE_BUILTINS \
                        and (s.is_assigned() or s.is_imported() or s.is_namespace()):
                    rebound.add(s.get_name())
                if not s.is_referenced():
                    continue
                if t is top or t.get_type() == "class":
                    # a class body in a function reads the function's locals (is_free), never builtins
                    unbound = not (s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_parameter()
                                   or s.is_free()) and s.get_name() not in module_bound
                else:
                    unbound = s.is_global() and s.get_name() not in module_bound
                if unbound:
                    free.add(s.get_name())
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and node.id == "__class__":   # the method's class as a value
                self.flag("dunder", node, "reads __class__")
            bound = [node.id] if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) else \
                [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
                [(a.asname or a.name).split(".")[0] for a in node.names] if isinstance(node, (ast.Import,
                                                                                         ast.ImportFrom)) else \
                [node.name] if isinstance(node, ast.ExceptHandler) and node.name else []
            for name in bound:
                if name in rebound:
                    self.flag(GATE_BUILTIN_RULES.get(name, "rebinds_builtin"), node,
                              f"{name}: a refused builtin's name, bound in a module or class body (a read there "
                              "before the binding gets the builtin)")
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in free \
                    and node.id not in GATE_BUILTINS:
                rule = GATE_BUILTIN_RULES.get(node.id, "builtin_not_allowed")
                if node.id == "Model":
                    rule = "uses_reference_model"
                elif node.id.startswith("__") and node.id not in GATE_BUILTIN_RULES:
                    rule = "dunder"
                self.flag(rule, node, f"{node.id}: not an allowed builtin nor bound by the answer")

    # --- every node ----------------------------------------------------------------------------------

    def visit(self, node):
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.flag("try_except", node, "try/except (a fallback path hides kernel failures)")
        elif isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncWith, ast.AsyncFor)):
            self.flag("asyncio", node, "async code")
        elif isinstance(node, ast.Match):
            self.flag("unsupported_syntax", node, "match statement")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in self.aliases:
                self.module_value(node, node.id)
            elif node.id == "Model":
                self.flag("uses_reference_model", node, "the reference Model")
            elif node.id in self.classes:
                self.class_value(node)
        elif isinstance(node, ast.Attribute):
            self.attribute(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 4 and \
                node.value.startswith("__") and node.value.endswith("__") and \
                isinstance(self.parents.get(node), (ast.Subscript, ast.Call)):
            self.flag("dunder", node, f"{node.value!r}: a dunder name as a key or an argument")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, (ast.Attribute, ast.Subscript)) and self.parents.get(sub) is not None \
                            and not isinstance(self.parents[sub], (ast.Attribute, ast.Subscript)):
                        self.assignment(sub, node)

    def class_value(self, node):
        """The answer's class may be called, subclassed, have an attribute read (Class.method is refused apart),
        be an argument of a call (ResNet's _make_layer(Bottleneck, ...), Swin's `downsample=PatchMerging if ...
        else None`) or a function's local (`block = Bottleneck`); bound at module level or put in a container, it
        would be an alias the gate does not follow (`H = Reader; H.read(x)` calls a method on any object)."""
        child, parent = node, self.parents.get(node)
        while isinstance(parent, ast.IfExp) and child is not parent.test:
            child, parent = parent, self.parents.get(parent)
        if isinstance(parent, ast.Call) and (parent.func is child or child in parent.args) or \
                isinstance(parent, ast.keyword) or isinstance(parent, ast.ClassDef) and child in parent.bases or \
                isinstance(parent, ast.Attribute) and parent.value is child:
            return
        # an annotation is never called through; a parameter's default is an argument of every call that omits it
        # (Swin's `norm_layer=TritonLayerNorm`), as open to the gate as a passed one
        if isinstance(parent, ast.arg) and parent.annotation is child or \
                isinstance(parent, ast.FunctionDef) and parent.returns is child or \
                isinstance(parent, ast.AnnAssign) and parent.annotation is child or \
                isinstance(parent, ast.arguments) and (child in parent.defaults or child in parent.kw_defaults):
            return
        if isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets):
            scope = self.parents.get(parent)
            while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.Lambda)):
                scope = self.parents.get(scope)
            if scope is not None:
                return
        self.flag("class_as_value", node, f"{node.id}: the answer's class used as a value")

    def module_value(self, node, text):
        """An alias or chain that stands for a module (listed, or found to be one: F.torch, torch.functional) may
        only be the base of a longer chain: in a local, its attributes would escape the gate's resolution."""
        path = self.resolve(node)
        parent = self.parents.get(node)
        if path is not None and (path in GATE_MODULE_PATHS or _names_module(path)) and \
                not (isinstance(parent, ast.Attribute) and parent.value is node):
            self.flag("module_as_value", node, f"{text} ({path}) used as a value: a module may only be "
                                               "named in an attribute chain")

    def attribute(self, node):
        path = self.resolve(node)
        if path is not None:
            parent = self.parents.get(node)
            if not (isinstance(parent, ast.Attribute) and parent.value is node):  # check the whole chain once
                rule = self.path_rule(path)
                if rule == "dunder" and path.startswith("torch.nn.") and path.endswith(".__init__") \
                        and isinstance(parent, ast.Call) and parent.func is node and parent.args \
                        and _is_name(parent.args[0], "self") and self.in_method(node):
                    rule = None  # nn.Module.__init__(self), as a base class's constructor
                if rule:
                    self.flag(rule, node, f"{ast.unparse(node)} ({path})")
                else:   # resolving a refused path's objects would run its getters (triton.runtime.driver.active)
                    self.module_value(node, ast.unparse(node))
            return
        attr = node.attr
        # `self` is the answer's own instance only in a method (a plain function's `self` is any argument)
        on_self = _is_name(node.value, "self") and self.in_method(node)
        if attr.startswith("__") and attr.endswith("__"):
            if attr != "__init__" or not (isinstance(node.value, ast.Call) and self.plain_super(node.value)):
                self.flag("dunder", node, f".{attr}: dunder attributes are reflection (only super().__init__)")
        elif attr in ("format", "format_map") and not _plain_format(node.value):
            # "{0.__class__.__repr__}".format(x) walks attributes at run time, inside a string the gate does not
            # read as code: only a literal template whose fields are plain names or positions is allowed
            self.flag("reflection", node, f".{attr}: str.format on a template that is not a literal of plain "
                                          "fields ({0.x} and {0[k]} look attributes and keys up at run time)")
        elif attr in GATE_ATTRS and not (on_self and attr in self.own_attrs and GATE_ATTRS[attr] == "launcher"):
            # a refused name is refused on self too (a method called through a class alias has any object as
            # self), but for the launcher's names, which honest answers use for their own state (self.cache)
            self.flag(GATE_ATTRS[attr], node, f".{attr}")
        elif attr.startswith("_") and not (on_self and (attr in self.own_attrs or any(
                attr in methods for methods in self.classes.values()))):
            self.flag("private_api", node, f".{attr}: private attribute of an object the answer did not define")
        elif "hook" in attr.lower() or attr.startswith("register_") and attr not in GATE_REGISTER_OK:
            self.flag("hook", node, f".{attr}")
        elif isinstance(node.value, ast.Name) and node.value.id in self.classes and attr in self.classes[node.value.id]:
            self.flag("unbound_method", node, f"{node.value.id}.{attr}: a method is called only on an instance")

    def call(self, node):
        if _is_name(node.func, "super") and not self.plain_super(node):
            self.flag("reflection", node, "super() with arguments other than (EnclosingClass, self)")

    def plain_super(self, node):
        """super() or super(C, self) inside a method of the answer's class C."""
        if not _is_name(node.func, "super") or node.keywords:
            return False
        if not node.args:
            return True
        if len(node.args) != 2 or not _is_name(node.args[1], "self") or not isinstance(node.args[0], ast.Name):
            return False
        f = self.parents.get(node)
        while f is not None and not isinstance(f, ast.ClassDef):
            f = self.parents.get(f)
        return f is not None and f.name == node.args[0].id and self.in_method(node)

    def assignment(self, target, stmt):
        """Attributes may be assigned only on `self` inside a method; subscripts only on the answer's own names."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        text = ast.unparse(target)[:80]
        if isinstance(root, ast.Name) and root.id in self.aliases:
            self.flag("patches_module", stmt, f"assignment to {text}")
            return
        chain, has_attr = target, False
        while isinstance(chain, (ast.Attribute, ast.Subscript)):
            has_attr = has_attr or isinstance(chain, ast.Attribute)
            chain = chain.value
        if has_attr:
            if not (isinstance(root, ast.Name) and root.id == "self" and self.in_method(stmt)):
                self.flag("attribute_assignment", stmt, f"assignment to {text}: attributes may be set only on "
                                                        "self, in a method")

    def in_method(self, node):
        """Whether `node` lies in a function defined directly in a class body whose first parameter is self."""
        f = node
        while f is not None and not isinstance(f, (ast.FunctionDef, ast.Lambda)):
            f = self.parents.get(f)
        if not isinstance(f, ast.FunctionDef) or not isinstance(self.parents.get(f), ast.ClassDef):
            return False
        first = (f.args.posonlyargs + f.args.args)[:1]
        return bool(first) and first[0].arg == "self" and "staticmethod" not in {
            ast.unparse(d) for d in f.decorator_list}


def _is_name(node, name):
    return isinstance(node, ast.Name) and node.id == name


# Submodules that an allowed module's package does not import itself (tl.extra.libdevice comes with
# torch.compile, for one): imported before the gate resolves any path and in every judge process's warm-up, so
# that what resolves does not depend on what a process happened to import before (a worker that compiled a
# baseline would pass tl.extra.libdevice.tanh, a fresh one would refuse it, and the answer process could not run it).
GATE_LAZY_MODULES = ("triton.language.extra.libdevice",)


def _import_lazy_modules():
    import importlib
    for name in GATE_LAZY_MODULES:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except ImportError:
                pass


@functools.lru_cache(maxsize=4096)
def _path_objects(path):
    """The objects a resolved dotted path walks through under an allowed root, as (prefix, object) pairs, up to
    the first name that is not there (the answer then fails when it runs). Only public names reach here (the
    gate refuses private names and dunders first); getattr on torch may import a submodule, in the judge's own
    process, which is harmless. Cached: the gate asks twice per chain (_escapes, _names_module), and answers
    repeat the same paths."""
    import importlib
    parts = path.split(".")
    if parts[0] not in {m.split(".")[0] for m in GATE_MODULES}:
        return ()
    _import_lazy_modules()
    try:
        obj = importlib.import_module(parts[0])
    except ImportError:
        return ()
    out = [(parts[0], obj)]
    for i, part in enumerate(parts[1:], 2):
        try:
            obj = getattr(obj, part)
        except Exception:   # noqa: BLE001 - a missing or failing attribute: nothing further to resolve
            break
        out.append((".".join(parts[:i]), obj))
    return tuple(out)


# Where the objects an allowed path reaches may come from: a module's attribute that is a container (Triton's
# language.extra holds sys.modules as `modules`) or an object of another library (torch.xpu holds ctypes' names)
# leaves the allow-list whatever its name.
GATE_OWNERS = {"torch", "triton", "math", "itertools", "collections", "_collections_abc"}


def _owner(obj):
    """The module an object comes from: a module's own name, a function's or class's __module__, a method
    descriptor's class's, else its type's."""
    import types
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    for o in (obj, getattr(obj, "__objclass__", None)):
        m = getattr(o, "__module__", None) if o is not None else None
        if isinstance(m, str):
            return m
    return type(obj).__module__


def _escapes(path):
    """Whether the path leaves the allowed libraries through an attribute: a module that is not a submodule of
    the module holding it (F.torch is torch, torch.nn.functional.math is math), a container held by a module
    (triton.language.extra.modules is sys.modules), or an object whose owner is another library (ctypes'
    c_void_p as torch.xpu.c_void_p). Numbers and strings are constants wherever they live."""
    import types
    objs = _path_objects(path)
    for (_, holder), (_, obj) in zip(objs, objs[1:]):
        if isinstance(obj, types.ModuleType):
            if not (isinstance(holder, types.ModuleType) and obj.__name__.startswith(holder.__name__ + ".")):
                return True
        elif obj is None or isinstance(obj, (bool, int, float, complex, str)):
            continue
        elif isinstance(obj, (dict, list, tuple, set, frozenset)) or \
                _owner(obj).split(".")[0] not in GATE_OWNERS:
            return True
    return False


def _plain_format(node):
    """Whether `node` is a string literal whose str.format fields (and the fields nested in their format specs)
    are plain: empty, a position or a name, with no attribute (.) or key ([) lookup."""
    import string
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    todo = [node.value]
    while todo:
        try:
            fields = list(string.Formatter().parse(todo.pop()))
        except ValueError:
            return False
        for _, name, spec, _ in fields:
            if name is not None and ("." in name or "[" in name):
                return False
            if spec:
                todo.append(spec)
    return True


def _torch_internals(path):
    """"torch_internals" where a resolved path under torch leaves the allow-list (GATE_TORCH_MODULES and the
    names beside it); else None. A path that does not resolve is unknown_name's."""
    import types
    objs = _path_objects(path)
    for prefix, obj in objs:
        if isinstance(obj, types.ModuleType) and obj.__name__ not in GATE_TORCH_MODULES \
                and not obj.__name__.startswith(GATE_TORCH_MODULE_PREFIXES):
            return "torch_internals"
    if len(objs) < 2 or isinstance(objs[1][1], types.ModuleType):
        return None
    name, obj = path.split(".")[1], objs[1][1]
    if isinstance(obj, type):
        return None if name in GATE_TORCH_CLASSES else "torch_internals"
    if type(obj).__name__ in GATE_TORCH_VALUES:
        return None
    if isinstance(obj, types.BuiltinFunctionType):  # a C op, or one of torch's read-only is_*/get_* queries
        import torch
        return None if hasattr(torch._C._VariableFunctions, name) or name.startswith(("is_", "get_")) \
            else "torch_internals"
    if isinstance(obj, types.FunctionType) and (obj.__module__ in GATE_TORCH_FUNCTION_MODULES or (
            obj.__module__ == "torch" and (name.startswith(("is_", "get_", "sym_")) or name == "typename"))):
        return None
    return "torch_internals"


def _unresolved(path):
    """Whether a path under an allowed module names something that module does not have (torch.xpu.c_void_p
    where this torch has no such name). The answer process has the same libraries, so the answer would fail
    there anyway; refused here, its verdict says so in one line, and what the gate allows does not depend on
    which names a library version happens to carry (its objects' owners are what _escapes judges)."""
    objs = _path_objects(path)
    return bool(objs) and len(objs) < len(path.split("."))


def _names_module(path):
    import types
    objs = _path_objects(path)
    return bool(objs) and objs[-1][0] == path and isinstance(objs[-1][1], types.ModuleType)


def _import_rule(mod):
    return GATE_IMPORT_RULES.get(mod.split(".")[0], GATE_IMPORT_RULES.get(mod, "import_not_allowed"))


def _walk_outside_lambdas(expr):
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
        else:   # a lambda's body runs later; its defaults are evaluated where it is written
            stack.extend(node.args.defaults + [d for d in node.args.kw_defaults if d is not None])


# ----------------------------------------------------------------------------------------------------
# Rewards: pure functions of verdicts (DESIGN.md "Rewards")


# Flags that mark a verdict as a likely hack: such a verdict earns what a wrong one earns (DESIGN.md "Rewards":
# S+ is the correct rollouts without a hack flag), whatever its `correct`.
HACK_FLAGS = {"speedup_above_cap", "patched_critical"}


def earns(v):
    """Whether a verdict counts as correct in the rewards: correct and carrying no hack flag."""
    return bool(v.correct) and not HACK_FLAGS.intersection(v.flags or ())


# Reward shaping of a group of verdicts (train.py's RL step; `args` holds train.py's flags: --speedup-cap,
# --speed-shape, --speed-alpha, --drpo-lambda, --reward, --correct-first, --judge-faults).

# Verdict error types that indicate an attempt to cheat the judge (with HACK_FLAGS, counted per step, per pattern). A
# verdict with any of them earns what a wrong answer earns (DESIGN.md "Rewards": S+ holds no flagged verdict).
HACK_ERROR_TYPES = {"static_check", "torch_fallback", "strict_policy", "unfaithful", "inputs_modified",
                    "patched_critical", "exit_called", "no_triton_launch"}
FAILURE_ERROR_TYPES = {"timeout", "worker_crashed", "worker_died", "answer_died", "protocol_error"}  # no output judged
# The ones that say nothing about the answer: the worker vanished without a verdict, the message broke, the
# judge's own code failed (judge_error: the worker's comparison, a dead answer hatch, an answer process that did not
# start), or the task did (task_error: its reference failed). A timeout (the answer hung) and a crash under a
# signal while the answer ran (a bad kernel) are the answer's doing.
JUDGE_FAULT_TYPES = {"worker_died", "protocol_error", "judge_error", "task_error"}


def hack_names(v) -> set:
    """The hack patterns of one verdict: error types and flags that mean cheating; static rules as 'static:<rule>'."""
    names = {v.error_type} & HACK_ERROR_TYPES
    names |= {f for f in v.flags if f in HACK_FLAGS}
    if v.error_type == "static_check":  # forbidden constructs; a syntax error or a missing kernel is not a hack
        names |= {f for f in v.flags if f.startswith("static:")}
    if v.error_type in ("torch_fallback", "strict_policy"):  # which policy rule the dispatcher record broke
        names |= {f for f in v.flags if f.startswith("policy:")}
    return names


def hack_counts(verdicts) -> dict:
    """{pattern: count} over a batch (hack_names per verdict)."""
    counts = dict.fromkeys(sorted(HACK_ERROR_TYPES | HACK_FLAGS), 0)
    for v in verdicts:
        for name in hack_names(v):
            counts[name] = counts.get(name, 0) + 1
    return counts


def judge_fault(v) -> bool:
    """True when the judge reached no verdict for reasons of its own (JUDGE_FAULT_TYPES, or a timeout spent waiting
    on the judge's own GPU lock or compile baseline rather than on the answer)."""
    return v.error_type in JUDGE_FAULT_TYPES or (v.error_type == "timeout"
                                                 and (v.error_msg or "").startswith("judge-side pause"))


def rollout_classes(verdicts, args) -> list:
    """Per rollout "correct" (S+: correct and no hack pattern), "wrong" (S-: everything else, hacks included) or
    "skip" (a judge fault under --judge-faults skip: in neither set, so it moves nothing)."""
    out = []
    for v in verdicts:
        if args.judge_faults == "skip" and judge_fault(v):
            out.append("skip")
        elif earns(v):  # correct and no hack flag (a correct verdict has no error type for hack_names to see)
            out.append("correct")
        else:
            out.append("wrong")
    return out


def speed_value(speedup, args) -> float:
    """r_s of a correct rollout: --speed-shape log (log s) or power (s^alpha) of the speedup clipped to
    [1/cap, cap]; an unmeasured speed (the CPU) counts as 1x."""
    s = 1.0 if speedup is None else min(max(speedup, 1.0 / args.speedup_cap), args.speedup_cap)
    return math.log(s) if args.speed_shape == "log" else s ** args.speed_alpha


def drpo_weights(verdicts, classes, args) -> list:
    """DRPO's weights over one group: softmax(r_s / lambda) over S+, 0 elsewhere (all 0 when S+ is empty)."""
    r = [speed_value(v.speedup, args) / args.drpo_lambda if c == "correct" else None for v, c in zip(verdicts, classes)]
    top = max((x for x in r if x is not None), default=None)
    if top is None:
        return [0.0] * len(verdicts)
    e = [math.exp(x - top) if x is not None else 0.0 for x in r]
    return [x / sum(e) for x in e]


def zscore(xs, eps=1e-6) -> list:
    """(x - mean) / (population std + eps); all zeros when the values have no spread."""
    if not xs:
        return []
    mu = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs))
    return [0.0] * len(xs) if sd < 1e-12 else [(x - mu) / (sd + eps) for x in xs]


def grpo_rewards(verdicts, classes, args) -> list:
    """GRPO rewards of one group (None for a skipped rollout).

    coupled: 0 for a wrong rollout; a correct one earns 1 + b, b its speed bonus. With --correct-first (default) b is
    r_s mapped from its range over [1/cap, cap] onto [0, 1], so every correct rollout earns 1 to 2; with
    --no-correct-first b = r_s as written (1 + log s), which is below a wrong rollout's 0 for s < 1/e.
    decoupled: z(correct) over the group plus the speed z-score within S+ (0 for wrong ones). z(correct) puts every
    correct rollout at least 2 above every wrong one; a z-score of n values reaches at most sqrt(n - 1) (Samuelson),
    so --correct-first divides the speed z-score by sqrt(|S+| - 1) to keep it within +-1; without it, from G = 10 a
    slow correct rollout can rank below a wrong one."""
    idx = [i for i, c in enumerate(classes) if c != "skip"]
    out = [None] * len(verdicts)
    if args.reward == "coupled":
        lo, hi = speed_value(1.0 / args.speedup_cap, args), speed_value(args.speedup_cap, args)
        for i in idx:
            if classes[i] != "correct":
                out[i] = 0.0
                continue
            r_s = speed_value(verdicts[i].speedup, args)
            out[i] = 1.0 + ((r_s - lo) / (hi - lo) if args.correct_first and hi > lo else r_s)
        return out
    z_c = zscore([1.0 if classes[i] == "correct" else 0.0 for i in idx])
    pos = [i for i in idx if classes[i] == "correct"]
    z_s = zscore([speed_value(verdicts[i].speedup, args) for i in pos])
    scale = 1.0 / math.sqrt(len(pos) - 1) if args.correct_first and len(pos) > 1 else 1.0
    speed = dict(zip(pos, (z * scale for z in z_s)))
    for i, z in zip(idx, z_c):
        out[i] = z + speed.get(i, 0.0)
    return out


def group_advantages(rewards, norm) -> list:
    """Group-relative advantages over the non-None rewards (None -> 0): zscore, (r - mean) / (std + eps), 0 without
    spread; mean, r - mean (Dr. GRPO)."""
    idx = [i for i, r in enumerate(rewards) if r is not None]
    vals = [rewards[i] for i in idx]
    if norm == "zscore":
        adv = zscore(vals)
    else:
        mu = sum(vals) / len(vals) if vals else 0.0
        adv = [r - mu for r in vals]
    out = [0.0] * len(rewards)
    for i, a in zip(idx, adv):
        out[i] = a
    return out


def group_split(classes, group_size) -> dict:
    """How many groups are informative (correct and wrong rollouts both), all correct, all wrong (skipped rollouts
    left out; a group with nothing judged counts as all wrong)."""
    out = {"informative": 0, "all_correct": 0, "all_wrong": 0}
    for start in range(0, len(classes), group_size):
        kinds = set(classes[start:start + group_size]) - {"skip"}
        out["informative" if kinds == {"correct", "wrong"} else "all_correct" if kinds == {"correct"} else "all_wrong"] += 1
    return out


# ----------------------------------------------------------------------------------------------------
# Memory caps and the baseline cache (parent side; pure or file-only, no torch)

CAP_HOST_SHARE = 0.75   # the workers together may hold this share of host memory (trainer, parent, OS keep the rest)
CAP_GPU_SHARE = 0.9     # ... and this share of the GPU (CUDA contexts, the trainer's own tensors)
CAP_HOST_FLOOR_GB = 8.0  # a worker's host cap is never below this (or the share of a small host)
CAP_GPU_FLOOR_GB = 4.0   # ... nor its GPU cap below this


def memory_caps(host_total_gb, gpu_total_gb, workers):
    """Per-worker memory caps in GB from the machine's totals and the number of concurrent workers.
    shared (a normal job, next to `workers` - 1 others):
        rss_gb = max(0.75 * host / workers, min(8, 0.75 * host)),  gpu_gb = max(0.9 * gpu / workers, min(4, 0.9 * gpu))
    exclusive (the retry of a job that ran out of memory; it holds the GPU alone):
        rss_exclusive_gb = 0.75 * host,  gpu_exclusive_gb = gpu (the whole GPU)
    gpu_total_gb 0 (a CPU judge, or not known yet) gives GPU caps of 0 (no cap)."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    host, gpu = max(float(host_total_gb), 0.0), max(float(gpu_total_gb or 0.0), 0.0)
    return {"rss_gb": max(CAP_HOST_SHARE * host / workers, min(CAP_HOST_FLOOR_GB, CAP_HOST_SHARE * host)),
            "gpu_gb": max(CAP_GPU_SHARE * gpu / workers, min(CAP_GPU_FLOOR_GB, CAP_GPU_SHARE * gpu)),
            "rss_exclusive_gb": CAP_HOST_SHARE * host, "gpu_exclusive_gb": gpu}


# The torch.compile baselines a Judge can time beside eager, by name: the torch.compile mode, and the Judge flag
# that asks for it. Each has a stem ("compile", "max_autotune": baseline_stem) naming its keys: a verdict's timings
# <stem>_ref_ms (its median time), speedup_vs_<stem>, <stem>_ms (how long compiling took, or failed after) and
# <stem>_ref_ms_from_cache; the BaselineCache's <stem>_ms (the median time) or <stem>_failed; the flag
# <stem>_baseline_failed where it does not compile.
# max-autotune runs as Inductor's "max-autotune-no-cudagraphs": its autotuned GEMM/conv templates without CUDA
# graphs, which answers may not use either (and whose per-call copy of fresh inputs into the graph's static
# buffers would land inside the timed region). Its autotuning benchmarks candidate kernels, so it compiles holding
# the GPU alone (Worker.time_candidate).
COMPILE_BASELINES = {"compile": ("default", "compile_baseline"),
                     "max-autotune": ("max-autotune-no-cudagraphs", "autotune_baseline")}


def baseline_stem(name):
    return name.replace("-", "_")


def compile_baselines(job):
    """The names (COMPILE_BASELINES) of the torch.compile baselines a job measures."""
    return [name for name, (_, flag) in COMPILE_BASELINES.items() if job.get(flag)]


def measured_baselines(v):
    """The baseline times a verdict measured itself (not taken from the cache), as BaselineCache.put takes
    them: eager_ms, and per compile baseline <stem>_ms or <stem>_failed. Empty for an untimed verdict."""
    out = {}
    if v.ref_ms is not None and not v.timings.get("ref_ms_from_cache"):
        out["eager_ms"] = v.ref_ms
    for stem in map(baseline_stem, COMPILE_BASELINES):
        if v.timings.get(f"{stem}_ref_ms") is not None and not v.timings.get(f"{stem}_ref_ms_from_cache"):
            out[f"{stem}_ms"] = v.timings[f"{stem}_ref_ms"]
        elif f"{stem}_baseline_failed" in v.flags and v.ref_ms is not None and f"{stem}_ms" in v.timings:
            out[f"{stem}_failed"] = True  # it failed to compile here, now (<stem>_ms: the attempt's time)
    return out


def _host_memory_gb():
    """Total host memory in GB (2^30 bytes), or the cgroup's limit (a container) where that is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        with contextlib.suppress(OSError, ValueError):
            with open(path) as f:
                total = min(total, int(f.read().strip()))  # "max" (no limit) raises ValueError
    return total / (1 << 30)


class BaselineCache:
    """Reference timings measured once per task and machine: a JSONL file, one entry a line,
    {"task_sha256", "gpu", "torch", "triton", "eager_ms", "compile_ms", "compile_failed", "max_autotune_ms",
    "max_autotune_failed", "ref_oom", "ref_oom_share_gb"}. eager_ms is the median forward time of the eager
    reference, compile_ms of torch.compile(reference), max_autotune_ms of its mode="max-autotune"; any may be
    missing. ref_oom (the oom message) and ref_oom_share_gb: the task's
    reference ran out of memory under a worker's share of that many GB, so a Judge whose share is no larger runs
    its jobs alone from their first attempt (36 of KernelBench level 1's references did, each paying a failed first
    attempt in every eval; the lab record).
    The key is (sha256 of the task source, GPU name, torch version, triton version): a new GPU or a new torch
    measures again. Writes are atomic (a temp file in the same folder, then os.replace), after re-reading the
    file, so two processes sharing it lose at most each other's latest entries (last writer wins) and never
    leave a corrupt file. Unreadable lines are skipped with one warning on stderr."""

    FIELDS = ("eager_ms", "compile_ms", "compile_failed", "max_autotune_ms", "max_autotune_failed", "ref_oom",
              "ref_oom_share_gb")

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.entries = self._read()

    @staticmethod
    def key(task_source, gpu, torch_version, triton_version):
        return (hashlib.sha256(task_source.encode()).hexdigest(), str(gpu), str(torch_version), str(triton_version))

    def get(self, key):
        """The stored FIELDS of `key` (eager_ms, compile_ms, max_autotune_ms, their *_failed, ref_oom...), or
        None."""
        e = self.entries.get(tuple(key))
        return dict(e) if e else None

    def put(self, key, **times):
        """Merge `times` (FIELDS only) into the entry of `key` and write the file."""
        bad = set(times) - set(self.FIELDS)
        if bad:
            raise ValueError(f"unknown baseline fields {sorted(bad)}; known: {self.FIELDS}")
        self.entries = self._read()  # another process may have written since
        self.entries.setdefault(tuple(key), {}).update(times)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".baselines-", dir=os.path.dirname(self.path))
        try:
            with os.fdopen(fd, "w") as f:
                for (sha, gpu, tv, trv), e in sorted(self.entries.items()):
                    f.write(json.dumps({"task_sha256": sha, "gpu": gpu, "torch": tv, "triton": trv, **e}) + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _read(self):
        entries, bad = {}, 0
        try:
            with open(self.path) as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return entries
        except (OSError, UnicodeDecodeError) as e:
            print(f"judge: baseline cache {self.path} unreadable ({e}); measuring baselines again", file=sys.stderr)
            return entries
        for line in lines:
            try:
                d = json.loads(line)
                key = (d["task_sha256"], d["gpu"], d["torch"], d["triton"])
                entries[key] = {k: d[k] for k in self.FIELDS if k in d}
            except (ValueError, KeyError, TypeError):
                bad += line.strip() != ""
        if bad:
            print(f"judge: baseline cache {self.path}: skipped {bad} unreadable line(s)", file=sys.stderr)
        return entries


# ----------------------------------------------------------------------------------------------------
# Wire format between parent and worker: 8-byte little-endian length, then UTF-8 JSON.


def _send(fd, obj):
    data = json.dumps(obj).encode()
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _recv_blocking(fd):
    head = _read_exact(fd, 8)
    if head is None:
        return None
    (n,) = struct.unpack("<Q", head)
    body = _read_exact(fd, n)
    return None if body is None else json.loads(body)


def _read_exact(fd, n):
    chunks, got = [], 0
    while got < n:
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


# ----------------------------------------------------------------------------------------------------
# Worker side. Everything below up to `class Judge` runs only inside a worker process.

ALLOC_OPS = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
             "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "scalar_tensor",
             "arange", "zero_", "fill_", "lift_fresh", "lift_fresh_copy", "randn", "rand", "empty_permuted"}
POISON_OPS = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"}
VIEW_OPS = {"view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "expand", "permute", "transpose",
            "t", "squeeze", "unsqueeze", "slice", "select", "narrow", "split", "split_with_sizes", "chunk",
            "unbind", "flatten", "unflatten", "view_as", "alias", "detach", "unfold", "movedim", "contiguous",
            "clone", "copy_", "_to_copy", "to", "resize_", "set_", "is_contiguous",
            "sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "size", "stride", "numel", "dim",
            "_has_compatible_shallow_copy_type", "is_same_size"}
# Aten ops that implement one logical operation are compared as one family in the torch_fallback check.
OP_FAMILIES = {"mm": "matmul", "addmm": "matmul", "bmm": "matmul", "baddbmm": "matmul", "matmul": "matmul",
               "linear": "matmul", "addmv": "matmul", "mv": "matmul", "dot": "matmul", "addbmm": "matmul",
               "convolution": "conv", "_convolution": "conv", "conv1d": "conv", "conv2d": "conv",
               "conv3d": "conv", "mkldnn_convolution": "conv", "cudnn_convolution": "conv",
               "conv_transpose1d": "conv_t", "conv_transpose2d": "conv_t", "conv_transpose3d": "conv_t",
               "softmax": "softmax", "_softmax": "softmax", "log_softmax": "log_softmax",
               "_log_softmax": "log_softmax"}


def op_family(name):
    base = name[:-1] if name.endswith("_") and not name.endswith("__") else name
    return OP_FAMILIES.get(base, base.lstrip("_"))


# Policies on the torch ops of a forward (Worker.check_policy). strict: allocation, view and copy ops only.
# hybrid (the paper's; the default): torch may also run these op families, Triton runs everything else.
# partial: torch may run any op next to faithful kernels, as long as it does not run every compute op of the
# reference nor compute the output before a later launch. For the partial programs of test-time search
# (search.py keeps unreplaced ops in PyTorch); it lets torch do most of the work, so RL rewards never use it.
POLICIES = ("hybrid", "strict", "partial")
HYBRID_TORCH_FAMILIES = {"matmul", "conv", "conv_t"}
DROPOUT_FAMILIES = {"bernoulli", "native_dropout"}  # F.dropout: a bernoulli_ draw, then div_ and mul (or native)
# Whole library layers (KernelBench level 3): a call of a module of exactly one of these torch.nn types is recorded
# as one op of the family "library:<type>" (OpRecorder's module hooks), and the aten ops inside it are its own,
# whatever the backend decomposes it into (cuDNN's _cudnn_rnn, the CPU's mkldnn_rnn_layer and stack, attention's
# math path). Policy hybrid lets torch make as many calls of such a layer as the reference makes, as it lets
# torch run a GEMM: a recurrent cell or fused attention is the library's, the ops between layers are Triton's.
LIBRARY_LAYERS = ("RNN", "LSTM", "GRU", "MultiheadAttention")
LIBRARY_FAMILY = "library:"
# Reading a tensor's values into Python (float(t), t.item(), iteration over elements: aten's _local_scalar_dense;
# repr(t), str(t), f"{t}": HOST_TEXT, which the recorder counts itself since torch's printing dispatches nothing)
# is compute the recorder cannot follow further: policies count it as a compute op, up to the reference's own.
HOST_FAMILIES = ("local_scalar_dense", "host:tensor_text")
HOST_TEXT = "host:tensor_text"
FLOAT_TO_INT = "float_to_int"   # a copy that truncates floating values to integers (the recorder's name for it)
ACCUMULATE = "add:gemm_accumulate"   # a GEMM's beta * C over a C of the output's shape (_accumulates): an add
GEMM_SCALE = "mul:gemm_alpha_beta"   # a GEMM's alpha, or a beta other than 0 and 1: the epilogue's scale


HEAVY_BEYOND_REFERENCE = "gemm_conv_beyond_reference"
# The multiply-adds of the GEMMs, convolutions and attention ops a forward ran outside library layers (the
# recorder adds them under this name, so they travel with the op counts): hybrid's budget for torch's heavy work
# is the reference's own, which an augmented or padded GEMM (an epilogue folded into extra rows of the weight)
# exceeds while keeping the reference's count of calls.
MACS = "macs:gemm_conv"
MACS_SLACK = 1.001  # the answer's heavy multiply-adds may exceed the reference's by this factor (shapes agree)
# ... and those of the library layers' calls (_layer_macs, from each call's configuration and input shape): where an
# answer computes a reference's LSTM or attention with its own GEMMs, the bound on its heavy work is the reference's
# GEMMs plus its layers'. LIBRARY_MACS_UNKNOWN counts calls whose multiply-adds could not be read off.
LIBRARY_MACS = "macs:library"
LIBRARY_MACS_UNKNOWN = "macs:library_unknown"
# Each GEMM, convolution or attention op is also counted under GEMM_K + the bit length of its reduction length
# (multiply-adds per output element; a library layer under its shortest one). A product whose reduction is much
# shorter than any the reference runs (a batched 1x1 GEMM, an (n, 1) GEMV: an elementwise product) is not a GEMM
# the hybrid policy lends torch: SHORT_REDUCTION counts those SHORT_REDUCTION_BUCKETS or more buckets below the
# reference's shortest (under an eighth of it) and under 8, with the elementwise work they do.
GEMM_K = "k:gemm_conv:"
SHORT_REDUCTION = "gemm_short_reduction"
SHORT_REDUCTION_BUCKETS = 4
SHORT_REDUCTION_MAX_BITS = 3   # ... and under 8 (an affine map per element takes a reduction of 2): a split-K chunk,
                               # a transposed convolution as GEMM plus col2im, attention over few keys stay GEMMs


# What each GEMM or convolution outside library layers takes (OpRecorder.anchor_of): ANCHOR_PARAM where an operand
# holds a weight the reference's own GEMMs, convolutions or library layers take (the answer's parameters are matched
# against their _anchor_prints in each recorded forward; views, casts, copies and concatenations of them made in the
# forward count), ANCHOR_INPUT where one holds the forward's inputs (or copies of them), ANCHOR_NONE where both come
# from the forward's own work. Policy hybrid lets torch make as many calls of the last two kinds as the reference
# does (plus two per attention op it runs or the answer computes itself: scores and their product with V), so
# torch's GEMMs are the reference's: Triton doing the reference's GEMM while torch's allowed call multiplies by a
# block identity or a ones kernel of the answer's making (a residual, a scale, a norm's statistics) is
# HEAVY_UNANCHORED. A library layer whose parameters are not the reference's (an attention with uniform weights
# returning means, an LSTM whose gates make a ReLU) is LAYER_UNANCHORED.
ANCHOR_PARAM, ANCHOR_INPUT, ANCHOR_NONE = "anchor:param", "anchor:input", "anchor:none"
# The two calls lent per attention op are for the attention's own GEMMs, each of which takes a projection (q, k or
# v: what a GEMM on the reference's weights wrote, ANCHOR_PROJ memory, or a view or copy of it) or a forward input:
# ANCHOR_NONE_PROJ counts the ANCHOR_NONE calls that take one. A lent call spent on the answer's own matrices (a
# LayerNorm as a GEMM with (I - J/C) diag(gamma) on a Triton kernel's output) takes none, and is HEAVY_UNANCHORED.
# Projections are tracked where the reference runs attention (OpRecorder's `proj`), and are checked again by value
# after a Triton launch, as parameters are. What a kernel given a projection writes is a projection too (a bias
# added, heads split, q scaled or rotated in Triton), so each operand of a lent call must also differ from one
# recorded forward to the next, on other inputs, by LENT_VARY at least (a sample of LENT_SAMPLES of its values): a
# matrix of the answer's, even one written by a kernel that was handed q, stays the same.
ANCHOR_PROJ, ANCHOR_NONE_PROJ = "anchor:projection", "anchor:none_projection"
LENT_SAMPLES, LENT_VARY = 64, 0.01
# The multiply-adds torch's GEMMs, convolutions and library layers do with each of the reference's weights
# (ROOT_MACS + the weight's index in the reference's list, _anchor_prints; a library layer's by _layer_weight_macs):
# at most the reference's own with that weight (exactly: the same GEMMs do the same multiply-adds; a slack would
# pay for a small GEMM on a slice of a weight). A weight used twice (an out-projection's weight times
# a matrix of the answer's, making a "projection" of its choosing, or writing x + b for the out-projection to
# accumulate into as if split along K) is over; a GEMM split along M or K, or a loop over time steps, is not.
ROOT_MACS = "macs:root:"
# The answer's own floating parameters and buffers (those holding none of the reference's weights: a matrix made
# in the constructor) and copies of them: a GEMM of a reference weight with one of them makes no projection and
# starts no split along K (its product is any matrix the answer likes)
ANCHOR_OWN = "anchor:own_constant"
HEAVY_WEIGHT_OVER = "gemm_conv_weight_beyond_reference"
ANCHOR_LAYER = "anchor:layer_foreign"
HEAVY_UNANCHORED = "gemm_conv_not_the_reference"
LAYER_UNANCHORED = "library_layer_not_the_reference"
# ... ops whose output holds their inputs' values, each once (a repeat or a gather could make a constant operand)
ANCHOR_COPIES = {"_to_copy", "clone", "contiguous", "cat", "stack", "copy_", "_unsafe_view", "_reshape_alias",
                 "_copy_from", "_copy_from_and_resize", "lift_fresh_copy", "flip", "roll",
                 "permute_copy", "t_copy", "transpose_copy", "view_copy", "slice_copy",
                 "select_copy", "unsqueeze_copy", "squeeze_copy", "split_with_sizes_copy", "split_copy",
                 "unbind_copy", "narrow_copy", "alias_copy", "_unsafe_split", "split", "split_with_sizes",
                 "chunk", "unbind"}


ACCUMULATING = ("addmm", "baddbmm", "addbmm", "addmv")   # GEMMs with an accumulate operand C (their first)
GEMM_BIAS = "epilogue:gemm_bias"   # a bias added to the GEMM output just made (_bias_add): part of the GEMM
CONSTANT_READ = "read:model_constant"   # a scalar parameter's value read into Python (_reads_constant)


def is_measure(family):
    """A recorder's record travelling with the op counts (multiply-adds, reduction lengths, a GEMM's bias add),
    not a compute op."""
    return family.startswith(("macs:", "k:", "epilogue:", "read:", "anchor:"))


def _macs(torch, name, args, out):
    """Multiply-adds of one GEMM, convolution or attention op, from its operands' shapes (0 if unreadable)."""
    fam = op_family(name)
    try:
        if fam in ("conv", "conv_t"):   # per output (input, for a transposed conv) element: w.numel() / w.shape[0]
            x, w = args[0], args[1]
            transposed = fam == "conv_t" or name in ("convolution", "_convolution") and len(args) > 6 and bool(args[6])
            return (x if transposed else out).numel() * (w.numel() // max(1, w.shape[0]))
        if fam == "matmul":
            a = args[1] if name.rstrip("_") in ("addmm", "baddbmm", "addbmm", "addmv") else args[0]
            k = a.shape[0] * a.shape[-1] if name.rstrip("_") == "addbmm" else a.shape[-1]
            return (out if isinstance(out, torch.Tensor) else args[0]).numel() * k
        if "attention" in fam:   # two GEMMs: scores (L x S x D) and their product with V
            q, k = args[0], args[1]
            return 2 * q.numel() * k.shape[-2]
    except (AttributeError, IndexError, TypeError):
        return 0
    return 0


def _layer_macs(module, args):
    """Multiply-adds of one call of a library layer (LIBRARY_LAYERS) from its configuration and its input's shape:
    its gates' GEMMs over every step, layer and direction (a projection's too), or attention's in and out
    projections and its two batched GEMMs. None where the call's shapes cannot be read (a packed sequence)."""
    try:
        name = type(module).__name__
        if name == "MultiheadAttention":
            q, k, v = args[0], args[1], args[2]
            e = module.embed_dim
            rows_q, rows_k, rows_v = q.numel() // e, k.numel() // module.kdim, v.numel() // module.vdim
            batch = 1 if q.dim() == 2 else q.shape[0 if module.batch_first else 1]
            keys = rows_k // batch + (module.bias_k is not None) + bool(module.add_zero_attn)  # S, as attended
            return rows_q * e * e * 2 + rows_k * module.kdim * e + rows_v * module.vdim * e + 2 * rows_q * keys * e
        x = args[0]
        x = x.data if isinstance(x, tuple) and hasattr(x, "batch_sizes") else x   # a packed sequence: its tokens
        gates = {"RNN": 1, "LSTM": 4, "GRU": 3}[name]
        hidden, proj = module.hidden_size, getattr(module, "proj_size", 0) or 0
        out = proj or hidden
        dirs = 2 if module.bidirectional else 1
        steps = x.numel() // x.shape[-1]   # batch x time (time alone for an unbatched input)
        total = 0
        for layer in range(module.num_layers):
            width = module.input_size if layer == 0 else out * dirs
            total += steps * dirs * (gates * hidden * (width + out) + hidden * proj)
        return int(total)
    except (AttributeError, IndexError, KeyError, TypeError, ZeroDivisionError):
        return None


def _layer_weight_macs(module, args):
    """[(parameter, multiply-adds)] of one call of a library layer: each weight's share of _layer_macs (attention's
    scores and their product with V take none), for the per-weight budget (ROOT_MACS); [] where unreadable."""
    try:
        if type(module).__name__ == "MultiheadAttention":
            q, k, v = args[0], args[1], args[2]
            e = module.embed_dim
            rows_q, rows_k, rows_v = q.numel() // e, k.numel() // module.kdim, v.numel() // module.vdim
            out = [(module.out_proj.weight, rows_q * e * e)]
            if module.in_proj_weight is not None:
                return out + [(module.in_proj_weight, rows_q * e * e + rows_k * module.kdim * e
                               + rows_v * module.vdim * e)]
            return out + [(module.q_proj_weight, rows_q * e * e), (module.k_proj_weight, rows_k * module.kdim * e),
                          (module.v_proj_weight, rows_v * module.vdim * e)]
        x = args[0]
        x = x.data if isinstance(x, tuple) and hasattr(x, "batch_sizes") else x
        gates = {"RNN": 1, "LSTM": 4, "GRU": 3}[type(module).__name__]
        hidden, proj = module.hidden_size, getattr(module, "proj_size", 0) or 0
        width_out = proj or hidden
        steps = x.numel() // x.shape[-1]
        out = []
        for layer in range(module.num_layers):
            width = module.input_size if layer == 0 else width_out * (2 if module.bidirectional else 1)
            for sfx in ("", "_reverse") if module.bidirectional else ("",):
                out.append((getattr(module, f"weight_ih_l{layer}{sfx}"), steps * gates * hidden * width))
                out.append((getattr(module, f"weight_hh_l{layer}{sfx}"), steps * gates * hidden * width_out))
                if proj:
                    out.append((getattr(module, f"weight_hr_l{layer}{sfx}"), steps * hidden * proj))
        return out
    except (AttributeError, IndexError, KeyError, TypeError, ZeroDivisionError):
        return []


def _rnn_partners(model, ids):
    """[[index, index]] of the reference's recurrent layers' input and hidden weights, layer by layer and direction
    by direction (indices from _anchor_prints' `ids`): a GEMM on one may accumulate into the other's output as one
    product split along K (a hand-written LSTM's addmm(x W_ih^T, h, W_hh^T))."""
    pairs = []
    for m in model.modules():
        if type(m).__name__ not in ("RNN", "LSTM", "GRU"):
            continue
        for name, p in m.named_parameters(recurse=False):
            if name.startswith("weight_ih_l"):
                hh = getattr(m, "weight_hh_l" + name[len("weight_ih_l"):], None)
                if hh is not None and id(p) in ids and id(hh) in ids:
                    pairs.append([ids[id(p)], ids[id(hh)]])
    return pairs


def _layer_min_k(module, args=()):
    """The shortest reduction of a library layer's GEMMs: a recurrent layer's input or state width, attention's
    key, value or head width or its number of keys as attended (0 if unreadable)."""
    try:
        if type(module).__name__ == "MultiheadAttention":
            widths = [module.kdim, module.vdim, module.embed_dim // module.num_heads]
            if len(args) >= 2:
                k = args[1]
                batch = 1 if k.dim() == 2 else k.shape[0 if module.batch_first else 1]
                widths.append(k.numel() // module.kdim // batch + (module.bias_k is not None)
                              + bool(module.add_zero_attn))
            return int(min(widths))
        return int(min(module.input_size, getattr(module, "proj_size", 0) or module.hidden_size))
    except (AttributeError, TypeError, ValueError):
        return 0


def weights_over(cand, ref_ops):
    """The ROOT_MACS keys of the reference's weights with which torch did more multiply-adds than the reference
    (none where a library layer's multiply-adds could not be read)."""
    if ref_ops.get(LIBRARY_MACS_UNKNOWN):
        return []
    return [f for f, n in cand.items() if f.startswith(ROOT_MACS) and n > ref_ops.get(f, 0)]


def hybrid_extra_ops(cand, ref_ops=None):
    """Compute-op families (with counts) that policy hybrid does not let torch run: all but GEMMs, convolutions,
    dropout and the library layers (LIBRARY_LAYERS) that the reference's own forward runs (`ref_ops`, its
    families), up to as many calls of each as the reference makes. Dropout is random (no kernel reproduces
    torch's mask), so each bernoulli draw also allows the div and the mul of F.dropout's decomposition, up to
    the reference's own draws (a draw made for its excuse let a multiply compute an activation).

    GEMMs and convolutions together, too, only up to as many calls as the reference makes (HEAVY_BEYOND_REFERENCE
    counts the rest): an identity or 1x1 GEMM or convolution computes an add, a scale or a sum, so a budget of
    "any number" let torch do an elementwise task's work. Beyond the reference's count: two GEMMs for each
    attention op of the reference (a head dim too large for a fused kernel runs as two batched GEMMs), and more
    calls with no more multiply-adds (MACS: one GEMM split in two, q, k and v projected apart). The multiply-adds
    may not exceed the reference's GEMMs', convolutions' and attention ops' by more than MACS_SLACK (an epilogue
    folded into extra rows of an augmented GEMM keeps its count). Where the answer makes fewer calls of a library
    layer than the reference (its own GEMMs for an LSTM's cells or attention's projections), the count has no
    budget and the multiply-adds' bound is the reference's GEMMs' and library layers' together (LIBRARY_MACS),
    the answer's own layers counted too; none where a reference layer's could not be read."""
    ref_ops = ref_ops or {}
    up_to_reference = HOST_FAMILIES + (FLOAT_TO_INT, ACCUMULATE, GEMM_SCALE)   # the reference's own count is allowed
    extra = {f: n - ref_ops.get(f, 0) if f.startswith(LIBRARY_FAMILY) or f in up_to_reference else n
             for f, n in cand.items() if f not in HYBRID_TORCH_FAMILIES and f not in DROPOUT_FAMILIES
             and not is_measure(f)}
    draws = min(sum(cand.get(f, 0) for f in DROPOUT_FAMILIES if f != "native_dropout"),
                sum(ref_ops.get(f, 0) for f in DROPOUT_FAMILIES) if ref_ops else 1 << 30)
    for fam in ("div", "mul"):
        if fam in extra:
            extra[fam] -= min(extra[fam], draws)
    if ref_ops:
        heavy = sum(cand.get(f, 0) for f in HYBRID_TORCH_FAMILIES)
        budget = sum(ref_ops.get(f, 0) for f in HYBRID_TORCH_FAMILIES) + 2 * sum(
            n for f, n in ref_ops.items() if "attention" in f and not f.startswith(LIBRARY_FAMILY))
        # a library layer of the reference that the answer computes itself (an LSTM's cells, attention's
        # projections): its GEMMs were the layer's own, uncounted in the reference, so no budget holds
        replaced = any(cand.get(f, 0) < n for f, n in ref_ops.items() if f.startswith(LIBRARY_FAMILY))
        macs, ref_macs = cand.get(MACS, 0), ref_ops.get(MACS, 0)
        if not replaced and (macs > ref_macs * MACS_SLACK or heavy > budget and macs > ref_macs):
            # more multiply-adds (an augmented GEMM keeps the count), or more calls that are not one GEMM split
            extra[HEAVY_BEYOND_REFERENCE] = max(1, heavy - budget)
        elif replaced and not ref_ops.get(LIBRARY_MACS_UNKNOWN):
            total = macs + cand.get(LIBRARY_MACS, 0)
            if total > (ref_macs + ref_ops.get(LIBRARY_MACS, 0)) * MACS_SLACK:
                extra[HEAVY_BEYOND_REFERENCE] = max(1, heavy - budget)
        if any(f.startswith("anchor:") for f in cand):   # what the calls took (ANCHOR_*), where recorded
            mha = LIBRARY_FAMILY + "MultiheadAttention"
            spare = 2 * sum(n for f, n in ref_ops.items() if "attention" in f and not f.startswith(LIBRARY_FAMILY)) \
                + 2 * max(0, sum(n for f, n in ref_ops.items() if f.startswith(mha))
                          - sum(n for f, n in cand.items() if f.startswith(mha)))
            # Calls taking neither a weight nor an input: as many as the reference's that take no projection, and
            # those taking a projection up to the reference's own such calls (its hand-written attention) plus the
            # lent ones; likewise with inputs counted in
            ref_none, ref_proj = ref_ops.get(ANCHOR_NONE, 0), ref_ops.get(ANCHOR_NONE_PROJ, 0)
            ref_input = ref_ops.get(ANCHOR_INPUT, 0)
            proj, inputs = cand.get(ANCHOR_NONE_PROJ, 0), cand.get(ANCHOR_INPUT, 0)
            none_over = cand.get(ANCHOR_NONE, 0) - (ref_none - ref_proj) - min(spare + ref_proj, proj)
            loose_over = cand.get(ANCHOR_NONE, 0) + inputs - (ref_none - ref_proj) \
                - min(spare + ref_proj + ref_input, proj + inputs)
            if max(none_over, loose_over) > 0:
                extra[HEAVY_UNANCHORED] = max(none_over, loose_over)
            if cand.get(ANCHOR_LAYER):
                extra[LAYER_UNANCHORED] = cand[ANCHOR_LAYER]
            over = weights_over(cand, ref_ops)
            if over:
                extra[HEAVY_WEIGHT_OVER] = len(over)
        ref_k = [int(f[len(GEMM_K):]) for f in ref_ops if f.startswith(GEMM_K)]
        attention = any("attention" in f for f in ref_ops)   # its two GEMMs reduce over lengths of their own
        if ref_k and not replaced and not attention and heavy > budget and HEAVY_BEYOND_REFERENCE not in extra:
            # More calls than the reference, within its multiply-adds, pass as one GEMM split up (along M or N,
            # or along K in two). Where Triton took over part of a reference GEMM, that budget paid for GEMMs of
            # another reduction length: a block-identity operand adding a residual, zero-padded GEMMs building a
            # ReLU out of fp32 rounding. Every call's reduction length must be one of the reference's, within a
            # power-of-two bucket.
            odd = sum(n for f, n in cand.items() if f.startswith(GEMM_K)
                      and min(abs(int(f[len(GEMM_K):]) - k) for k in ref_k) > 1)
            if odd:
                extra[HEAVY_BEYOND_REFERENCE] = odd
        if ref_k:
            floor = min(min(ref_k) - SHORT_REDUCTION_BUCKETS, SHORT_REDUCTION_MAX_BITS)
            short = sum(n for f, n in cand.items() if f.startswith(GEMM_K) and int(f[len(GEMM_K):]) <= floor)
            if short:
                extra[SHORT_REDUCTION] = short
    return {f: n for f, n in extra.items() if n > 0}


def compute_ops(counts):
    """Families and counts of the ops that are not allocation, view or copy."""
    out = {}
    for name, n in counts.items():
        if name not in ALLOC_OPS and name not in VIEW_OPS:
            fam = op_family(name)
            out[fam] = out.get(fam, 0) + n
    return out


class _Launches:
    """Triton launch counter shared by the wrapped launchers; `suppress` turns launches into no-ops."""
    count = 0
    suppress = False
    raised = False  # an exception escaped a launcher (compile/launch failure, interpreter check)
    depth = 0  # > 0 while inside a launcher: the interpreter's own torch ops are not the candidate's
    recorder = None  # the OpRecorder recording now: a launch's tensor arguments leave its GEMM outputs
    # (answer process) samples of the operands each lent attention GEMM took, by the call's place in the forward,
    # from up to 8 recorded forwards (OpRecorder.varies): a later forward on other inputs must differ from each
    lent_samples = {}


FALLBACK_SAMPLE = 4096  # torch_fallback: outputs are compared at this many random flat positions (all, if fewer)
FALLBACK_KEEP = 8       # ... with the last this many torch compute outputs that came before a Triton launch


class _FallbackWatch:
    """What torch computed in one recorded forward, for the torch_fallback check (answered_by).

    Each output of a torch compute op (as `compute_ops` counts them; run outside a Triton launcher) with as many
    elements as an output of the task is kept as a sample: its values, in logical row-major order, at
    FALLBACK_SAMPLE flat positions drawn per forward from a private generator (the candidate's random stream is
    untouched; the positions cannot be known in advance). A sample is a copy taken when the op ran, so a kernel
    that later rewrites that tensor in place (an honest in-place epilogue) does not change it, and it costs a
    few KB whatever the output's size, so no output-sized tensor is kept alive. Samples taken since the last
    Triton launch are pending; the next launch makes them `kept` (the last FALLBACK_KEEP of either)."""

    def __init__(self, torch, numels, device):
        g = torch.Generator().manual_seed(int.from_bytes(os.urandom(7), "little"))
        self.torch = torch
        # dtypes whose indexing and fp64 cast work everywhere; others (complex, float8, quantized) are not sampled,
        # so the judge's own ops inside the candidate's forward cannot fail
        self.dtypes = {torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.int16,
                       torch.int32, torch.int64, torch.uint8, torch.bool}
        self.positions = {n: (torch.arange(n) if n <= FALLBACK_SAMPLE else
                              torch.randint(0, n, (FALLBACK_SAMPLE,), generator=g)).to(device)
                          for n in set(numels) if n > 0}
        self.pending = collections.deque(maxlen=FALLBACK_KEEP)  # (op name, numel, sample), no launch after yet
        self.kept = collections.deque(maxlen=FALLBACK_KEEP)     # (op name, numel, sample), a launch ran after
        self.launches = _Launches.count

    def _promote(self):
        if _Launches.count != self.launches:  # a Triton launch ran since the pending ops
            self.kept.extend(self.pending)
            self.pending.clear()
            self.launches = _Launches.count

    def record(self, name, out):
        self._promote()
        for t in (out if isinstance(out, (tuple, list)) else (out,)):
            if self.sampled(t):
                self.pending.append((name, t.numel(), self.sample(t)))

    def sampled(self, t):
        torch = self.torch
        return (isinstance(t, torch.Tensor) and t.layout == torch.strided and not t.is_meta
                and t.dtype in self.dtypes and t.numel() in self.positions)

    def sample(self, t):
        """t's values at the flat positions for its numel (a copy; row-major order whatever its strides)."""
        t, idx = t.detach(), self.positions[t.numel()]
        idx = idx if idx.device == t.device else idx.to(t.device)
        if t.is_contiguous():
            return t.reshape(-1)[idx]
        coords = []
        for size in reversed(t.shape):
            coords.append(idx % size)
            idx = idx // size
        return t[tuple(reversed(coords))]

    def answered_by(self, outs, atol_rtol):
        """The name of a torch op, run before a later Triton launch, whose output equals (flattened, within the
        tolerance of the output's dtype; exactly for integer/bool outputs) every output tensor that the
        tolerance can tell from a constant, or None. A constant output is exempt: that a torch op made the same
        constant (zeros, a mean over a size-1 dim) says nothing about who did the task's work."""
        torch = self.torch
        self._promote()
        names = []
        for o in outs:
            if not self.sampled(o):
                continue
            a = self.sample(o).double()
            atol, rtol = atol_rtol.get(str(o.dtype).replace("torch.", ""), atol_rtol["float32"])
            if not o.is_floating_point():
                atol = rtol = 0.0
            mid = (a.min() + a.max()) / 2
            if bool(torch.isclose(a, mid.expand_as(a), atol=atol, rtol=rtol).all()):
                continue  # the tolerance cannot tell it from a constant
            match = next((name for name, n, b in reversed(self.kept) if n == o.numel() and bool(
                torch.isclose(a, b.to(a.device).double(), atol=atol, rtol=rtol, equal_nan=True).all())), None)
            if match is None:
                return None
            names.append(match)
        return names[0] if names else None


class _CappedWriter:
    """sys.stdout/sys.stderr for candidate code: keeps nothing, counts bytes (a candidate may print GBs)."""

    def __init__(self):
        self.n = 0

    def write(self, s):
        self.n += len(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


class _WorkerError(Exception):
    def __init__(self, error_type, msg, **kw):
        super().__init__(msg)
        self.error_type, self.kw = error_type, kw


def _set_limits(device, mem_limit_gb, fsize_mb):
    """rlimits a CUDA process tolerates: no core files, bounded file size and open files; address-space
    limit on CPU only (CUDA maps huge virtual ranges). RLIMIT_NPROC is left alone: it counts the user's
    threads machine-wide, so a low value starves torch's thread pools and Triton's ptxas subprocess."""
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes fail with EFBIG instead of killing
    limits = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, fsize_mb << 20), (resource.RLIMIT_NOFILE, 4096)]
    if device == "cpu" and mem_limit_gb > 0:
        limits.append((resource.RLIMIT_AS, int(mem_limit_gb * (1 << 30))))
    for which, soft in limits:
        _, hard = resource.getrlimit(which)
        soft = soft if hard == resource.RLIM_INFINITY else min(soft, hard)
        resource.setrlimit(which, (soft, hard))


def _lift_address_space_limit():
    """An exclusive job on the CPU: the soft address-space rlimit goes up to the hard one."""
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _rss_gb(pid):
    """Host memory of a worker and every process below it (its answer hatch and answer process) in GB: the sum
    of their proportional set sizes (shared pages split between the processes that map them, so the torch
    libraries a fork shares count once), or of their resident sizes where the kernel has no smaps_rollup.
    Linux /proc; 0 where unavailable."""
    total, stack = 0.0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                total += next(int(ln.split()[1]) for ln in f if ln.startswith("Pss:")) / (1 << 20)
        except (OSError, ValueError, IndexError, StopIteration):
            try:
                with open(f"/proc/{p}/statm") as f:
                    total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 30)
            except (OSError, ValueError, IndexError):
                pass
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return total


def die_with_parent():
    """Linux: SIGKILL this worker when the process that started it dies (prctl PR_SET_PDEATHSIG), so a trainer
    killed with -9 leaves no orphan spinning on a candidate's infinite loop (the wall-clock limit is enforced
    by the parent, which is gone). An idle orphan exits anyway: its job pipe reaches EOF. The Judge must be
    created and used from one thread (the signal follows the thread that started the worker)."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        import ctypes
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def _worker_main(fd_in, fd_out, device, mem_limit_gb, threads):
    """A spawned worker (`python reward.py --worker ...`): die with the Judge, set limits, then serve."""
    die_with_parent()
    _set_limits(device, mem_limit_gb, fsize_mb=256)
    _drop_script_dir_from_path()
    _serve(fd_in, fd_out, device, threads)


def _drop_script_dir_from_path():
    """The judge's own folder and the cwd leave sys.path: a candidate must not import bench, train, ..."""
    script_dir = os.path.dirname(REWARD_PATH)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") not in (script_dir, os.getcwd())]


def _fix_interpreter_bf16_dot():
    """Triton's CPU interpreter (3.8 seen) multiplies the raw uint16 bits of bf16 tl.dot operands (numpy has no
    bf16; it stores them as uint16), so a correct bf16 GEMM comes out ~1e9 wrong on the CPU. The CPU judge widens
    bf16 operands to fp32 before the interpreter's dot, as the tensor cores compute them (exact products, fp32
    sums). A no-op where the interpreter's internals differ or the operands are not bf16."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter as ti
        builder, convert, handle = ti.InterpreterBuilder, ti._convert_float, ti.TensorHandle
    except (ImportError, AttributeError):
        return
    original = builder.create_dot
    if getattr(original, "bf16_widened", False):
        return

    def widen(h):
        if h.dtype != tl.bfloat16:
            return h
        return handle(convert(h.data, tl.bfloat16, tl.float32, None).view(np.float32), tl.float32)

    def create_dot(self, a, b, *rest, **kw):
        return original(self, widen(a), widen(b), *rest, **kw)
    create_dot.bf16_widened = True
    builder.create_dot = create_dot


@contextlib.contextmanager
def _start_up_hold(torch, where):
    """A process's start-up (CUDA's context, the warm-up kernel) under the GPU lock named by `where`
    ([lock_dir, uuid]), shared, with the device synchronised before it goes and the lock's files closed after;
    a no-op for None (the CPU, or a lock not known yet)."""
    if not where:
        yield
        return
    lock = _GpuLock(*where)
    lock.shared()
    try:
        yield
        torch.cuda.synchronize()
    finally:
        lock.release()
        lock.gate.close()
        lock.lock.close()


def _serve(fd_in, fd_out, device, threads):
    """Worker loop: import torch/triton (a no-op in a fork of the zygote), then answer jobs until EOF or recycle."""
    t = time.perf_counter()
    import torch
    import triton
    if device == "cpu":
        _fix_interpreter_bf16_dot()
    torch.set_num_threads(threads)
    hatch, _ = _start_answer_hatch(device)  # before this process touches CUDA: the hatch must be clean
    # A worker started while others work (a replacement) starts CUDA and runs its warm-up kernel under the GPU
    # lock, shared, so that never lands in a timing; the Judge names the lock once its first worker reported
    # the GPU (WORKER_LOCK_ENV). Its first answer process starts with its first job (verify), under that lock too.
    spec = os.environ.get(WORKER_LOCK_ENV) if device == "cuda" else None
    with _start_up_hold(torch, json.loads(spec) if spec else None):
        w = _Worker(torch, triton, device, fd_out, hatch)
    # init_s: imports (none after a fork), CUDA's start and the warm-up kernel (bench.py verify reports it)
    info = {"torch": torch.__version__, "triton": triton.__version__, "gpu": "cpu", "gpu_total_gb": 0.0}
    if device == "cuda":  # the Judge derives the GPU caps and the baseline cache's key from these
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        info.update(gpu=props.name, gpu_total_gb=props.total_memory / (1 << 30), gpu_uuid=str(props.uuid))
    _send(fd_out, {"type": "ready", "pid": os.getpid(), "init_s": round(time.perf_counter() - t, 3), **info})
    while True:
        job = _recv_blocking(fd_in)
        if job is None or job.get("type") == "exit":
            os._exit(0)
        out = w.run_job(job)
        _send(fd_out, out)
        if out["recycle"]:
            os._exit(0)


# --- the zygote: one per Judge, forks workers from an interpreter that has imported torch and triton -------

def _zygote_main(sock_fd, device):
    """`python reward.py --zygote FD DEVICE`, started by the Judge like a spawned worker (scrubbed env, own
    session, dies with the Judge). Imports what a worker imports, without initialising CUDA, then serves the
    Judge's requests on a Unix SEQPACKET socket, one JSON message each:
      {"op": "fork", tmp, env, device, mem_limit_gb, threads} with the worker's two pipe ends attached
        (SCM_RIGHTS) -> {"type": "forked", "pid"} or {"type": "refused", "why"} (the Judge then spawns);
      {"op": "release", "pid"}: the Judge has seen the worker's exit and killed its group; reap it.
    and reports {"type": "exit", "pid", "rc"} (Popen's convention: -N for signal N) when a worker dies. A dead
    worker stays a zombie until released, so its pid (its process group id) cannot be reused while the Judge
    may still kill that group, as with Popen. Exits when the Judge closes the socket."""
    import socket
    die_with_parent()
    _drop_script_dir_from_path()
    sock = socket.socket(fileno=sock_fd)
    torch = _import_worker_modules(device)
    wake_r, wake_w = os.pipe()  # SIGCHLD wakes the select below
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    def send(msg):
        sock.send(json.dumps(msg).encode())

    children = {}  # pid -> [exit code or None, released by the Judge]
    send({"type": "ready", "pid": os.getpid()})
    while True:
        readable, _, _ = select.select([sock, wake_r], [], [], 1.0)
        with contextlib.suppress(BlockingIOError):
            os.read(wake_r, 4096)
        if sock in readable:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 2)
            if not msg:
                os._exit(0)  # the Judge closed the socket (or died: then the death signal comes too)
            req = json.loads(msg)
            if req["op"] == "release" and req["pid"] in children:
                children[req["pid"]][1] = True
            elif req["op"] == "fork":
                pid, why = _fork_worker(torch, req, fds, sock, (wake_r, wake_w))
                if why is None:
                    children[pid] = [None, False]
                send({"type": "forked", "pid": pid} if why is None else {"type": "refused", "why": why})
        _report_and_reap(children, send)


def _import_worker_modules(device):
    """The zygote's imports: what a worker imports, without initialising CUDA. Returns torch."""
    if device == "cuda":  # torch.cuda.is_available() through NVML, not the CUDA runtime, if an import asks
        os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    import torch
    import triton  # noqa: F401
    import triton.language  # noqa: F401  (everything _Worker.__init__ imports that is safe before a fork)
    import triton.runtime.interpreter  # noqa: F401
    import triton.runtime.jit  # noqa: F401
    import torch.utils._python_dispatch  # noqa: F401
    import torch._dynamo  # noqa: F401  (2 s of the 6 s a worker took to start on CPU)
    import importlib.util  # noqa: F401
    import inspect  # noqa: F401
    import resource  # noqa: F401
    import traceback  # noqa: F401  (_fork_worker's child prints with it)
    return torch


def _fork_worker(torch, req, fds, sock, wake_fds):
    """One fork request in the zygote: (pid, None) for a forked worker, (None, why) when the zygote refused
    (the Judge then spawns). The child becomes the worker and never returns here. Closes the attached fds."""
    import traceback
    why = _fork_unsafe(torch) if len(fds) == 2 else f"{len(fds)} file descriptors attached, not 2"
    pid = None
    if why is None:
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as e:
            why = f"fork failed: {e}"
    if pid == 0:
        try:
            _forked_worker(req, fds, sock, wake_fds)
        except BaseException:  # nothing may return into the zygote's loop in the child; the log says why
            traceback.print_exc()
        finally:
            os._exit(1)
    for fd in fds:
        os.close(fd)
    return pid, why


def _report_and_reap(children, send):
    """The zygote's children ({pid: [exit code or None, released by the Judge]}): report each new exit (looked
    at, not reaped), and reap the exited ones the Judge has released."""
    for pid, child in list(children.items()):
        if child[0] is None:
            st = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)  # look, do not reap
            if st is not None:
                child[0] = st.si_status if st.si_code == os.CLD_EXITED else -st.si_status
                send({"type": "exit", "pid": pid, "rc": child[0]})
        if child[0] is not None and child[1]:
            os.waitpid(pid, 0)
            del children[pid]


def _fork_unsafe(torch):
    """Why the zygote must not fork now, or None. A fork copies only the calling thread, so a lock held by any
    other thread stays held forever in the child; a CUDA context (or a CUDA driver already initialised) does
    not survive a fork. The zygote should never have either: this checks that it does not."""
    import threading
    if threading.active_count() != 1:
        return f"{threading.active_count()} Python threads"
    with contextlib.suppress(OSError):  # OS threads too (numpy's OpenBLAS pool, OpenMP): Linux /proc
        n = len(os.listdir("/proc/self/task"))
        if n != 1:
            return f"{n} OS threads"
    if torch.cuda.is_initialized():
        return "CUDA is initialised"
    # Mapped is not initialised: torch 2.11 maps libcuda at import on a GPU host without calling cuInit, and
    # children forked after that imported state each initialised CUDA and ran a Triton kernel and a cuBLAS
    # matmul (H200, the lab record). Triton calls cuInit when it makes its driver object, on first use.
    from triton.runtime import driver
    if getattr(driver, "_active", None) is not None or getattr(driver, "_default", None) is not None:
        return "Triton's CUDA driver is initialised"
    return None


def _forked_worker(req, fds, sock, wake_fds):
    """In a child of the zygote, before anything else: a session of its own (the Judge kills the worker's
    process group), death with the zygote, the worker's own cwd, environment (replaced entirely), stdout/stderr
    and stdin, and every other file descriptor closed -- the zygote's control socket first of all. Then the
    worker's limits and loop, as in a spawned worker."""
    os.setsid()
    die_with_parent()
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    sock.close()
    for fd in wake_fds:
        os.close(fd)
    os.chdir(req["tmp"])
    os.environ.clear()
    os.environ.update(req["env"])
    tempfile.tempdir = None  # gettempdir() caches; the next call reads the new TMPDIR
    log = os.open(os.path.join(req["tmp"], "worker.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    job_r, res_w = fds
    _close_fds_except({0, 1, 2, job_r, res_w})
    _set_limits(req["device"], req["mem_limit_gb"], fsize_mb=256)
    _serve(job_r, res_w, req["device"], req["threads"])


def _close_fds_except(keep):
    try:
        top = max(int(fd) for fd in os.listdir("/proc/self/fd")) + 1
    except (OSError, ValueError):
        top = os.sysconf("SC_OPEN_MAX")
    lo = 0
    for fd in sorted(keep) + [top]:
        if lo < fd:  # never an empty range: CPython 3.11 turns closerange(n, n) into close_range(n, ~0)
            os.closerange(lo, fd)
        lo = fd + 1


# --- trials: a plan drawn per judging ------------------------------------------------------------------

TRIAL_KINDS = ("plain", "sign", "scale", "slice")  # how a trial's inputs are drawn (widen_inputs)
SCALE_RANGE = (2.0, 8.0)                 # a "scale" trial divides a block of each floating input by a factor
                                         # of this size, log-uniform


def trial_plan(seed, task_source, trials):
    """The trials of one task under one judging's `seed`: a list of {"seed", "kind", "faithful"} in the order they
    run. Of `trials` correctness trials the first kinds are one of each contrast ("sign", "scale", "slice") where
    there are three or more trials, the rest "plain"; then one faithfulness trial, drawn like the others (a random kind, its
    own seed); the order is shuffled, so neither a position nor a count tells the faithfulness trial or a
    contrast trial apart. Deterministic in (seed, task source, trials): `--seed` reproduces a verdict."""
    rng = random.Random(f"{seed}:{_sha(task_source)}:{trials}")
    kinds = (["sign", "scale", "slice"] if trials >= 3 else []) + ["plain"] * trials
    plan = [{"seed": rng.getrandbits(62), "kind": k, "faithful": False} for k in kinds[:trials]]
    plan.append({"seed": rng.getrandbits(62), "kind": rng.choice(TRIAL_KINDS), "faithful": True})
    rng.shuffle(plan)
    if plan[0]["faithful"] and len(plan) > 1:   # never first: an answer may prepare its weights on its first call
        j = rng.randrange(1, len(plan))
        plan[0], plan[j] = plan[j], plan[0]
    return plan


def widen_inputs(torch, inputs, kind, seed):
    """A trial's inputs drawn from the task's own distribution (`inputs`), widened by `kind`:
      plain: as drawn;
      sign:  each element of each floating input multiplied by an independent random sign (a task drawing from
             torch.rand never reaches the negative branch of an activation otherwise);
      scale: in each floating input, along two random dims of size >= 2 (one where it has one), a block (a
             random split in the dim's middle half) divided by a random factor in SCALE_RANGE (a statistic read
             from part of the input, along any dim, or a scale assumed from the distribution, is off). Blocks
             shrink rather than grow, as the slice trial's do: a product of two inputs grown 8-fold each would
             grow a correct kernel's rounding 64-fold against the fixed atol, and a bf16x3 or TF32 GEMM that
             passes the task's own draws would fail where outputs cancel;
      slice: in each floating input, along two random dims of size >= 2 (one where it has one), one random slice
             kept and everything else divided by a factor that gives the slices about a tenth of the input's
             weight (sqrt(n / 10) for the larger dim of n, at least SCALE_RANGE[1], times a random 1 to 3): a
             statistic read from any fixed part of the indices (every k-th row as well as a leading block) either
             holds a slice, and overweights it k-fold, or misses it.
    Deterministic in `seed` (a private generator on each input's device; torch's global RNG is untouched, so a
    forward that draws from it, e.g. dropout, draws the same in the reference and the answer process). Other
    values, integer and boolean tensors are kept."""
    if kind == "plain":
        return inputs
    rng = random.Random(seed)
    out = []
    for x in inputs:
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() == 0:
            out.append(x)
            continue
        if kind == "sign":
            g = torch.Generator(device=x.device).manual_seed(rng.getrandbits(62))
            flip = torch.randint(0, 2, x.shape, generator=g, device=x.device, dtype=torch.int8).bool()
            y = x.clone()  # the same strides: a transposed input stays transposed
            y.mul_(torch.where(flip, -1.0, 1.0).to(x.dtype))
            out.append(y)
        elif kind == "scale":
            dims = [d for d, n in enumerate(x.shape) if n >= 2]
            y = x.clone()
            for dim in rng.sample(dims, min(2, len(dims))):
                n = x.shape[dim]
                split = rng.randrange(max(1, n // 4), max(2, 3 * n // 4 + 1))  # the middle half: no sliver
                factor = 1.0 / math.exp(rng.uniform(math.log(SCALE_RANGE[0]), math.log(SCALE_RANGE[1])))
                rng.random()   # the draw that once chose growing or shrinking: seeds keep their blocks
                start, length = (0, split) if rng.random() < 0.5 else (split, n - split)
                y.narrow(dim, start, length).mul_(factor)
            out.append(y)
        elif kind == "slice":   # inputs of one shape share their slices and factor (no two slices cancel out)
            pick = random.Random(f"{seed}:{tuple(x.shape)}")
            dims = [d for d, n in enumerate(x.shape) if n >= 2]
            keep = torch.zeros(x.shape, dtype=torch.bool, device=x.device)
            factor = SCALE_RANGE[1]
            for dim in pick.sample(dims, min(2, len(dims))):
                n = x.shape[dim]
                keep.select(dim, pick.randrange(n)).fill_(True)
                factor = max(factor, math.sqrt(n / 10))
            factor *= math.exp(pick.uniform(0.0, math.log(3.0)))
            # the rest shrinks rather than the slice growing: no value leaves the task's own range, so a kernel's
            # rounding (a float16 operand's) stays as small against the outputs as on the task's own draws
            out.append(torch.where(keep, x, x / factor) if dims else x)
        else:
            raise ValueError(f"unknown trial kind {kind!r}")
    return out


# --- tensors between processes: a JSON header and raw bytes, never pickle ----------------------------------

MAX_TENSOR_BYTES = 64 << 30  # a header that claims more than this is a protocol error
SPOT_CHECK_BYTES = 2 << 30   # host copies of timed outputs an answer process keeps for the spot checks
AUDITED_TIMED_RUNS = 2       # timed runs (drawn per judging) recorded instead, as a trial is; 1 where fewer than 10
ANSWER_FILE = "answer.py"    # the answer's source in its process's directory (tracebacks name its lines)


def _tensor_meta(torch, t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "nbytes": t.numel() * t.element_size()}


SHM_MIN_BYTES = 1 << 20   # outputs of a reply at least this large go through the answer's shared memory file


def _output_shm():
    """A shared memory file for an answer process's outputs (its worker keeps one end, the answer process gets
    the other at its fork): anonymous (memfd, gone with the last of the two processes, nothing to clean up),
    sealed against shrinking, so the worker's mapping of it can never fault however the answer treats its end,
    and against further seals (a write seal would make the worker's next mapping fail).
    None where the platform has no memfd or seals (the outputs then go through the pipe)."""
    import fcntl
    if not (hasattr(os, "memfd_create") and hasattr(fcntl, "F_ADD_SEALS")):
        return None
    try:
        fd = os.memfd_create("drtriton-answer-outputs", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except OSError:
        return None
    try:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
    except OSError:
        os.close(fd)
        return None
    return fd


def _send_tensors(fd, header, tensors, torch, shm=None):
    """`header` (a dict) with "tensors": the metas of `tensors`, then each tensor's bytes (contiguous, on the
    host), in order. With `shm` (the answer's mapping of its output file) the tensors that fit there are copied
    into it instead (their metas say where: "at"), one device-to-host copy and no pipe; the rest stream.
    `tensors` (a list) is emptied as it goes."""
    metas, at, streamed = [], 0, []
    view = torch.frombuffer(shm, dtype=torch.uint8) if shm is not None and len(shm) else None
    while tensors:   # the caller's list, emptied: where it held the only references, a host copy goes once in the file
        t = tensors.pop(0)
        meta = _tensor_meta(torch, t)
        n = meta["nbytes"]
        flat = t.detach().contiguous().view(-1)
        if view is not None and n and at + n <= view.numel():
            view[at:at + n].copy_(flat.view(torch.uint8))
            meta["at"] = at
            at += -(-n // 64) * 64
        else:
            streamed.append(flat)
        metas.append(meta)
    _send(fd, dict(header, tensors=metas))
    for flat in streamed:
        for a in range(0, flat.numel(), REF_CHUNK_ELEMS):
            raw = flat[a:a + REF_CHUNK_ELEMS].cpu().view(torch.uint8).numpy().tobytes()
            data = memoryview(raw)
            while data:
                data = data[os.write(fd, data):]


def _recv_tensors(fd, header, torch, device, shm=None):
    """The tensors announced by `header` (sent by _send_tensors): read from the pipe onto `device`, or, where
    the meta says "at", views of `shm` (the worker's mapping of the answer's output file) in host memory, no
    copy: the comparison reads them chunk by chunk onto the device (_chunked_close), so a worker holds no GPU
    copy of a multi-GB output. A view is good until the next request to the answer process, which writes the
    file again (the worker compares before it asks again; the answer process runs no code in between). A
    header whose sizes or places do not add up is refused before any bytes are read (ValueError)."""
    metas = header.get("tensors") or []
    plan, end = [], 0
    for k, m in enumerate(metas):
        dtype = getattr(torch, str(m.get("dtype")), None)
        shape = m.get("shape", [])
        if not isinstance(dtype, torch.dtype) or not isinstance(shape, list) or \
                not all(type(s) is int and 0 <= s <= MAX_TENSOR_BYTES for s in shape):
            raise ValueError(f"tensor {k}: unknown dtype {m.get('dtype')!r} or shape {shape!r}")
        numel = math.prod(shape)
        nbytes = numel * torch.empty((), dtype=dtype).element_size()
        if nbytes != m.get("nbytes") or nbytes > MAX_TENSOR_BYTES:
            raise ValueError(f"tensor {k}: {m.get('nbytes')} bytes announced for {shape} {dtype}")
        at = m.get("at")
        if at is not None:   # as _send_tensors places them: 64-byte steps, in order, none overlapping
            if shm is None or type(at) is not int or at < end or at % 64 or at + nbytes > len(shm):
                raise ValueError(f"tensor {k}: {nbytes} bytes at {at!r} are outside the output file or out of "
                                 "its order")
            end = at + nbytes
        plan.append((dtype, shape, numel, nbytes, at))
    out = []
    for dtype, shape, numel, nbytes, at in plan:
        if at is not None:
            src = torch.frombuffer(shm, dtype=torch.uint8, count=nbytes, offset=at) if nbytes else \
                torch.empty(0, dtype=torch.uint8)
            out.append(src.view(dtype).view(shape))
            continue
        t = torch.empty(numel, dtype=dtype, device=device)
        raw = t.view(torch.uint8) if numel else t
        step = REF_CHUNK_ELEMS
        for a in range(0, nbytes, step):
            b = _read_exact(fd, min(step, nbytes - a))
            if b is None:
                raise EOFError("the answer process closed its pipe")
            chunk = torch.frombuffer(bytearray(b), dtype=torch.uint8)
            raw[a:a + len(b)].copy_(chunk)
        out.append(t.view(shape))
    return out


# --- the answer process ---------------------------------------------------------------------------------
#
# Each answer runs in a process of its own, forked for it from a clean helper (the answer hatch) and never
# reused. The hatch is forked by a worker before the worker touches CUDA or any task: it holds torch and triton
# imported and nothing else. The worker (the reference side and the comparator) sends the answer process the
# solution and the task's source (get_inputs and get_init_inputs, to draw the same inputs from the same seeds),
# then one message per trial; the answer process returns the forward's outputs as bytes (through a sealed
# memfd both map where they are large: _output_shm), with what it recorded
# (launches, aten ops at the dispatcher). It never holds a reference output, the reference model or a timing
# the verdict depends on; it compares nothing.


def _start_answer_hatch(device):
    """Fork the answer hatch (`_answer_hatch_main`) from this worker, before it has touched CUDA. Returns the
    worker's end of the control socket and the hatch's pid."""
    import socket
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            mine.close()
            _answer_hatch_main(theirs, device)
        finally:
            os._exit(1)
    theirs.close()
    return mine, pid


def _answer_hatch_main(sock, device):
    """The answer hatch: dies with its worker; forks one answer process per request
    {"op": "fork", "dir", "threads"} with its two pipe ends (and its output file, where there is one) attached
    -> {"pid"} or {"why"};
    {"op": "wait", "pid"} reaps it -> {"rc"} (Popen's convention)."""
    import socket
    die_with_parent()
    import torch
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        if not msg:
            os._exit(0)
        req = json.loads(msg)
        if req["op"] == "wait":
            try:
                _, status = os.waitpid(req["pid"], 0)
                rc = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                rc = None
            sock.send(json.dumps({"rc": rc}).encode())
            continue
        why = _fork_unsafe(torch) if len(fds) in (2, 3) else f"{len(fds)} file descriptors attached, not 2 or 3"
        pid = None
        if why is None:
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    sock.close()
                    _answer_main(req, fds, device)
                finally:
                    os._exit(1)
        for fd in fds:
            os.close(fd)
        sock.send(json.dumps({"pid": pid} if why is None else {"why": why}).encode())


def _answer_main(req, fds, device):
    """In a new answer process: its own directory and Triton cache, stdout/stderr to its log, every other
    descriptor closed; then serve the worker's messages (`_Answer`) until it says exit or closes the pipe."""
    die_with_parent()
    os.makedirs(req["dir"], exist_ok=True)
    os.chdir(req["dir"])
    os.environ["TRITON_CACHE_DIR"] = os.path.join(req["dir"], "triton")
    os.environ["HOME"] = req["dir"]
    os.environ["TMPDIR"] = req["dir"]
    tempfile.tempdir = None
    log = os.open(os.path.join(req["dir"], "answer.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    fd_in, fd_out, *shm = fds
    _close_fds_except({0, 1, 2, fd_in, fd_out, *shm})
    import torch
    import triton
    if device == "cpu":
        _fix_interpreter_bf16_dot()
    torch.set_num_threads(req.get("threads", 1))
    with _start_up_hold(torch, req.get("lock") if device == "cuda" else None):  # out of other workers' timings
        a = _Answer(torch, triton, device, fd_out, shm[0] if shm else None)
    while True:
        msg = _recv_blocking(fd_in)
        if msg is None or msg.get("op") == "exit":
            os._exit(0)
        try:
            a.map_outputs(msg.get("shm", 0))
            header, tensors = a.handle(msg)
        except _WorkerError as e:
            header, tensors = {"type": "error", "error_type": e.error_type, "msg": str(e)[:4000]}, []
        except BaseException as e:  # noqa: BLE001  (the answer's SystemExit included: reported, not obeyed)
            # out of memory in the judge's own steps here (a trial's input draw, its fingerprints) is the job's
            # size, not the answer's fault: an oom, which the Judge retries alone
            kind = "oom" if _is_oom(torch, e) else "runtime_error"
            header, tensors = {"type": "error", "error_type": kind, "msg": _describe(e)[:4000]}, []
        if device == "cuda":  # nothing it queued runs on after its reply, when the worker may give up its GPU hold
            try:
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001  (a sticky CUDA error the answer's kernel left)
                header, tensors = {"type": "error", "error_type": "kernel_error", "msg": _describe(e)[:4000]}, []
        patched = a.patched()
        if patched:
            header, tensors = {"type": "error", "error_type": "patched_critical",
                               "msg": "answer replaced " + ", ".join(patched[:10])}, []
        header["printed_chars"] = a.printed_chars
        _send_tensors(fd_out, header, tensors, torch, a.shm_map)


class _Answer:
    """The answer process's side (module comment above): import and build the answer, run recorded trials and
    timed runs, return outputs."""

    def __init__(self, torch, triton, device, fd_out, shm_fd=None):
        self.torch, self.triton, self.device, self.fd_out = torch, triton, device, fd_out
        self.shm_fd, self.shm_map = shm_fd, None
        self.printed_chars = 0
        self.model = self.task = None
        from triton.runtime.jit import JITFunction
        from triton.runtime.interpreter import InterpretedFunction
        for cls in (JITFunction, InterpretedFunction):
            if not hasattr(cls.run, "__wrapped__"):
                cls.run = _counting_run(cls.run)
        self.OpRecorder = _op_recorder_class(torch)
        import torch._dynamo  # noqa: F401  (rebinds torch.manual_seed; before the snapshot)
        _warm_up(torch, triton, device, self.OpRecorder)
        self.critical = _snapshot(torch)

    def map_outputs(self, size):
        """Map the first `size` bytes of the output file (the worker has grown it to at least that) before the
        request runs, or unmap it where the request says 0: the reply's outputs go there (_send_tensors)."""
        if self.shm_fd is None or (self.shm_map is not None and len(self.shm_map) == size):
            return
        self.shm_map = None   # dropped, not closed: unmapped with its last view
        if size > 0 and os.fstat(self.shm_fd).st_size >= size:
            import mmap
            try:
                self.shm_map = mmap.mmap(self.shm_fd, size)
            except (OSError, ValueError):  # no address space for it (a CPU job's rlimit): the pipe carries them
                self.shm_map = None

    def patched(self):
        snap, spaces = self.critical
        return sorted(f"{s}.{k}" for (s, k), v in snap.items() if vars(spaces[s]).get(k) is not v)

    def handle(self, msg):
        op = msg.get("op")
        if op == "ping":  # the worker waits for this process's start-up (CUDA, warm-up) outside the GPU lock
            return {"type": "ready"}, []
        if op == "load":
            return self.load(msg), []
        if op == "trial":
            return self.trial(msg)
        if op == "time":
            return self.time(msg)
        raise _WorkerError("judge_error", f"unknown request {op!r}")

    def run_candidate(self, fn, error_type):
        """Run answer code with stdout/stderr muted; its exceptions become a typed _WorkerError."""
        torch = self.torch
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = writer = _CappedWriter()
        _Launches.raised = False
        try:
            return fn()
        except (SystemExit, KeyboardInterrupt) as e:
            raise _WorkerError("exit_called", f"candidate raised {type(e).__name__}({e})") from None
        except MemoryError as e:
            raise _WorkerError("oom", _describe(e)) from None
        except Exception as e:
            text = _describe(e)
            if _is_oom(torch, e):
                raise _WorkerError("oom", text) from None
            if type(e).__name__ in ("CompilationError", "CompileTimeAssertionFailure", "PTXASError"):
                raise _WorkerError("compile_error", text) from None
            if _Launches.raised:
                raise _WorkerError("kernel_error", text) from None
            raise _WorkerError(error_type, text) from None
        finally:
            sys.stdout, sys.stderr = saved
            self.printed_chars += writer.n

    def load(self, msg):
        """Import the task (its input draws only) and the answer, build ModelNew(*get_init_inputs()) on the CPU
        right after MODEL_SEED, as the reference side builds Model, and move it to the device."""
        torch = self.torch
        if msg.get("exclusive") and self.device == "cpu":
            _lift_address_space_limit()  # the retry of an oom: as its worker (make_room)
        self.cap(msg)
        path = os.path.join(os.getcwd(), "task_inputs.py")
        with open(path, "w") as f:
            f.write(msg["task"])
        try:
            self.task = _import_file(path, "task_inputs", register=False)
        except Exception as e:  # noqa: BLE001  (the task's own fault; the reference side reports it)
            raise _WorkerError("task_error", f"task import failed: {_describe(e)}") from None
        finally:
            os.unlink(path)
        try:
            init_inputs = list(self.task.get_init_inputs())
        except Exception as e:  # noqa: BLE001
            raise _WorkerError("task_error", f"get_init_inputs failed: {_describe(e)}") from None
        path = os.path.join(os.getcwd(), ANSWER_FILE)
        with open(path, "w") as f:
            f.write(msg["solution"])
        mod = self.run_candidate(lambda: _import_file(path, "answer"), "import_error")
        if not hasattr(mod, "ModelNew"):
            raise _WorkerError("missing_model_new", "the solution defines no class ModelNew")
        ModelNew = mod.ModelNew
        try:
            import inspect
            inspect.signature(ModelNew).bind(*init_inputs)
        except TypeError as e:
            raise _WorkerError("signature_mismatch", f"ModelNew(*get_init_inputs()) does not bind: {e}") from None
        except ValueError:
            pass
        torch.manual_seed(MODEL_SEED)
        model = self.run_candidate(lambda: ModelNew(*init_inputs), "init_error")
        if isinstance(model, torch.nn.Module):
            model = self.run_candidate(lambda: model.to(self.device), "init_error")
        self.model = model
        self.constants = _scalar_constants(torch, model)
        _Launches.lent_samples = {}   # a new answer: its lent calls are compared among its own forwards only
        return {"type": "loaded"}

    def draw(self, seed, kind, on_device):
        torch = self.torch
        torch.manual_seed(seed)
        inputs = draw_inputs(torch, self.task.get_inputs, self.device, on_device)
        return widen_inputs(torch, inputs, kind, seed)

    def cap(self, msg):
        """The GPU memory this process may hold now (the worker's share less what the worker holds)."""
        if msg.get("gpu_cap_gb") and self.device == "cuda":
            total = self.torch.cuda.get_device_properties(self.torch.cuda.current_device()).total_memory
            self.torch.cuda.set_per_process_memory_fraction(min(1.0, msg["gpu_cap_gb"] * (1 << 30) / total))

    def trial(self, msg):
        """One recorded forward on the inputs of (seed, kind): launches, aten ops, the torch-answer check, inputs
        unchanged. A faithfulness trial suppresses every launch and poisons fresh empty* buffers."""
        torch = self.torch
        self.cap(msg)
        inputs = self.draw(msg["seed"], msg["kind"], msg["on_device"])
        keys = [int.from_bytes(os.urandom(7), "little") for _ in inputs]
        marks = [_fingerprint(torch, x, k) if isinstance(x, torch.Tensor) else None for x, k in zip(inputs, keys)]
        pristine = [x.clone() if isinstance(x, torch.Tensor) and m is None else None for x, m in zip(inputs, marks)]
        header, out, watch = self.recorded(lambda: self.model(*inputs), msg, bool(msg.get("faithful")), inputs)
        modified = [i for i, (a, b, m, k) in enumerate(zip(inputs, pristine, marks, keys)) if isinstance(a, torch.Tensor)
                    and (_fingerprint(torch, a, k) != m if m is not None else not _same_values(torch, a, b))]
        header["inputs_modified"] = modified[0] if modified else None
        tensors = self.outputs(out, header)
        if watch is not None and header.get("wrong_type") is None:
            header["answered_by"] = watch.answered_by(tensors, msg["atol_rtol"])
        return header, tensors

    def recorded(self, call, msg, faithful=False, inputs=()):
        """One forward (`call`) under the op recorder: (header with its launches, aten op counts and their lines,
        output, the _FallbackWatch or None). The trials' forwards, and the timed runs audited in their place."""
        torch = self.torch
        watch = None
        if msg["policy"] in ("hybrid", "partial") and not faithful:
            watch = _FallbackWatch(torch, msg["numels"], self.device)
        anchors = prints = None
        roots = None
        if msg.get("anchors"):   # the reference's parameter prints: which of the model's still hold those values
            key = msg["anchors"]["key"]
            index = {tuple(p[:3]): p[3] for p in msg["anchors"]["prints"]}
            ids, seen = {}, []
            anchors = _input_anchors(torch, inputs, _model_anchors(torch, self.model, key, index, ids=ids), key, seen)
            prints = (key, index)
            roots = ({i: index[pr] for i, pr in ids.items()},
                     {frozenset(f"{ROOT_MACS}{i}" for i in pair) for pair in msg["anchors"].get("partners", [])},
                     tuple(seen))
        rec = self.OpRecorder(poison=faithful, watch=watch, constants=getattr(self, "constants", None),
                              anchors=anchors, prints=prints, proj=bool((msg.get("anchors") or {}).get("proj")),
                              roots=roots)
        start = _Launches.count
        _Launches.suppress = faithful
        try:
            with torch.no_grad():
                out = self.run_candidate(lambda: _call_recorded(call, rec, self.device), "runtime_error")
        finally:
            _Launches.suppress = False
        header = {"type": "trial", "launches": _Launches.count - start, "counts": dict(sorted(rec.counts.items())),
                  "op_lines": rec.lines}
        return header, out, watch

    def outputs(self, out, header):
        """The output's tensors, with its container in the header; a wrong type is described, not sent."""
        torch = self.torch
        container = None if isinstance(out, torch.Tensor) and type(out) is torch.Tensor else \
            type(out).__name__ if type(out) in (tuple, list) else None
        items = [out] if container is None else list(out)
        header["container"] = container
        for o in items:
            if type(o) is not torch.Tensor or o.layout != torch.strided or o.is_meta:
                header["wrong_type"] = f"{type(o).__module__}.{type(o).__qualname__}" + (
                    f" ({o.layout}, {o.device})" if type(o) is torch.Tensor else "")
                return []
        return [o.detach() for o in items]

    def time(self, msg):
        """The answer's timed runs (CUDA): msg["trials"] runs on fresh inputs widened by msg["kinds"] (module
        docstring, Timing), each after an L2 flush, between CUDA events; the outputs of a few runs, picked here at
        random, and of the last go back for the reference side to check, with each plain call's fewest Triton
        launches and the op records of AUDITED_TIMED_RUNS runs recorded in place of timed ones (drawn here)."""
        torch = self.torch
        self.cap(msg)
        rot = msg["rotation"]  # [[seed, kind], ...]: the input sets the runs rotate over where draws are not fresh

        def inputs_for(i):
            if msg["fresh"]:
                return self.draw(msg["seed_base"] + 1 + i, msg["kinds"][i], True)
            seed, kind = rot[i % len(rot)]
            return self.draw(seed, kind, msg["on_device"])
        first = inputs_for(0)
        inputs_new = [x.clone() if isinstance(x, torch.Tensor) else x for x in first]
        del first
        launches = []  # Triton launches of every plain call of the timing loop, warm-ups included

        def run_new():
            start = _Launches.count
            out = self.model(*inputs_new)
            launches.append(_Launches.count - start)
            return out
        fns, refill = {"new": run_new}, {"new": inputs_new}
        kept, picks, audits = {}, {}, {}
        rng = random.Random(os.urandom(8))

        def choose(n):  # the timed runs recorded instead (their outputs are checked too)
            chosen = set(rng.sample(range(n), min(n, AUDITED_TIMED_RUNS if n >= 10 else 1)))
            audits.update((i, None) for i in chosen)
            return chosen

        def audited(_fn):  # a timed run's place, a trial's recorded forward (the answer sees no difference)
            header, out, watch = self.recorded(lambda: self.model(*inputs_new), msg, inputs=inputs_new)
            ts = self.outputs(out, {})
            if watch is not None and ts:
                header["answered_by"] = watch.answered_by(ts, msg["atol_rtol"])
            i = min(i for i, h in audits.items() if h is None)
            audits[i] = dict(header, run=i)
            return out

        def check(i, n, outs, inputs):  # runs picked at random (one of each widened kind) and the last go back
            if n not in picks:  # as many as SPOT_CHECK_BYTES of host copies hold, 1 to 4, and the last
                ts = [outs["new"]] if isinstance(outs["new"], torch.Tensor) else list(outs["new"])
                size = sum(t.numel() * t.element_size() for t in ts if isinstance(t, torch.Tensor)) or 1
                picks[n] = _spot_picks(rng, n, _spot_count(size, n), msg["kinds"] if msg["fresh"] else None)
            if i in picks[n]:  # a host copy, made after the run's end event
                out = outs["new"]
                kept[i] = out.cpu() if isinstance(out, torch.Tensor) else type(out)(
                    o.cpu() if isinstance(o, torch.Tensor) else o for o in out)
        times = _cuda_times(torch, fns, refill, inputs_for, msg["trials"], self.run_candidate, check=check,
                            budget_s=msg.get("budget_s"), audit={"new": (choose, audited)})
        spots = sorted(kept)
        tensors, shapes = [], []
        head = {"type": "time", "times": times["new"], "launches_min": min(launches, default=None), "audits": []}
        for i in spots:
            h = {}
            ts = self.outputs(kept[i], h)
            if h.get("wrong_type"):
                return dict(head, wrong_type=h["wrong_type"], spots=[]), []
            shapes.append(len(ts))
            tensors.extend(ts)
        head["audits"] = [h for _, h in sorted(audits.items()) if h is not None]
        kept.clear()   # `tensors` holds the host copies alone: each goes once it is in the output file
        return dict(head, spots=spots, per_spot=shapes), tensors


def _spot_count(size, n):
    """How many timed runs of n, besides the last, send their outputs (`size` bytes each) back: as many as
    SPOT_CHECK_BYTES of host copies hold, 1 to 4."""
    return max(1, min(4, SPOT_CHECK_BYTES // max(size, 1) - 1, n - 1))


def _spot_picks(rng, n, k, kinds=None):
    """The timed runs (of n) whose outputs go back to be checked: the last, and k more drawn at random, of which
    one run of each widened kind in `kinds` (each run's) where k allows, so every contrast is checked."""
    rest = list(range(max(n - 1, 1)))
    rng.shuffle(rest)
    picks = []
    if kinds:
        widened = sorted({kinds[i] for i in rest if kinds[i] != "plain"})
        rng.shuffle(widened)
        for kind in widened[:k]:
            picks.append(next(i for i in rest if kinds[i] == kind))
    picks += [i for i in rest if i not in picks][:k - len(picks)]
    return set(picks) | {n - 1}


def _op_recorder_class(torch):
    """The TorchDispatchMode that records what ran during a forward: every aten op, whoever called it (the
    forward, a grid callable, a launcher's hooks), is counted; fresh empty* allocations outside a launcher
    are poisoned for a faithfulness trial, and outputs of compute ops outside a launcher go to a _FallbackWatch."""
    from torch.utils import _python_dispatch
    from torch.utils._python_dispatch import TorchDispatchMode
    # the library layers' classes as torch made them (every class of their MRO): a layer whose class an answer
    # patched for the length of a call (nn.LSTM.forward set through an unbound method and put back) is not one
    # (and the classes of their submodules: attention's out_proj)
    pristine = {c: dict(vars(c)) for name in LIBRARY_LAYERS for c in getattr(torch.nn, name).__mro__
                if c is not object}
    for sub in torch.nn.MultiheadAttention(2, 1).modules():
        pristine.update((c, dict(vars(c))) for c in type(sub).__mro__ if c is not object)
    tensor_repr = getattr(torch.Tensor.__repr__, "__wrapped__", torch.Tensor.__repr__)

    @functools.wraps(tensor_repr)
    def text(t, *args, **kwargs):   # printing reads every value and dispatches no op: counted while recording
        recorder = _Launches.recorder
        if recorder is not None:
            recorder.counts[HOST_TEXT] = recorder.counts.get(HOST_TEXT, 0) + 1
            recorder.lines.setdefault(HOST_TEXT, _answer_line())
        return tensor_repr(t, *args, **kwargs)
    # In place for the process's life, not per recorded forward: were it swapped in for recorded forwards only,
    # an answer that found a way to look the method up would know which forwards are audited
    torch.Tensor.__repr__ = text

    class OpRecorder(TorchDispatchMode):
        def __init__(self, poison=False, watch=None, constants=None, anchors=None, prints=None, proj=False,
                     roots=None):
            super().__init__()
            self.counts, self.poison, self.watch = {}, poison, watch
            # {storage pointer: [[start byte, end byte, ANCHOR_PARAM, ANCHOR_INPUT, ANCHOR_PROJ or ANCHOR_OWN, weak ref,
            # print, launches, roots]]}: the reference's weights, the answer's own constants and the forward's inputs,
            # what GEMMs on those weights wrote (with `proj`), and copies made of them in this forward, each the span
            # of its storage it fills
            # (_add_anchor: other memory of the same storage is the answer's); None: what GEMMs take is not
            # recorded (anchor_of)
            self.anchors = None if anchors is None else {p: list(v) for p, v in anchors.items()}
            self.proj = proj and anchors is not None
            # which of the reference's weights a parameter holds, for the multiply-adds done with each (ROOT_MACS):
            # id(parameter) -> index on the answer's side (_model_anchors), None on the reference's, whose parameters
            # are keyed by id until load_task numbers them; the pairs of weight keys a split along K may join
            # (split_partner); the prints of this forward's inputs (varies compares forwards on other inputs only)
            self.root_index, self.partners, self.inputs_seen = roots or (None, set(), ())
            self.op_roots = []   # (ROOT_MACS key, weight) of the weights the last GEMM took
            self.op_views, self.op_own = set(), False   # ... their operand views; a constant of the answer's taken
            self.pending = []   # a launch's arguments that hold projections once it has run (after_launch)
            self.lent_place = 0   # lent calls so far in this forward (varies)
            self.used = {}   # id -> the model's parameters this forward's GEMMs and convolutions took (anchor_kind)
            # (key, {(numel, dtype, checksum)}) of the reference's parameters: an operand that holds one of them
            # by value (a transposed weight a kernel prepared once and cached) is the reference's too
            self.prints = prints   # (key, {print: weight index})
            self.print_numels = {p[0] for p in prints[1]} if prints else set()
            self.constants = constants or {}   # the model's one-element parameters and buffers: _scalar_constants
            self.lines = {}  # compute op -> "line N: source" of the answer's line that first ran it
            self.layers = []  # per module forward running now: its _LibraryCall if a top-level library call, or None
            self.hooks = []
            # GEMM outputs, by storage: {data_ptr: ([weak refs to the output and its views], version, start,
            # end)}, while no Triton launch was given them and no op wrote them (remember_gemm, gemm_output);
            # beta * C within one of them is a GEMM split along K, not an add (_accumulates)
            self.gemm_outs = {}
            self.last_gemm = None   # the region of the last compute op's output, if a GEMM's: its bias add
            self.last_gemm_param = True   # ... and whether that GEMM took the reference's weights

        def __enter__(self):
            hooks = torch.nn.modules.module
            self.hooks = [hooks.register_module_forward_pre_hook(self.layer_enter),
                          hooks.register_module_forward_hook(self.layer_exit, with_kwargs=True, always_call=True)]
            _Launches.recorder = self
            return super().__enter__()

        def __exit__(self, *exc):
            _Launches.recorder = None
            for h in self.hooks:
                h.remove()
            self.hooks, self.layers = [], []
            return super().__exit__(*exc)

        def layer_enter(self, module, args):
            # exactly a torch.nn library type, holding and given only what torch made (_plain_layer: a subclass,
            # a hook or an object of the answer's would run the answer's code inside the layer); a layer inside
            # another counts as part of it. Its ops are held aside until the call returns, when its keyword
            # arguments are checked too: a plain call counts once, another's ops count as the answer's.
            cls = type(module)
            library = cls.__name__ in LIBRARY_LAYERS and cls is getattr(torch.nn, cls.__name__) and \
                _plain_layer(torch, module, [*args, *_call_kwargs(module).values()], pristine)
            outer = any(f is not None for f in self.layers)
            self.layers.append({"module": module, "args": args, "counts": {}, "lines": {}}
                               if library and not outer else None)

        def layer_exit(self, module, args, *rest):
            # (module, args, kwargs, output); torch passes no kwargs to an always-call hook of a forward that raised
            kwargs = rest[0] if len(rest) == 2 and isinstance(rest[0], dict) else {}
            if not self.layers:
                return
            call = self.layers.pop()
            if call is None:
                return
            if _plain_values(torch, list((kwargs or {}).values()), pristine):
                name = LIBRARY_FAMILY + type(module).__name__ + _layer_config(module) + \
                    _call_signature(torch, call["args"], kwargs or {})
                self.counts[name] = self.counts.get(name, 0) + 1
                if self.anchors is not None and any(p.numel() and self.anchor_kind(p) != ANCHOR_PARAM
                                                    for p in module.parameters()):
                    self.counts[ANCHOR_LAYER] = self.counts.get(ANCHOR_LAYER, 0) + 1   # weights not the reference's
                    self.lines.setdefault(ANCHOR_LAYER, _answer_line())
                self.lines.setdefault(name, _answer_line())
                macs = _layer_macs(module, call["args"])
                if self.anchors is not None and macs is not None:
                    self.add_root_macs(self.counts, [(self.root_key(id(p)), m) for p, m in
                                                     _layer_weight_macs(module, call["args"])])
                key = LIBRARY_MACS if macs is not None else LIBRARY_MACS_UNKNOWN
                self.counts[key] = self.counts.get(key, 0) + (macs if macs is not None else 1)
                k = _layer_min_k(module, call["args"])
                if k:
                    key = f"{GEMM_K}{k.bit_length()}"
                    self.counts[key] = self.counts.get(key, 0) + 1
                return
            for name, n in call["counts"].items():   # not the library's call: its ops are the answer's
                self.counts[name] = self.counts.get(name, 0) + n
            for name, line in call["lines"].items():
                self.lines.setdefault(name, line)

        def launched(self, args, kwargs):
            """A Triton launch was given these arguments: a GEMM output among them may now hold anything."""
            tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
            if self.proj and self.prints:   # what it writes is a projection if it is given one (after_launch)
                kinds = [self.match(a)[0] for a in tensors]
                self.pending = [a for a, k in zip(tensors, kinds) if k in (None, ANCHOR_PROJ, ANCHOR_OWN)] \
                    if ANCHOR_PROJ in kinds else []
            for a in list(args) + list(kwargs.values()):
                if isinstance(a, torch.Tensor):
                    self.gemm_outs.pop(_storage_ptr(a), None)
                    # a kernel may write anywhere in the storage it is given: a parameter (or a copy) holds the
                    # reference's values only while its print says so (match checks it again after a launch), and
                    # one without a print is dropped. A print kept matters where weights share one storage: cuDNN
                    # flattens an LSTM's weights into one buffer on CUDA, and a kernel given a bias of layer 0
                    # would otherwise unmake layer 1's weights. The inputs' own check (unchanged after the forward)
                    # covers inputs, and a projection's print, checked where a GEMM takes it, covers projections
                    # (a kernel that reads q to scale it into a buffer of its own leaves q a projection); a
                    # constant of the answer's given to a kernel is a workspace now, which holds what the kernel
                    # wrote (after_launch)
                    if self.anchors is not None and _storage_ptr(a) in self.anchors:
                        self.anchors[_storage_ptr(a)] = [e for e in self.anchors[_storage_ptr(a)]
                                                         if not (e[2] == ANCHOR_OWN or
                                                                 e[2] == ANCHOR_PARAM and e[4] is None)]
            self.last_gemm = None

        def after_launch(self):
            """The launch noted by `launched` has run: the arguments it may have written (neither the reference's
            weights nor the inputs) hold projections if it was given one, with their values now."""
            for a in self.pending:
                _add_anchor(torch, self.anchors, a, ANCHOR_PROJ, self.print_of(a))
            self.pending = []

        def varies(self, ops):
            """Whether each of a lent call's operands differs from the same call's (by its place among this
            forward's lent calls) in every earlier recorded forward on other inputs (up to 8 kept), in direction
            (_same_direction, over a sample of LENT_SAMPLES values): attention's q, k, v and softmax change with the inputs; a matrix of the
            answer's (a ones column, LayerNorm's centring), even one written by a kernel it handed q to, or scaled
            by a count of its calls, stays the same. The faithfulness trial (launches suppressed) takes no part."""
            if not self.prints or self.poison:
                return True
            place = self.lent_place
            self.lent_place += 1
            with _python_dispatch._disable_current_modes():
                samples = []
                for a in ops:
                    if a.is_floating_point():
                        flat = a.detach().reshape(-1)
                        at = torch.arange(LENT_SAMPLES, device=flat.device) * 2654435761 % max(1, flat.numel())
                        samples.append(flat[at].double().cpu() if flat.numel() else None)
            earlier = _Launches.lent_samples.setdefault(place, [])
            same = any(_same_direction(a, b) for seen, before in earlier if seen != self.inputs_seen
                       for a, b in zip(samples, before))
            if len(earlier) < 8:
                earlier.append((self.inputs_seen, samples))
            return not same

        def anchor_kind(self, t, whole=True):
            """ANCHOR_PARAM or ANCHOR_INPUT if tensor `t` lies within memory anchored so (a parameter's if both
            hold), else None; the model's parameters it derives from join `used` (the reference's GEMM weights,
            _anchor_prints)."""
            kind, roots = self.match(t, whole)
            if kind == ANCHOR_PARAM:
                self.used.update((id(r), r) for r in roots)
            return kind

        def match(self, t, whole=True):
            """(kind, the model's parameters behind it) of the anchored memory holding all of `t`: ANCHOR_PARAM
            over ANCHOR_INPUT over ANCHOR_PROJ over ANCHOR_OWN where several hold it."""
            ptr = _storage_ptr(t)
            # a view reading one element twice (a zero stride: one weight made a ones kernel) is not the
            # parameter; a GEMM operand may broadcast along leading (batch) dimensions (whole=False), a
            # convolution's weight nowhere (its leading dimensions are channels)
            if not ptr or ptr not in self.anchors or \
                    not _non_overlapping(t if whole else t[(0,) * max(0, t.dim() - 2)]):
                return None, []
            start, end = _byte_span(t)
            kinds, roots, stale = set(), [], []
            for entry in self.anchors[ptr]:
                s, e, kind, ref, pr, seen, behind = entry
                held = ref()
                if not (s <= start and end <= e) or held is None or _storage_ptr(held) != ptr:
                    continue
                if _byte_span(held) != (s, e) or not _non_overlapping(held):
                    # moved within its storage (param.data = ..., vector_to_parameters) or made to read some of
                    # it twice: its print now speaks for other memory than the span it anchors
                    stale.append(entry)
                    continue
                if pr is not None and seen != _Launches.count:
                    with _python_dispatch._disable_current_modes():   # the judge's own ops: not the answer's
                        now = _value_print(torch, held, self.prints[0])
                    if now != pr:   # written since, by a kernel: gone for good
                        stale.append(entry)
                        continue
                    entry[5] = _Launches.count
                kinds.add(kind)
                if kind == ANCHOR_PARAM:
                    roots += behind
            if stale:
                self.anchors[ptr] = [x for x in self.anchors[ptr] if not any(x is y for y in stale)]
            first = next((k for k in (ANCHOR_PARAM, ANCHOR_INPUT, ANCHOR_PROJ, ANCHOR_OWN) if k in kinds), None)
            return first, roots

        def anchor_of(self, name, args):
            """ANCHOR_PARAM, ANCHOR_INPUT, ANCHOR_NONE_PROJ (an operand holds a projection, ANCHOR_PROJ) or
            ANCHOR_NONE: what a GEMM's or convolution's operands hold (a GEMM's accumulate operand and a
            convolution's bias aside)."""
            ops = [a for a in (args[1:3] if name.rstrip("_") in ACCUMULATING else args[:2])
                   if isinstance(a, torch.Tensor)]
            conv = op_family(name) in ("conv", "conv_t")
            kinds, self.op_roots, self.op_views = set(), [], set()
            for a in ops:
                kind, roots = self.match(a, whole=conv or a.dim() <= 2)
                kinds.add(kind)
                if kind == ANCHOR_PARAM:
                    self.used.update((id(r), r) for r in roots)
                    self.op_roots += [(self.root_key(id(r)), r.numel()) for r in roots]
                    self.op_views.add((_storage_ptr(a), a.storage_offset(), tuple(a.shape), tuple(a.stride())))
            self.op_own = ANCHOR_OWN in kinds
            if ANCHOR_PARAM not in kinds and self.prints:
                for a in ops:   # by value: the reference's parameter, rearranged or cast, in memory of its own
                    # (not a constant tensor: zeros would be a zero-initialised bias)
                    pr = tuple(_value_print(torch, a, self.prints[0]) or ()) \
                        if a.numel() in self.print_numels and a.is_floating_point() and not _constant(torch, a) \
                        else ()
                    if pr in self.prints[1]:
                        kinds.add(ANCHOR_PARAM)
                        index = self.prints[1].get(pr)
                        self.op_roots = [(None if index is None else f"{ROOT_MACS}{index}", 1)]
                        break
            for k in (ANCHOR_PARAM, ANCHOR_INPUT):
                if k in kinds:
                    return k
            return ANCHOR_NONE_PROJ if ANCHOR_PROJ in kinds and self.varies(ops) else ANCHOR_NONE

        def carry_anchor(self, name, args, out, spans):
            """After an op: a copy, cast, concatenation or rearrangement of anchored tensors only is anchored too
            (a parameter's if one of them is); memory any other op wrote (`spans`, forget's) is not (a copy into
            part of a buffer leaves the rest of it the answer's)."""
            if name in ANCHOR_COPIES:
                srcs = [a for a in (list(args[0]) if args and isinstance(args[0], (list, tuple)) else
                                    args[1:2] if name == "copy_" else args[:1]) if isinstance(a, torch.Tensor)]
                found = [self.match(a) for a in srcs]
                kinds = [k for k, _ in found]
                outs = [o for o in (out if isinstance(out, (list, tuple)) else [out]) if isinstance(o, torch.Tensor)]
                if sum(a.numel() for a in srcs) != sum(o.numel() for o in outs):   # a broadcasting copy_ repeats
                    kinds = [None]                                                 # its source: a constant
                if srcs and all(kinds) and (name != "copy_" or all(
                        _storage_ptr(o) is not None and o.layout == torch.strided
                        and o.numel() * o.element_size() == o.untyped_storage().nbytes() for o in outs)):
                    kind = ANCHOR_PARAM if all(k == ANCHOR_PARAM for k in kinds) else ANCHOR_OWN \
                        if ANCHOR_OWN in kinds else ANCHOR_PROJ if ANCHOR_PROJ in kinds else ANCHOR_INPUT
                    self.forget(spans)   # what the memory held before is gone
                    for o in outs:   # a copy holds floating values (a bool cast of a weight, or of torch.rand's
                        if not o.is_floating_point() or not all(a.is_floating_point() for a in srcs):   # input,
                            continue                                                               # is ones
                        _add_anchor(torch, self.anchors, o, kind, self.print_of(o),
                                    [r for _, rs in found for r in rs])
                    return
            self.forget(spans)

        def forget(self, spans):
            """After an op wrote `spans` (storage, start byte, end byte): the anchors it overlaps are dropped, those
            with a print kept but checked again by value where next matched (an exact keyed checksum: the same
            values are the same weight); the rest of the storage keeps its own. Both matter where weights share
            one storage: cuDNN flattens an LSTM's weights into one buffer, and the Triton interpreter copies all
            of a storage it was given back after the kernel."""
            for ptr, start, end in spans:
                kept = []
                for e in self.anchors.get(ptr, ()):
                    overlaps = e[0] < end and start < e[1]
                    if overlaps and e[4] is None:
                        continue
                    if overlaps:
                        e[5] = None   # match's check against its print runs again
                    kept.append(e)
                if kept:
                    self.anchors[ptr] = kept
                else:
                    self.anchors.pop(ptr, None)

        def root_key(self, ident):
            """The ROOT_MACS key of a parameter (by id): its reference weight's index on the answer's side (None:
            none), its id on the reference's."""
            if self.root_index is None:
                return f"{ROOT_MACS}id{ident}"
            index = self.root_index.get(ident)
            return None if index is None else f"{ROOT_MACS}{index}"

        def add_root_macs(self, counts, pairs):
            """Add `pairs` [(ROOT_MACS key or None, multiply-adds)] into `counts`."""
            for key, macs in pairs:
                if key is not None and macs:
                    counts[key] = counts.get(key, 0) + int(macs)

        def print_of(self, t):
            """The _value_print an anchor keeps (of a copy of a parameter, an input or a projection), to check it
            again where a GEMM takes it after a launch (None on the reference side, which has no key and runs no
            answer's kernel)."""
            if not self.prints:
                return None
            with _python_dispatch._disable_current_modes():
                return _value_print(torch, t, self.prints[0])

        def gemm_output(self, t):
            """Whether `t` lies within the memory a GEMM of this forward wrote (a functional GEMM's output) that
            nothing has written since: no Triton launch was given it, no op wrote its storage (an alias such as
            .data included), its version is the one the GEMM left, and a tensor that holds that storage is alive
            (a freed block may hold another tensor by now)."""
            if not isinstance(t, torch.Tensor) or _version(torch, t) is None:
                return False
            key = _storage_ptr(t)
            entry = self.gemm_outs.get(key)
            if entry is None or _version(torch, t) != entry[1]:
                return False
            if not any(r() is not None and _storage_ptr(r()) == key for r in entry[0]):
                return False
            start, end = _region(t)
            return entry[4] if entry[2] <= start and end <= entry[3] else False

        def split_partner(self, writer):
            """Whether the GEMM running now (its weights: op_roots, op_views) continues the one that wrote its
            accumulate operand (`writer`: its weights, or True where anchors are not recorded) as one product split
            along K: other slices of the same weight, or an RNN layer's input and hidden weights (the reference's
            `partners`). The reference's own side is trusted."""
            if writer is True or self.prints is None:
                return bool(writer)
            if not writer:
                return False
            keys, views = writer
            mine = {k for k, _ in self.op_roots if k is not None}
            if keys & mine and not views & self.op_views:
                return True
            return any(frozenset((a, b)) in self.partners for a in keys for b in mine)

        def remember_gemm(self, out, param=True):
            """Record what a GEMM (or a GEMM and its bias) wrote: {storage: ([weak refs], version, start, end,
            writer)}; writer: True where anchors are not recorded, else the GEMM's weights (their ROOT_MACS keys
            and operand views) if it took the reference's weights with no constant of the answer's, else False.
            Only such a GEMM's output is a split along K's first part (split_partner): an identity of the answer's
            making times the input, accumulated into by the out-projection, would be torch adding the residual."""
            version = _version(torch, out)
            if version is not None:   # an inference tensor tracks no version: never an exemption
                self.gemm_outs[_storage_ptr(out)] = ([weakref.ref(out)], version, *_region(out), param)

        def writer(self, kind):
            """What remember_gemm keeps of the GEMM that just ran (anchor_of's op_roots, op_views, op_own)."""
            if self.anchors is None:
                return True
            if kind != ANCHOR_PARAM or self.op_own:
                return False
            return ({k for k, _ in self.op_roots if k is not None}, frozenset(self.op_views))

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = func.overloadpacket.__name__
            # before the op runs (an in-place accumulate moves its C's version): is C an untouched GEMM output?
            c_writer = name.rstrip("_") in ACCUMULATING and bool(args) and self.gemm_output(args[0])
            bias_add = _bias_add(torch, name, args, kwargs, self.last_gemm)
            schema = func._schema
            written_t = [a for arg, a in zip(schema.arguments, list(args) + [
                kwargs.get(x.name) for x in schema.arguments[len(args):]])
                if arg.alias_info is not None and arg.alias_info.is_write and isinstance(a, torch.Tensor)] \
                if schema.is_mutable else []
            written = [_storage_ptr(a) for a in written_t]
            before = [_byte_span(a) for a in written_t] if self.anchors is not None else []
            out = func(*args, **kwargs)
            if self.anchors is not None:
                # the bytes each write may have touched: the view's span before and after the op (an out= op
                # resizes its output), all of the old storage where the op moved the tensor elsewhere
                spans = []
                for p, t, (s0, e0) in zip(written, written_t, before):
                    s1, e1 = _byte_span(t)
                    spans.append((p, min(s0, s1), max(e0, e1)) if _storage_ptr(t) == p else (p, 0, 1 << 62))
                self.carry_anchor(name, args, out, spans)
            for a in written:   # the storages this op wrote (read before it ran: resize_ and set_ move them)
                self.gemm_outs.pop(a, None)   # no longer what a GEMM left there
                if self.last_gemm is not None and a == self.last_gemm[0] and not bias_add:
                    self.last_gemm = None
            if name in ("_to_copy", "copy_", "to") and _truncates(torch, name, args, out):
                name = FLOAT_TO_INT   # a truncation is a step function: compute, not a copy
            compute = name not in ALLOC_OPS and name not in VIEW_OPS
            if name == "_local_scalar_dense" and _reads_constant(torch, args, out, self.constants):
                compute = False   # a scalar parameter's value, as built: a constant, not the input's
                name = CONSTANT_READ
            if not compute and isinstance(out, torch.Tensor) and args and isinstance(args[0], torch.Tensor):
                entry = self.gemm_outs.get(_storage_ptr(out))   # a view of a GEMM output keeps it alive
                if entry is not None and _storage_ptr(args[0]) == _storage_ptr(out):
                    entry[0].append(weakref.ref(out))
            if compute and bias_add:
                compute = False   # torch's linear on a strided input: a GEMM, then its bias added (its epilogue)
                name = GEMM_BIAS
                self.last_gemm = None
                # GEMM + bias: still a GEMM's output for a split along K, and a projection, where the bias is the
                # reference's (a broadcast constant of the answer's would make a "projection" of its choosing)
                ref_bias = self.anchors is None or any(isinstance(a, torch.Tensor) and
                                                       self.match(a)[0] == ANCHOR_PARAM for a in args[:2])
                if isinstance(out, torch.Tensor):
                    self.remember_gemm(out, self.last_gemm_param if ref_bias else False)
                    if self.proj and self.last_gemm_param and ref_bias:
                        _add_anchor(torch, self.anchors, out, ANCHOR_PROJ, self.print_of(out))
            call = next((f for f in self.layers if f is not None), None)
            if compute and call is not None:   # inside a library call: its own op, unless the call is not plain
                counts, lines = call["counts"], call["lines"]
            else:
                counts, lines = self.counts, self.lines
            counts[name] = counts.get(name, 0) + 1
            fam = op_family(name) if compute else ""
            if compute:
                self.last_gemm = None
            if fam in HYBRID_TORCH_FAMILIES or "attention" in fam:
                kind = self.anchor_of(name, args) if self.anchors is not None and fam in HYBRID_TORCH_FAMILIES \
                    else None
                param = self.writer(kind)
                c_from_gemm = bool(c_writer) and self.split_partner(c_writer)
                if isinstance(out, torch.Tensor) and "out" not in func._overloadname:   # what this GEMM wrote
                    self.remember_gemm(out, param)
                    self.last_gemm = (_storage_ptr(out), out.storage_offset(), out.numel(), out.is_contiguous())
                    self.last_gemm_param = param
                if self.proj and param and isinstance(out, torch.Tensor):   # a projection (q, k, v): what the
                    _add_anchor(torch, self.anchors, out, ANCHOR_PROJ,      # lent calls take (an out= buffer too)
                                self.print_of(out))
                macs = _macs(torch, name, args, out)
                counts[MACS] = counts.get(MACS, 0) + macs
                if kind == ANCHOR_PARAM and self.op_roots:   # split over the weights it took, by their sizes
                    total = sum(n for _, n in self.op_roots) or 1
                    self.add_root_macs(counts, [(key, macs * n // total) for key, n in self.op_roots])
                    for key, _ in self.op_roots:
                        if key is not None and key not in lines:
                            lines[key] = _answer_line()
                for k in ([ANCHOR_NONE, ANCHOR_NONE_PROJ] if kind == ANCHOR_NONE_PROJ else [kind] if kind else []):
                    counts[k] = counts.get(k, 0) + 1
                if kind and kind != ANCHOR_PARAM:   # a call taking no projection is the first suspect
                    lines.setdefault(kind, _answer_line())
                numel = out.numel() if isinstance(out, torch.Tensor) else 0
                if macs and numel:   # the reduction length of each output element, in power-of-two buckets
                    key = f"{GEMM_K}{(macs // numel).bit_length()}"
                    counts[key] = counts.get(key, 0) + 1
                if name.rstrip("_") in ACCUMULATING and (kwargs.get("alpha", 1) != 1
                                                         or kwargs.get("beta", 1) not in (0, 1)):
                    counts[GEMM_SCALE] = counts.get(GEMM_SCALE, 0) + 1   # torch scaling the product or C: a mul
                    lines.setdefault(GEMM_SCALE, _answer_line())
                if _accumulates(torch, name, args, kwargs, out, c_from_gemm):   # beta * C or a conv's bias: an add
                    counts[ACCUMULATE] = counts.get(ACCUMULATE, 0) + 1
                    lines.setdefault(ACCUMULATE, _answer_line())
            if counts[name] == 1 and compute:
                lines[name] = _answer_line()
            if _Launches.depth == 0:
                if self.poison and name in POISON_OPS and isinstance(out, torch.Tensor):
                    _poison(torch, out)
                if self.watch is not None and compute:
                    self.watch.record(name, out)
            return out

    return OpRecorder


def _scalar_constants(torch, model):
    """{storage pointer: value} of the model's one-element parameters and buffers as built (the answer process
    after ModelNew(...).to(device)): reading one of them into Python is not host compute (_reads_constant)."""
    out = {}
    if isinstance(model, torch.nn.Module):
        with torch.no_grad():
            for t in list(model.parameters()) + list(model.buffers()):
                if t.numel() == 1 and type(t) in (torch.Tensor, torch.nn.Parameter):
                    out[_storage_ptr(t)] = t.item()
    return out


def _reads_constant(torch, args, value, constants):
    """Whether a read of a one-element tensor into Python (`value`) reads a scalar parameter or buffer of the model
    holding its value as built: its storage one of `constants`, its value the same (a kernel that wrote a
    computed value into it gives another value, and is host compute)."""
    t = args[0] if args else None
    if not isinstance(t, torch.Tensor) or t.numel() != 1 or _storage_ptr(t) not in constants:
        return False
    v = constants[_storage_ptr(t)]
    return value == v or (value != value and v != v)


def _value_print(torch, t, key):
    """(numel, dtype, keyed checksum) of a tensor's values in logical order (_fingerprint of a contiguous copy):
    the same for a parameter and its channels-last or other-strided copy, not for a transposed one."""
    c = t.detach().contiguous()
    fp = _fingerprint(torch, c, key)
    return None if fp is None else [c.numel(), str(c.dtype), fp[-1]]


def _same_direction(a, b):
    """Whether two samples (OpRecorder.varies) are the same up to a scale and sign: their unit vectors within
    LENT_VARY of each other (or of each other's negation); zeros are the same as anything."""
    if a is None or b is None or a.shape != b.shape:
        return False
    na, nb = float(a.norm()), float(b.norm())
    if na == 0 or nb == 0:
        return True
    ua, ub = a / na, b / nb
    return min(float((ua - ub).norm()), float((ua + ub).norm())) < LENT_VARY


def _constant(torch, t):
    """Whether every element of a tensor holds one value (the judge's own read, outside the recorder)."""
    with torch.utils._python_dispatch._disable_current_modes():
        flat = t.detach().reshape(-1)
        return flat.numel() > 1 and bool((flat == flat[0]).all())


def _byte_span(t):
    """[start, end) of the bytes of its storage that a strided tensor spans (_region, in bytes)."""
    start, end = _region(t)
    return start * t.element_size(), end * t.element_size()


def _add_anchor(torch, anchors, t, kind, pr=None, roots=None):
    """Anchor the span of storage a tensor fills (OpRecorder.anchors), where it fills it densely: a parameter
    that is a view with gaps (every other column of a buffer) leaves the gaps the answer's own. An empty tensor
    (storage pointer 0, which all empty storages share) or one without storage anchors nothing. The entry holds
    a weak reference to the tensor (memory whose tensor died may hold another by now) and, for a parameter's,
    its _value_print `pr`, checked again where it is used after a Triton launch (a kernel can write memory it
    was not given, through an address it computed), and the model's parameters it holds values of (`roots`: a
    copy's are its sources'; a parameter is its own)."""
    ptr = _storage_ptr(t)
    if ptr and t.layout == torch.strided and t.numel():
        start, end = _region(t)
        if end - start == t.numel():
            entry = [*_byte_span(t), kind, weakref.ref(t), pr, _Launches.count,
                     [t] if roots is None and kind == ANCHOR_PARAM else roots or []]
            entries = anchors.setdefault(ptr, [])
            # the same memory anchored again (a buffer a kernel rewrites each step): one entry, the newest
            entries[:] = [x for x in entries if x[:3] != entry[:3]] + [entry]


def _anchor_prints(torch, tensors, key):
    """The _value_print of each floating tensor of the reference model given (the parameters its own GEMMs and
    convolutions take, and its library layers': not a norm's weight of ones, which would make any GEMM a sum), in
    float32, float16 and bfloat16 (an answer may keep a cast of it) and, for a matrix, transposed too: what an
    answer's parameter must match to count as the reference's (OpRecorder.anchors). Also each print's weight
    index (a weight whose values another's forms repeat, as two zero biases, takes that one's index) and {id of
    tensor: index}: the keys of the per-weight budget (ROOT_MACS)."""
    prints, seen, ids, n_weights = [], {}, {}, 0
    with torch.no_grad():
        for t in tensors:
            if not t.is_floating_point() or t.layout != torch.strided or id(t) in ids:
                continue
            forms = [_value_print(torch, form.to(dtype), key) for dtype in (torch.float32, torch.float16,
                                                                              torch.bfloat16)
                     for form in ([t, t.t()] if t.dim() == 2 else [t])]
            forms = [tuple(p) for p in forms if p is not None]
            index = next((seen[p] for p in forms if p in seen), n_weights)
            n_weights += index == n_weights
            ids[id(t)] = index
            for p in forms:
                if p not in seen:   # a dict: thousands of tensors in level 3
                    seen[p] = index
                    prints.append([*p, index])
    return prints, ids


def _model_anchors(torch, model, key=None, prints=None, anchors=None, ids=None):
    """`anchors` (OpRecorder.anchors; a new dict if None) with ANCHOR_PARAM added for the model's parameters
    and buffers that hold the reference's values: all of them on the reference side (no key), on the answer's
    those whose _value_print under `key` is one of the reference's `prints` (a set of tuples)."""
    out = {} if anchors is None else anchors
    numels = {p[0] for p in prints} if key is not None else set()   # a checksum only where one could match
    if isinstance(model, torch.nn.Module):
        with torch.no_grad():
            for t in itertools.chain(model.parameters(), model.buffers()):
                if key is None:
                    _add_anchor(torch, out, t, ANCHOR_PARAM)
                elif t.is_floating_point() and t.layout == torch.strided:
                    pr = _value_print(torch, t, key) if t.numel() in numels else None
                    if tuple(pr or ()) in prints:
                        _add_anchor(torch, out, t, ANCHOR_PARAM, pr)
                        if ids is not None:   # which reference weight it holds (OpRecorder.root_index)
                            ids[id(t)] = tuple(pr)
                    else:   # the answer's own constant (ANCHOR_OWN)
                        _add_anchor(torch, out, t, ANCHOR_OWN)
    return out


def _non_overlapping(t):
    """Whether no two elements of a strided view share memory (no zero or overlapping strides)."""
    span = 1
    for stride, n in sorted((abs(st), n) for n, st in zip(t.shape, t.stride()) if n > 1):
        if stride < span:
            return False
        span = stride * n
    return True


def _call_signature(torch, args, kwargs):
    """A library layer call's tensor arguments (positional ones, those in tuples, and keyword ones: masks,
    states), each by its sizes (in any order: batch_first is a layout) and the earlier argument it is, if the same
    view: the reference's layer is the answer's to call only as the reference calls it (a mask, more keys or a
    crafted state made the reference's own attention compute a norm's statistics)."""
    flat = []
    for i, a in enumerate(args):
        flat += [(f"{i}.{j}", x) for j, x in enumerate(a)] if isinstance(a, (tuple, list)) else [(str(i), a)]
    flat += sorted((k, v) for k, v in kwargs.items() if isinstance(v, torch.Tensor))
    parts, seen = [], {}
    for name, x in flat:
        if isinstance(x, torch.Tensor):
            ident = (_storage_ptr(x), x.storage_offset(), tuple(x.shape), x.stride())
            first = seen.setdefault(ident, name)
            parts.append(f"{name}:{'x'.join(map(str, sorted(x.shape)))}" + (f"={first}" if first != name else ""))
    return "[" + ",".join(parts) + "]"


def _input_anchors(torch, inputs, anchors=None, key=None, prints=None):
    """`anchors` (a new dict if None) with ANCHOR_INPUT added for the forward's input tensors; with a `key` (the
    answer's side), each with its _value_print, checked again where a GEMM takes it after a launch (a kernel can
    write an input, or a copy of one, and restore it before the forward ends)."""
    out = {} if anchors is None else anchors
    for x in inputs:
        if isinstance(x, torch.Tensor):
            pr = _value_print(torch, x, key) if key is not None and x.is_floating_point() else None
            _add_anchor(torch, out, x, ANCHOR_INPUT, pr)
            if prints is not None:   # which inputs this forward ran on (OpRecorder.varies)
                prints.append(tuple(pr or ()))
    return out


FINGERPRINT_CHUNK = 1 << 24   # elements a _fingerprint reads at a time (its temporaries: 3 int64 chunks)


def _fingerprint(torch, x, key):
    """A keyed checksum of a dense contiguous tensor's bits, with its shape, strides, offset, dtype and data
    pointer: the sum, mod 2^64, of each element's bits (as an integer) times an odd weight drawn from `key` (a
    seed the answer never sees). An odd number is invertible mod 2^64, so one changed element always shows
    (a float64's sign bit too); several changes cancel only by knowing the weights. Lets a trial check its inputs unchanged without a copy of them (an 8 GB input held
    twice). None where it does not apply (not contiguous, complex, another layout): the caller keeps a copy."""
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    if x.layout != torch.strided or x.is_complex() or not x.is_contiguous() or x.element_size() not in ints:
        return None
    try:
        bits = x.detach().reshape(-1).view(ints[x.element_size()])
    except (RuntimeError, TypeError):
        return None
    g = torch.Generator(device=x.device)
    g.manual_seed(key)
    acc = torch.zeros((), dtype=torch.int64, device=x.device)
    for a in range(0, bits.numel(), FINGERPRINT_CHUNK):
        c = bits[a:a + FINGERPRINT_CHUNK].to(torch.int64, copy=True)
        w = torch.randint(-(1 << 62), 1 << 62, c.shape, generator=g, device=x.device, dtype=torch.int64)
        acc += c.mul_(w.bitwise_or_(1)).sum()
        # the weights (and the products, which give them back) are zeroed before their memory is freed: an
        # answer's kernel in this process could read freed memory, and the weights let it balance a change
        w.zero_()
        c.zero_()
    return tuple(x.shape), x.stride(), x.storage_offset(), x.dtype, x.data_ptr(), int(acc)


def _same_values(torch, a, b):
    """Whether tensor `a` still holds `b`'s values (NaN where `b` has NaN: torch.equal never holds there)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if torch.equal(a, b):
        return True
    return a.is_floating_point() and bool(((a == b) | (a.isnan() & b.isnan())).all())


def _version(torch, t):
    """A tensor's version counter, or None for an inference tensor (torch.inference_mode: it tracks none)."""
    return None if torch.is_inference(t) else t._version


def _storage_ptr(t):
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return None


def _region(t):
    """[start, end) of the storage elements a tensor view spans."""
    extent = 1 + sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()) if n > 0) if t.numel() else 0
    return t.storage_offset(), t.storage_offset() + extent


def _broadcast_bias(torch, c, out, along=None):
    """Whether `c`, broadcast to `out`'s shape, is a bias: it varies along one dim at most, one of `along` (dims
    of `out`; default its last two: rows or columns of a GEMM's output), and is shared along another dim of size
    > 1 (so each of its values is added to several outputs; a C of the output's own size, however its dims are
    arranged, is a residual)."""
    try:
        e = c.expand(out.shape)
    except RuntimeError:
        return False
    along = {out.dim() - 1, out.dim() - 2} if along is None else set(along)
    varying = [d for d in range(out.dim()) if out.shape[d] > 1 and e.stride(d) != 0]
    shared = [d for d in range(out.dim()) if out.shape[d] > 1 and e.stride(d) == 0]
    return len(varying) <= 1 and set(varying) <= along and bool(shared)


def _bias_add(torch, name, args, kwargs, last_gemm):
    """Whether an add adds a bias to the output of the GEMM that just ran (`last_gemm`: its storage, offset, size
    and contiguity): torch's linear on a non-contiguous input runs a GEMM, reshapes it, then adds the bias. The
    tensor added to must span exactly that output, the bias broadcast over it (_broadcast_bias), alpha 1."""
    if name not in ("add", "add_") or last_gemm is None or len(args) < 2 or kwargs.get("alpha", 1) != 1:
        return False
    ptr, offset, numel, contiguous = last_gemm

    def spans(x):
        return isinstance(x, torch.Tensor) and (_storage_ptr(x), x.storage_offset(), x.numel()) == \
            (ptr, offset, numel) and contiguous and x.is_contiguous()
    for x, b in ((args[0], args[1]), (args[1], args[0]) if name == "add" else (None, None)):
        if spans(x) and isinstance(b, torch.Tensor) and _broadcast_bias(torch, b, x, along=[x.dim() - 1]):
            return True
    return False


def _accumulates(torch, name, args, kwargs, out, c_from_gemm=False):
    """Whether a GEMM or convolution added something elementwise for free: a GEMM's accumulate operand (addmm,
    baddbmm, addbmm: beta * C + A @ B; addmv: beta * c + A @ v) or a convolution's bias that is not a bias
    broadcast over the output (_broadcast_bias: for a GEMM along its rows or columns, for a GEMV a scalar, for a
    convolution per channel and shared by several positions), unless C is what an earlier GEMM of this forward
    wrote and nothing wrote since (`c_from_gemm`: one GEMM split along K, as a hand-written LSTM adds h @ W_hh
    into its precomputed input projection). A residual added inside the GEMM is elementwise work (ACCUMULATE)."""
    op = name.rstrip("_")
    if not isinstance(out, torch.Tensor) or not args:
        return False
    if op_family(name) in ("conv", "conv_t"):
        bias = args[2] if len(args) > 2 else kwargs.get("bias")
        if not isinstance(bias, torch.Tensor) or out.dim() < 2 or bias.numel() != out.shape[1]:
            return isinstance(bias, torch.Tensor)
        return not _broadcast_bias(torch, bias.reshape([1, -1] + [1] * (out.dim() - 2)), out, along=[1])
    if op not in ACCUMULATING or kwargs.get("beta", 1) == 0 or not isinstance(args[0], torch.Tensor):
        return False
    return not _broadcast_bias(torch, args[0], out) and not c_from_gemm


def _truncates(torch, name, args, out):
    """Whether a copy op turned floating values into integers (the source floating, the result not)."""
    src = args[1] if name == "copy_" and len(args) > 1 else args[0] if args else None
    dst = args[0] if name == "copy_" and args else out
    return isinstance(src, torch.Tensor) and isinstance(dst, torch.Tensor) and src.is_floating_point() and \
        not dst.is_floating_point() and dst.dtype != torch.bool


def _layer_config(module):
    """A library layer's configuration, as part of its family name: a call counts against the reference's calls
    of the same configuration only (an extra layer stacked on the reference's could compute its epilogue)."""
    keys = ("input_size", "hidden_size", "num_layers", "bias", "bidirectional", "proj_size",   # not batch_first:
            "nonlinearity", "embed_dim", "num_heads", "kdim", "vdim")                          # a layout only
    vals = [f"{k}={getattr(module, k)!r}" for k in keys if isinstance(getattr(module, k, None), (bool, int, str))]
    return "(" + ",".join(vals) + ")"


def _call_kwargs(module):
    """The keyword arguments of the module call running now (torch's global forward pre-hooks are not given
    them): read from the frame of Module._call_impl that calls the hooks ({} where none is found; the recorder
    checks them again as the call returns). A mutable argument the answer's code could change inside the layer
    must be seen as it enters."""
    import torch.nn.modules.module as torch_module
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename == torch_module.__file__ and "kwargs" in f.f_code.co_varnames + \
                f.f_code.co_freevars + f.f_code.co_cellvars and f.f_locals.get("self") is module:
            kwargs = f.f_locals.get("kwargs")
            return kwargs if isinstance(kwargs, dict) else {}
        f = f.f_back
    return {}


def _plain_layer(torch, module, args, pristine):
    """Whether a library layer's call runs only torch's code (its keyword arguments are checked as the call
    returns: the recorder's layer_exit). The layer and every module it holds (attention's out_proj) are of
    classes exactly as torch made them (`pristine`: {class: its vars}), with no hooks of their own and no instance
    attribute shadowing a class attribute (`lstm.forward = f`, `lstm.check_forward_args = f`); every value the
    layer holds or is given is plain (_plain_values): an object of the answer's as an attribute or an argument
    (torch calls hx[0].dim()), a subclass's dim() or size(), or a property of a replaced submodule would run the
    answer's code inside the layer, where no op is counted."""
    return _plain_values(torch, [module, *args], pristine)


def _plain_values(torch, values, pristine):
    """Whether `values` hold only None, numbers, strings, dtypes, devices, exact tensors and Parameters, tuples,
    lists, dicts, sets, packed sequences and weak references of these, and modules of the `pristine` classes
    (unchanged, with no hooks and no instance attribute shadowing a class attribute) holding the same."""
    from torch.nn.utils.rnn import PackedSequence
    plain = (type(None), bool, int, float, complex, str, torch.dtype, torch.device, torch.Tensor,
             torch.nn.Parameter)
    seen, stack = set(), list(values)
    while stack:
        v = stack.pop()
        t = type(v)
        if t in plain or id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, torch.nn.Module):
            if t not in pristine or any(vars(c) != pristine.get(c) for c in t.__mro__ if c is not object):
                return False
            if v._forward_pre_hooks or v._forward_hooks or any(hasattr(t, k) for k in vars(v)):
                return False
            stack.extend(vars(v).values())
        elif t in (list, tuple, set, frozenset, PackedSequence):
            stack.extend(v)
        elif t in (dict, collections.OrderedDict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif t is weakref.ReferenceType:
            stack.append(v())
        else:
            return False
    return True


def _answer_line():
    """ "line N: source" of the innermost frame of the answer's file on the stack now ("" if none)."""
    import traceback
    for fr in reversed(traceback.extract_stack(limit=40)):
        if os.path.basename(fr.filename) == ANSWER_FILE:
            return f"line {fr.lineno}: {(fr.line or '').strip()[:80]}"
    return ""


def _warm_up(torch, triton, device, OpRecorder):
    """One tiny kernel through the launcher and the dispatch mode: first use replaces some torch attributes
    (e.g. torch.manual_seed), so the identity snapshot is taken after it. The gate's lazily imported submodules
    too (GATE_LAZY_MODULES): an answer runs with what the gate resolved."""
    import triton.language as tl
    _import_lazy_modules()

    @triton.jit
    def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    x = torch.randn(8, device=device)
    y = torch.empty_like(x)
    with OpRecorder():
        _copy[(1,)](x, y, 8, BLOCK=8)
    torch.manual_seed(0)
    if device == "cuda":
        torch.cuda.synchronize()


def _snapshot(torch):
    """Identities of what a patch would replace: torch, torch.Tensor, torch.cuda, time, builtins, torch.testing,
    torch.nn.functional, the Triton launchers and this module's functions."""
    import builtins
    from triton.runtime.jit import JITFunction
    from triton.runtime.interpreter import InterpretedFunction
    spaces = {"torch": torch, "torch.Tensor": torch.Tensor, "torch.cuda": torch.cuda, "time": time,
              "builtins": builtins, "torch.testing": torch.testing, "JITFunction": JITFunction,
              "InterpretedFunction": InterpretedFunction, "torch.nn.functional": torch.nn.functional,
              "torch.nn.Module": torch.nn.Module, "torch.nn.Linear": torch.nn.Linear,
              "judge": sys.modules[__name__]}
    return {(space, k): v for space, obj in spaces.items() for k, v in list(vars(obj).items())
            if callable(v) and not isinstance(v, type(sys))}, spaces


class _AnswerProcess:
    """The worker's handle on one answer process: forked from the hatch, fed requests, read back, killed and
    reaped at the end (close). Never reused for another answer."""

    def __init__(self, worker, lock=True):
        """lock False: the answer process starts without taking the GPU lock (its worker holds it exclusive)."""
        self.w, self.torch = worker, worker.torch
        self.dir = os.path.join(os.getcwd(), f"answer-{os.urandom(6).hex()}")
        job_r, self.job_w = os.pipe()
        self.res_r, res_w = os.pipe()
        self.shm_fd, self.shm_map = _output_shm(), None
        import socket
        try:
            socket.send_fds(worker.hatch, [json.dumps({"op": "fork", "dir": self.dir,
                                                        "threads": torch_threads(worker.torch),
                                                        "lock": worker.lock_where() if lock else None}).encode()],
                            [job_r, res_w] + ([self.shm_fd] if self.shm_fd is not None else []))
            reply = json.loads(worker.hatch.recv(1 << 16) or b"{}")
        except OSError as e:  # the hatch died (its worker's judge_error says so; the worker is replaced)
            reply = {"why": f"the answer hatch is gone ({e})"}
        finally:
            os.close(job_r)
            os.close(res_w)
        self.pid = reply.get("pid")
        if self.pid is None:
            for fd in self.own_fds():
                os.close(fd)
            raise _WorkerError("judge_error", f"no answer process: {reply.get('why', 'the hatch is gone')}")
        self.closed = False

    def own_fds(self):
        """The worker's ends of this answer process's pipes, and its output file where it has one."""
        return (self.job_w, self.res_r) + ((self.shm_fd,) if self.shm_fd is not None else ())

    def outputs_room(self, nbytes):
        """The size of the output file to announce for a reply of about `nbytes` of outputs: grown (and its
        memory committed, so a write into it cannot fault for want of memory) where it is smaller, mapped here;
        0 (the outputs stream through the pipe) for small replies, without a file, or where it cannot grow."""
        if self.shm_fd is None or nbytes < SHM_MIN_BYTES:
            return 0
        size = -(-int(nbytes) // (1 << 20)) * (1 << 20) + (1 << 20)  # whole MBs, with room for the 64-byte steps
        if self.shm_map is None or len(self.shm_map) < size:
            import mmap
            import resource
            soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)  # the worker's file-size cap is for files
            try:
                resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
                os.posix_fallocate(self.shm_fd, 0, size)
            except (OSError, ValueError):
                return len(self.shm_map) if self.shm_map is not None else 0
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            # the old mapping is dropped, not closed: a view of it (an exception's frame) may still hold it
            try:
                self.shm_map = mmap.mmap(self.shm_fd, size)
            except (OSError, ValueError):  # no address space (a CPU worker's rlimit): the pipe, from now on
                self.shm_map, self.shm_fd = None, os.close(self.shm_fd)
                return 0
        return len(self.shm_map)

    def ask(self, msg, expect=None, device=None, drain=False, out_bytes=0):
        """Send one request; (header, tensors) back. An error reply becomes a _WorkerError; a process that died
        becomes worker_crashed (killed by a signal) or answer_died (it exited: the answer's doing, not the judge's;
        worker_died is kept for a worker that vanished). out_bytes: about how many bytes of outputs the reply
        carries (they come through the output file where that is large: outputs_room)."""
        if self.closed:  # its descriptors' numbers may belong to other files by now
            raise _WorkerError("answer_died", "the answer process was closed after an earlier reply")
        room = self.outputs_room(out_bytes)
        shm = self.shm_map if room else None
        try:
            _send(self.job_w, dict(msg, shm=room))
            header = _recv_blocking(self.res_r)
        except OSError:
            header = None
        if header is None:
            rc = self.close()
            if rc is not None and rc < 0:
                name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
                raise _WorkerError("worker_crashed", f"answer process killed by signal {name}")
            raise _WorkerError("answer_died", f"answer process exited with code {rc}")  # the answer's doing
        self.w.printed_chars = header.get("printed_chars", 0)
        if header.get("type") == "error":
            error_type, text = header.get("error_type") or "runtime_error", header.get("msg", "")
            if error_type == "oom":  # the cap it ran into, in the words of the job's caps
                text = f"{text}; {self.w.cap_text(RuntimeError(text))}"
            flags = [error_type] if error_type == "patched_critical" else []
            raise _WorkerError(error_type, text, **({"flags": flags} if flags else {}))
        wrong = _meta_mismatch(header.get("tensors") or [], expect) if expect is not None else None
        if wrong:  # the verdict is final (its bytes are not read and the process goes), unless `drain`
            if drain:
                try:
                    _recv_tensors(self.res_r, header, self.torch, "cpu", shm)
                except (ValueError, EOFError, OSError, TypeError, OverflowError):
                    self.close()
            else:
                self.close()
            raise _WorkerError(*wrong)
        try:
            tensors = _recv_tensors(self.res_r, header, self.torch, device or self.w.device, shm)
        except (ValueError, EOFError, OSError, TypeError, OverflowError) as e:
            self.close()
            raise _WorkerError("protocol_error", f"answer process output unreadable: {e}") from None
        timings = getattr(self.w, "timings", None)
        if isinstance(timings, dict) and header.get("tensors"):  # the verdict says how its outputs came back
            for m in header["tensors"]:
                key = "outputs_file_mb" if "at" in m else "outputs_pipe_mb"
                timings[key] = round(timings.get(key, 0.0) + m["nbytes"] / (1 << 20), 3)
        return header, tensors

    def close(self):
        """Kill and reap the answer process (once); its exit code, Popen's convention."""
        if self.closed:
            return self.rc
        self.closed = True
        self.shm_map = None   # unmapped with its last view (an exception's frame may hold one)
        for fd in self.own_fds():
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        try:
            self.w.hatch.send(json.dumps({"op": "wait", "pid": self.pid}).encode())
            self.rc = json.loads(self.w.hatch.recv(1 << 16) or b"{}").get("rc")
        except OSError:
            self.rc = None
        shutil.rmtree(self.dir, ignore_errors=True)
        return self.rc


def _meta_mismatch(metas, expect):
    """(error_type, message) where the announced output tensors differ from the expected (shape, dtype) list in
    shape or dtype (their number is checked by the caller), else None."""
    for k, (m, (shape, dtype)) in enumerate(zip(metas, expect)):
        if tuple(m.get("shape", ())) != tuple(shape):
            return "shape_mismatch", f"output {k}: shape {tuple(m.get('shape', ()))} != {tuple(shape)}"
        if m.get("dtype") != str(dtype).replace("torch.", ""):
            return "dtype_mismatch", f"output {k}: dtype torch.{m.get('dtype')} != {dtype}"
    return None


def torch_threads(torch):
    return torch.get_num_threads()


class _Worker:
    """The reference side and the comparator of one worker process: it computes reference outputs (and, on the
    GPU, reference timings), has each answer run in an answer process of its own (_AnswerProcess), and compares
    what comes back. It never imports answer code, so it may serve many answers."""

    def __init__(self, torch, triton, device, fd_out, hatch):
        self.torch, self.triton, self.device, self.fd_out = torch, triton, device, fd_out
        self.hatch = hatch  # control socket of the answer hatch (_start_answer_hatch)
        self.ref_peak = 0  # the current job's reference forwards' GPU peak (answer_gpu_cap_gb)
        self.spare = None  # an answer process forked ahead of the next job (start_spare)
        self.tasks = {}    # sha256 of task source -> cached reference (LRU by insertion)
        self.last_import = None  # (sha256 of task source, its module): import_task
        self.n_candidates = 0
        self.printed_chars = 0
        self._gpu_lock = None  # _GpuLock, made on first CUDA job (needs the device's uuid)
        self._gpu_cap_gb = None  # the GPU cap now set (cap_gpu_memory)
        self.caps = {}  # the running job's caps in words, for oom messages (Judge._caps)
        self._paused = 0  # depth of judge_time
        # Importing torch._dynamo rebinds torch.manual_seed (a dynamo-disabled wrapper), and the first
        # torch.compile (the compile baselines, compiled here) wraps nn.Module.__init__ and __setstate__ (dynamo's
        # mutation guard; idempotent): both before the snapshot, or the tripwire takes the worker's own compile
        # for an answer's patch, and before the recorder's copy of the library layers' classes (nn.Module among
        # them), or the reference's LSTM stops being a library layer
        import torch._dynamo  # noqa: F401
        from torch._dynamo.mutation_guard import install_generation_tagging_init
        install_generation_tagging_init()
        self.OpRecorder = _op_recorder_class(torch)
        _warm_up(torch, triton, device, self.OpRecorder)
        self.critical = _snapshot(torch)
        self.isclose, self.equal = torch.isclose, torch.equal

    def _patched(self):
        snap, spaces = self.critical
        return sorted(f"{s}.{k}" for (s, k), v in snap.items() if vars(spaces[s]).get(k) is not v)

    # --- one job -------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def judge_time(self, job):
        """The judge's own time (a GPU lock wait, the reference, a baseline's compile, an answer process's
        start-up): the Judge stops the candidate's clock meanwhile. Nests."""
        self._paused += 1
        if self._paused == 1:
            _send(self.fd_out, {"type": "pause", "nonce": job["nonce"]})
        try:
            yield
        finally:
            self._paused -= 1
            if self._paused == 0:
                _send(self.fd_out, {"type": "resume", "nonce": job["nonce"]})

    @contextlib.contextmanager
    def gpu_hold(self, job, exclusive=False):
        """The GPU lock held shared for one step of correctness work (the answer's build, the reference, one
        trial and its comparison, a timed run's check), not for the whole verify: a waiting timer then waits for
        one step, not for every other worker's whole answer. Between steps nothing runs on the GPU for this job:
        both processes synchronise the device before a step ends, and an answer process runs code only while
        it serves a request (the gate refuses threads, streams, CUDA graphs and jit forks). A no-op on the CPU
        and inside a hold (an exclusive job holds the lock throughout). exclusive: held alone (a baseline's
        autotuning)."""
        lock = self._gpu_lock if self.device == "cuda" else None
        if lock is None or lock.held:
            yield
            return
        with self.judge_time(job):
            lock.exclusive() if exclusive else lock.shared()
        try:
            yield
        finally:
            try:
                self.torch.cuda.synchronize()
            finally:
                lock.release()

    def run_job(self, job):
        t0 = time.perf_counter()
        self.printed_chars = 0
        lock = self.gpu_lock(job) if self.device == "cuda" else None
        self.caps = job["caps"]
        exclusive = bool(job.get("exclusive"))
        self.timings = {}  # verify's, kept for a failed verdict too (where the judge's time went)
        v = None
        try:
            try:
                self.make_room(job, exclusive)
                # Nothing in the prechecks uses the GPU, so they never wait behind
                # another worker's timing or exclusive retry (the lab record: failed answers waited up to 75 s there).
                v = self.precheck(job)
                if v is None:
                    if lock and exclusive:  # the whole job; other jobs' steps take it shared (gpu_hold)
                        with self.judge_time(job):
                            lock.exclusive()
                            self.settle_gpu_memory()
                    v = self.verify(job)
            except _WorkerError as e:
                v = _failed(e.error_type, str(e), **e.kw)
                v.timings = {**self.timings, **v.timings}
            except BaseException as e:  # SystemExit/KeyboardInterrupt from candidate code included
                if isinstance(e, (SystemExit, KeyboardInterrupt)):
                    v = _failed("exit_called", _describe(e))
                elif _is_oom(self.torch, e):  # the judge's own work (an input draw, a comparison) ran out of memory
                    v = _failed("oom", f"{_describe(e)}; {self.cap_text(e)}")
                else:
                    v = _failed("judge_error", _describe(e))
            # The job's memory goes back under the GPU lock: a worker waiting on the lock for an exclusive retry
            # must find the GPU free. In the lab record (H100, 79 GB): three level-1 retries ran out of memory in
            # their reference next to the 56-61 GB that the worker of the retry before them still held (its cached
            # reference and allocator cache) between releasing the lock and emptying its cache.
            if lock and not lock.held:
                with self.judge_time(job):
                    lock.shared()
            self.free_job_memory(job, exclusive, v)
        finally:
            # A worker replaced after this job (every exclusive one, every recycle-kind verdict) keeps the lock
            # until it exits (_serve: os._exit right after the result), so the lock goes with the process and the
            # next exclusive job's settle_gpu_memory sees its memory coming back. Released here, on the lab record's
            # H100 two level-1 retries (20_LeakyReLU, 33_BatchNorm) ran out of memory in their references beside
            # 68.8 GB held by another worker of the same Judge, outside any job the lock allowed.
            replaced = self.will_recycle(job, exclusive, v)
            if lock and not (lock.held and replaced):
                lock.release()
        # A tripwire: this process runs no answer code, so nothing here should ever be replaced; if something
        # is, the worker judges nothing else.
        patched = self._patched()
        if patched and v.error_type != "patched_critical":
            v = _failed("patched_critical", "candidate replaced " + ", ".join(patched[:10]),
                        flags=v.flags + ["patched_critical"])
        if self.printed_chars > (1 << 20):
            v.flags.append("printed_over_1MB")  # discarded; noted because it slows the judge
        v.timings["worker_s"] = round(time.perf_counter() - t0, 4)
        v.seed = job.get("seed")  # every verdict says which trial plan it came from
        recycle = bool(patched) or replaced
        self.n_candidates += 1
        return {"type": "result", "nonce": job["nonce"], "verdict": v.to_dict(), "recycle": recycle}

    def will_recycle(self, job, exclusive, v):
        """Whether this worker is replaced after the job that gave verdict `v`, before run_job counts the job (a
        patched critical function, found after the lock goes, replaces it too)."""
        return (exclusive or (v is not None and v.error_type in job["recycle_errors"])
                or self.n_candidates + 1 >= job["recycle_every"])

    def make_room(self, job, exclusive):
        """Memory for the job: its GPU cap; for the exclusive retry of an oom, no cached reference and (CPU) no
        address-space limit."""
        if exclusive:  # the retry of an oom: nothing cached may take memory from it
            self.tasks.clear()
            if self.device == "cpu" and job.get("mem_limit_gb"):
                _lift_address_space_limit()  # the parent's RSS watchdog, at the exclusive cap, still holds
        if self.device == "cuda":
            if exclusive:
                self.torch.cuda.empty_cache()
            self.cap_gpu_memory(self.caps["gpu_gb"])

    def free_job_memory(self, job, exclusive, v):
        """After a job, while it still holds the GPU lock: after a shared job its task's large cached reference
        goes (drop_large_task), after an exclusive one every cached task (its worker is replaced next, so the
        cache would serve nothing, and a garbage collection frees what the job's exceptions kept alive); then the
        caching allocator gives its free blocks back (return_gpu_cache), after a verdict of the recycle kind too
        (its worker used to skip this, though it released the GPU lock before it exited)."""
        if exclusive or v.error_type in job["recycle_errors"]:
            self.tasks.clear()
            gc.collect()
        else:
            self.drop_large_task(job)
        if self.device == "cuda":
            self.return_gpu_cache(job, v)

    def free_at_job_start(self):
        """The GPU memory an exclusive job had free as it started (ref_gpu_trials' `free`), read once its first
        reference output exists: what the driver reports free now plus what this process's allocator holds (the
        job's first input and output, the model; make_room emptied the rest). The driver's figure alone counts
        those twice, since `working` has them: a H100 level-1 retries read ~13 GB less than they had and
        kept 0-2 of an activation's 5 outputs on the GPU, where 4 fit; each output on the host cost ~5 s."""
        return self.torch.cuda.mem_get_info()[0] + self.torch.cuda.memory_reserved()

    def settle_gpu_memory(self, timeout_s=15.0, step_s=0.2):
        """Before an exclusive job's reference: wait while the GPU's free memory still grows (a worker replaced
        after the last exclusive job releases its context and memory at exit, after the lock went), at most
        `timeout_s`. Returns at once where nothing is being given back."""
        last = self.torch.cuda.mem_get_info()[0]
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            time.sleep(step_s)
            free = self.torch.cuda.mem_get_info()[0]
            if free <= last + (256 << 20):
                return
            last = free

    def drop_large_task(self, job):
        """After a job: its task's cached reference goes if it is over TASK_CACHE_BYTES and no other job of the task
        waits in the judge's queue. A KernelBench-sized reference (level 1: 5 trials x 6.4 GB) kept by an idle
        worker is GPU memory an exclusive retry does not see free, so the retry's reference outputs went to the host
        and it took 20-60 s instead of 3-4 s (the lab record: 7 of level 1's 23 retries). Small tasks stay cached (an RL
        group's rollouts share one), and so does a large one while more of its candidates are queued."""
        key = _task_key(job)
        if key in self.tasks and not job.get("task_queued", True) and self.tasks[key]["nbytes"] > TASK_CACHE_BYTES:
            del self.tasks[key]

    def return_gpu_cache(self, job, v):
        """After a job: a candidate's huge buffers go back to the GPU, not to this worker's caching allocator. A
        sticky CUDA error here keeps the verdict, flags it and has the worker replaced. The synchronize surfaces an
        error a candidate's kernel left pending: a verdict reached without a sync (a shape mismatch is read from
        the output's metadata) let an illegal memory access surface in the next task's reference, on the same
        worker, as that task's error (the lab record: KernelBench L1 19_ReLU "reference failed", a task_error)."""
        try:
            self.torch.cuda.synchronize()
            if self.torch.cuda.memory_reserved() > KEEP_CACHE_BYTES:
                self.torch.cuda.empty_cache()
        except Exception:  # a sticky CUDA error (torch's AcceleratorError too): the verdict stands, the worker goes
            v.flags.append("cuda_context_damaged")
            self.n_candidates = job["recycle_every"]

    def precheck(self, job):
        """The checks before any process runs answer code, none of them on the GPU: the static gate and the
        constructor's signature from the AST. A failed Verdict, or None to go on to verify."""
        err, bad = static_check(job["solution"]) if job.get("static_gate", True) else (None, [])
        if err:
            msg = "; ".join(f"line {ln}: {rule}: {text}" for rule, ln, text in bad[:8])
            return _failed(err, msg, flags=sorted({f"static:{r}" for r, _, _ in bad}))
        with self.judge_time(job):  # the task's import
            init_inputs = self.init_inputs(job)
        why = None if init_inputs is None else init_signature_error(job["solution"], len(init_inputs))
        if why:
            return _failed("signature_mismatch", f"ModelNew(*get_init_inputs()) does not bind: {why}",
                           flags=["static:signature"])
        return None

    def verify(self, job):
        """Judge one answer: its own process builds it (before any reference exists: an answer that cannot be
        built costs no reference), the reference side computes each trial's reference here, then each trial's
        inputs (drawn from the same seed in both processes) go through the answer's forward there and its
        outputs come back to be compared here. The answer process is killed at the end, whatever the verdict."""
        timings = self.timings
        t = time.perf_counter()
        self.ref_peak = 0   # this job's reference has not run yet (answer_gpu_cap_gb)
        if job.get("exclusive"):  # holding the lock exclusive: a spare may be waiting on it for its start-up
            if self.spare is not None:
                self.spare.close()
            ans, self.spare = _AnswerProcess(self, lock=False), None
        else:
            ans, self.spare = self.spare or _AnswerProcess(self), None
            self.start_spare()  # the next answer's process starts while this one is judged
        try:
            with self.judge_time(job):  # its start-up (CUDA, the warm-up kernel), outside the GPU lock
                try:
                    ans.ask({"op": "ping"})
                except _WorkerError as e:  # no answer code has run yet: the judge's failure, not the answer's
                    raise _WorkerError("judge_error", f"the answer process did not start: {e}") from None
            timings["start_s"] = round(time.perf_counter() - t, 4)
            with self.gpu_hold(job):
                ans.ask({"op": "load", "task": job["task"], "solution": job["solution"],
                         "exclusive": bool(job.get("exclusive")),
                         "gpu_cap_gb": self.answer_gpu_cap_gb()})
            timings["import_s"] = round(time.perf_counter() - t, 4)
            return self.verify_answer(job, ans)
        finally:
            try:
                with self.gpu_hold(job):  # its CUDA context's teardown stays out of other workers' timings
                    ans.close()
            finally:
                ans.close()  # once only: a no-op after the first

    def start_spare(self):
        """An answer process forked ahead for the next answer: it starts (CUDA, the warm-up kernel) while this
        worker judges the current one. It has run no answer code, so it is as clean as one forked on demand."""
        if self.spare is None:
            try:
                self.spare = _AnswerProcess(self)
            except _WorkerError:  # no hatch: the next job forks on demand and reports why
                self.spare = None

    def verify_answer(self, job, ans):
        torch = self.torch
        timings = self.timings
        t = time.perf_counter()
        try:
            with self.judge_time(job), self.gpu_hold(job):  # the reference
                task = self.load_task(job)
        except Exception as e:
            if _is_oom(torch, e):  # the task's own size, whatever the candidate: the Judge remembers the task
                msg = str(e) if isinstance(e, _WorkerError) else f"{_describe(e)}; {self.cap_text(e)}"
                raise _WorkerError("oom", msg, flags=["oom_in_reference"]) from None
            raise
        timings["ref_s"] = round(time.perf_counter() - t, 4)
        self.ref_peak = task.get("gpu_peak", 0)
        flags = list(task["flags"])
        v = Verdict(flags=flags, timings=timings, seed=job["seed"])

        # Correctness trials and the faithfulness trial, in the plan's order (trial_plan).
        t = time.perf_counter()
        atol_rtol = job["atol_rtol"]
        max_err, faithful_seen, unfaithful, k = 0.0, False, False, 0
        launch_floor = float("inf")  # the fewest Triton launches of a trial's forward: every timed run launches as many
        for entry, stored in zip(task["plan"], task["ref_outs"]):
            request = {"op": "trial", "seed": entry["seed"], "kind": entry["kind"], "faithful": entry["faithful"],
                       "on_device": task["draw_on_device"], "policy": job["policy"], "atol_rtol": atol_rtol,
                       "numels": [r.numel for r in stored.refs], "anchors": self.anchor_request(task, job)}
            expect = [(r.shape, r.dtype) for r in stored.refs]
            with self.gpu_hold(job):  # one trial and its comparison
                request["gpu_cap_gb"] = self.answer_gpu_cap_gb()
                label = f"trial {k} ({entry['kind']} inputs)"
                if entry["faithful"]:  # decided after the other trials: the verdict does not depend on its place
                    unfaithful = self.check_faithful(ans, request, stored, atol_rtol, expect, v)
                    faithful_seen = True
                    continue
                try:
                    head, outs = ans.ask(request, expect=expect, out_bytes=stored.nbytes)
                except _WorkerError as e:
                    raise _WorkerError(e.error_type, f"{label}: {e}", **{**_partial(v), **e.kw}) from None
                if k == 0:
                    v.compiled = True
                    v.triton_launches, v.torch_ops = head["launches"], head["counts"]
                self.check_launched(head, label, v)
                self.check_output_type(head, stored, label, v)
                out = outs[0] if stored.container is None else stored.container(outs)
                def noise(e=entry):   # the reference's own rounding on this trial's inputs, if the rule asks
                    return self.reference_noise(task, self.make_inputs(task, e["seed"], e["kind"]), e["seed"])
                max_err = max(max_err, self.compare(out, stored, atol_rtol, label, v, noise))
                v.max_abs_err = max_err
                if head.get("inputs_modified") is not None:
                    raise _WorkerError("inputs_modified", f"{label}: input {head['inputs_modified']} was "
                                       "modified in place", **_partial(v))
                self.check_recorded_ops(head, label, task, job, v)
                launch_floor = min(launch_floor, head["launches"])
                del out, outs
                k += 1
        if not faithful_seen or unfaithful:
            raise _WorkerError("unfaithful", "output stays correct with every Triton launch suppressed: the "
                               "kernels do no work", **_partial(v))
        timings["check_s"] = round(time.perf_counter() - t, 4)
        v.correct = True

        if self.device == "cuda" and job["time_trials"] > 0:
            t = time.perf_counter()
            self.time_candidate(ans, task, job, v, launch_floor)
            timings["time_s"] = round(time.perf_counter() - t, 4)
        else:
            v.flags.append("speed_unmeasured")
        return v

    def check_launched(self, head, label, v):
        if head["launches"] == 0:
            raise _WorkerError("no_triton_launch", f"{label}: forward launched no Triton kernel",
                               **_partial(v, compiled=True, torch_ops=head["counts"]))

    def check_recorded_ops(self, head, label, task, job, v):
        """The policy on one recorded forward's dispatcher record (check_policy), and the torch_answer rule."""
        self.check_policy(head["counts"], task["ref_ops"], job["policy"], v, head.get("op_lines") or {})
        if head.get("answered_by"):
            raise _WorkerError("torch_fallback", f"{label}: a torch op ({head['answered_by']}) already computed "
                               "the output before a later Triton launch; the Triton kernels after it do no work "
                               "(rule torch_answer)", **_partial(v, flags=v.flags + ["policy:torch_answer"]))

    def check_timed_path(self, head, task, job, v, launch_floor):
        """The timed runs did what the trials did: each plain one launched at least as many Triton kernels as the
        trial that launched fewest, and the ones recorded in their place (drawn there, unannounced) pass the
        trials' checks. A forward that counts its calls and turns to torch once the trials are over fails here."""
        fewest = head.get("launches_min")
        if fewest is not None and fewest < launch_floor:
            raise _WorkerError("torch_fallback", f"a timed run launched {fewest} Triton kernel(s), a trial at least "
                               f"{launch_floor}: the timed runs do not run what the trials checked (rule timed_runs)",
                               **_partial(v, flags=v.flags + ["policy:timed_runs"]))
        for audit in head.get("audits") or []:
            label = f"timed run {audit['run']} (recorded)"
            try:
                self.check_launched(audit, label, v)
                self.check_recorded_ops(audit, label, task, job, v)
            except _WorkerError as e:
                e.kw["flags"] = list(e.kw.get("flags") or v.flags) + ["policy:timed_runs"]
                raise

    def answer_gpu_cap_gb(self):
        """The GPU memory the answer process may hold now: the job's per-worker share less what this worker needs
        (the two processes together stay within the share; at least 1 GB). What it needs is the larger of what
        it holds once its cached free blocks are given back and its reference forwards' peak (task["gpu_peak"]:
        the spot checks and the reference noise run the reference again while the answer process keeps its
        memory). Called inside a GPU hold. None on the CPU."""
        if self.device != "cuda" or not self.caps.get("gpu_gb"):
            return None
        self.torch.cuda.empty_cache()
        held = max(self.torch.cuda.memory_reserved(), self.ref_peak)
        return max(self.caps["gpu_gb"] - held / (1 << 30), 1.0)

    def check_output_type(self, head, stored, label, v):
        if head.get("wrong_type"):
            raise _WorkerError("wrong_output_type", f"{label}: output type is {head['wrong_type']}, expected "
                               "exactly a dense torch.Tensor", **_partial(v))
        container = head.get("container")
        want = None if stored.container is None else stored.container.__name__
        if container != want or len(head.get("tensors") or []) != len(stored.refs):
            raise _WorkerError("wrong_output_type", f"{label}: output is {container or 'a tensor'} of "
                               f"{len(head.get('tensors') or [])}, expected {want or 'a tensor'} of "
                               f"{len(stored.refs)}", **_partial(v))

    def check_faithful(self, ans, request, stored, atol_rtol, expect, v):
        """The faithfulness trial (its place in the plan is random): launches suppressed and fresh empty* buffers
        poisoned in the answer process, the output must now be wrong. True where it is still right."""
        try:
            head, outs = ans.ask(request, expect=expect, drain=True, out_bytes=stored.nbytes)
        except _WorkerError as e:
            if e.error_type in ("patched_critical", "worker_crashed", "worker_died", "answer_died", "protocol_error"):
                raise
            # It broke without its kernels, or returned another shape: counted as faithful.
            if e.error_type not in ("shape_mismatch", "dtype_mismatch"):
                v.flags.append("faithfulness_raised")
            return False
        if head.get("wrong_type") or (head.get("container") is not None) != (stored.container is not None):
            return False
        out = outs[0] if stored.container is None else stored.container(outs)
        try:
            self.compare(out, stored, atol_rtol, "faithfulness", Verdict())
        except _WorkerError:
            return False
        return True

    def host_room(self):
        """Bytes of reference outputs the job may keep on the host: 0.75 of its host memory cap."""
        return 0.75 * self.caps.get("rss_gb", 0.0) * (1 << 30)

    def run_reference(self, fn, error_type):
        """Run the reference (its timed runs; _cuda_times' runner): no answer code runs here, so an exception is
        the task's (or the caps'), never the answer's."""
        try:
            return fn()
        except Exception as e:
            if _is_oom(self.torch, e):
                raise _WorkerError("oom", f"reference: {_describe(e)}; {self.cap_text(e)}",
                                   flags=["oom_in_reference"]) from None
            raise _WorkerError("task_error", f"reference failed in its timed runs: {_describe(e)}") from None

    def compare(self, out, ref, atol_rtol, where, v, noise=None):
        """Exact type/structure, shape, dtype, then allclose. `ref` is a stored reference (`_Stored`) or
        a reference output itself. Returns max |out - ref| (float; NaN counts as inf). `noise`, if given, is
        called where the whole-output rule fails: the reference's own rounding per output (reference_noise), which
        widens that rule (whole_output_rule)."""
        torch = self.torch
        ref = ref if isinstance(ref, _Stored) else _Stored(torch, ref)
        container, refs = ref.container, ref.refs
        if container is None:
            outs = [out]
        else:
            if type(out) is not container or len(out) != len(refs):
                raise _WorkerError("wrong_output_type", f"{where}: output is {type(out).__name__}, "
                                   f"expected {container.__name__} of {len(refs)} tensors", **_partial(v))
            outs = list(out)
        err, noises = 0.0, None
        for k, (o, r) in enumerate(zip(outs, refs)):
            if type(o) is not torch.Tensor or o.layout != torch.strided or o.is_meta:
                raise _WorkerError("wrong_output_type", f"{where}: output type is {type(o).__module__}."
                                   f"{type(o).__qualname__}" + (f" ({o.layout}, {o.device})" if type(o) is
                                   torch.Tensor else "") + ", expected exactly a dense torch.Tensor", **_partial(v))
            if tuple(o.shape) != r.shape:
                raise _WorkerError("shape_mismatch", f"{where}: shape {tuple(o.shape)} != {r.shape}", **_partial(v))
            if o.dtype != r.dtype:
                raise _WorkerError("dtype_mismatch", f"{where}: dtype {o.dtype} != {r.dtype}", **_partial(v))
            dtype = str(r.dtype).replace("torch.", "")
            atol, rtol = atol_rtol.get(dtype, atol_rtol["float32"])
            kb_tol = KB_TOLERANCES.get(dtype, KB_TOLERANCES["float32"])
            whole = {}
            e, ok, ok_kb = _chunked_close(torch, o, r, atol, rtol, self.isclose, self.equal, self.device, kb_tol,
                                          whole=whole)
            if ok and not ok_kb and where.startswith("trial") and KB_TOL_FLAG not in v.flags:
                v.flags.append(KB_TOL_FLAG)
            err = max(err, e)
            if not ok:
                v.max_abs_err = max(v.max_abs_err or 0.0, e)
                raise _WorkerError("mismatch", f"{where}: max_abs_err {e:.3g} outside the elementwise tolerance "
                                   f"(rule elementwise: |out - ref| <= {atol:g} + {rtol:g} |ref|)",
                                   **_partial(v, flags=v.flags + ["mismatch:elementwise"]))
            why = whole_output_rule(whole.get("rel"), rtol)
            if why and noise is not None:
                noises = noise() if noises is None else noises
                if noises and noises[k] is not None:
                    why = whole_output_rule(whole.get("rel"), rtol, whole.get("diff"), whole.get("ref"), noises[k])
            if why:
                v.max_abs_err = max(v.max_abs_err or 0.0, e)
                raise _WorkerError("mismatch", f"{where}: {why}",
                                   **_partial(v, flags=v.flags + ["mismatch:whole_output"]))
        return err

    def reference_noise(self, task, inputs, seed):
        """Per reference output, ||ref - ref_fp64|| on `inputs`: the reference's own rounding, from the task's
        model and a float64 copy of it, both after `seed` (a random forward draws alike); None
        where the reference does not run in float64 or an output is not floating. Only asked for where the
        whole-output rule fails."""
        torch = self.torch
        try:
            model64 = copy.deepcopy(task["model"]).double()   # not kept: asked for only where the rule fails
            wide = [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
            with torch.no_grad():
                torch.manual_seed(seed)
                r32 = task["model"](*inputs)
                torch.manual_seed(seed)
                r64 = model64(*wide)
        except Exception as e:  # noqa: BLE001  (the task's own code: a reference bound to its dtype keeps the rule)
            if _is_oom(torch, e):
                raise
            return None
        r32 = list(r32) if isinstance(r32, (tuple, list)) else [r32]
        r64 = list(r64) if isinstance(r64, (tuple, list)) else [r64]
        out = []
        for a, b in zip(r32, r64):
            ok = isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.is_floating_point() and \
                a.shape == b.shape
            out.append(float((a.double() - b.double()).norm()) if ok else None)
        return out

    def check_policy(self, counts, ref_ops, policy, v, lines=None):
        """The policy on what the dispatcher saw during the whole forward (grid callables and launchers
        included): strict allows no torch compute op; hybrid allows GEMMs, convolutions and dropout
        (hybrid_extra_ops), and not all of the reference's compute ops. `lines`: aten op -> the answer's line
        that first ran it, named in the message."""
        lines = lines or {}

        def where(families):
            found = [f"{name} at {ln}" for name, ln in lines.items() if ln and op_family(name) in families]
            return f"; {', '.join(found[:4])}" if found else ""
        cand = compute_ops(counts)
        if policy == "strict" and cand:
            raise _WorkerError("strict_policy", f"torch compute ops in forward under policy strict: {cand}"
                               f"{where(set(cand))} (rule strict)", **_partial(v, flags=v.flags + ["policy:strict"]))
        extra = hybrid_extra_ops(cand, ref_ops)
        if HEAVY_UNANCHORED in extra:   # the calls' lines are under what they took
            lines = dict(lines, **{HEAVY_UNANCHORED: lines.get(ANCHOR_NONE) or lines.get(ANCHOR_NONE_PROJ)
                                                        or lines.get(ANCHOR_INPUT)})
        if LAYER_UNANCHORED in extra:
            lines = dict(lines, **{LAYER_UNANCHORED: lines.get(ANCHOR_LAYER)})
        if HEAVY_WEIGHT_OVER in extra:   # the first GEMM on the first weight over its budget
            over = weights_over(cand, ref_ops)
            lines = dict(lines, **{HEAVY_WEIGHT_OVER: next((lines[f] for f in over if lines.get(f)), "")})
        if policy == "hybrid" and extra:
            libs = sorted(f for f in ref_ops or {} if f.startswith(LIBRARY_FAMILY))
            hint = " (torch's GEMMs take the reference's weights, the forward's inputs or, in attention, q, k and v " \
                "as torch's GEMM on the reference's weights wrote them, viewed or copied by torch)" \
                if HEAVY_UNANCHORED in extra else " (per weight, no more multiply-adds than the reference's)" \
                if HEAVY_WEIGHT_OVER in extra else ""
            raise _WorkerError("torch_fallback", f"torch ran {extra} in forward: under policy hybrid torch may run "
                               f"only {', '.join(sorted(HYBRID_TORCH_FAMILIES) + libs)} and dropout, Triton the rest "
                               f"(rule hybrid_ops){where(set(extra))}{hint}",
                               **_partial(v, flags=v.flags + ["policy:hybrid_ops"]))
        def pooled(ops):   # a GEMM done as a 1x1 convolution covers the reference's GEMM
            out = {f: n for f, n in ops.items() if f not in HYBRID_TORCH_FAMILIES and not is_measure(f)}
            heavy = sum(ops.get(f, 0) for f in HYBRID_TORCH_FAMILIES)
            return dict(out, **({"gemm_or_conv": heavy} if heavy else {}))
        if ref_ops and all(pooled(cand).get(fam, 0) >= n for fam, n in pooled(ref_ops).items()):
            raise _WorkerError("torch_fallback", f"torch ops in forward {cand} cover all reference compute "
                               f"{ref_ops}: the Triton kernels do none of the task's work (rule covers_reference)",
                               **_partial(v, flags=v.flags + ["policy:covers_reference"]))

    # --- reference ----------------------------------------------------------------------------------

    def init_inputs(self, job):
        """get_init_inputs() of the job's task, from the cached task, else from the task module alone
        (import_task: no reference computed, no candidate code run); None when the task cannot say (load_task then
        reports why)."""
        key = _task_key(job)
        if key in self.tasks:
            return self.tasks[key]["init_inputs"]
        try:
            return list(self.import_task(job).get_init_inputs())
        except Exception:  # the task's own fault: load_task raises it with its usual verdict
            return None

    def import_task(self, job):
        """The job's task module, imported from a file deleted at once (the candidate's cwd must not hold the
        reference source). The last one is kept, so a job's constructor check and its load_task import it once."""
        src_key = _sha(job["task"])
        if self.last_import is None or self.last_import[0] != src_key:
            path = os.path.join(os.getcwd(), f"task_{src_key[:12]}.py")
            try:
                with open(path, "w") as f:
                    f.write(job["task"])
                mod = _import_file(path, f"task_{src_key[:12]}", register=False)
            finally:
                if os.path.exists(path):
                    os.unlink(path)
            self.last_import = (src_key, mod)
        return self.last_import[1]

    def load_task(self, job):
        """Import the task and compute the reference outputs of every trial (before any candidate code runs in
        this job), keep them aside and NaN-fill the originals. Kept (`_Stored`) on the GPU for as many
        trials as fit this worker's GPU memory (ref_gpu_trials), the rest on the CPU. The task's inputs
        are drawn on the device where its get_inputs runs there (task["draw_on_device"]; a 6 GB torch.rand on
        the CPU took seconds), else on the CPU; every draw of the task in this worker (trials, faithfulness,
        timing) follows that choice, so the reference and the candidate see the same inputs. Cached per task
        source; on a miss the oldest cached tasks are dropped until those left hold <= TASK_CACHE_BYTES."""
        torch = self.torch
        key = _task_key(job)
        if key in self.tasks:
            return self.tasks[key]
        while self.tasks and (len(self.tasks) >= 8 or sum(t["nbytes"] for t in self.tasks.values()) > TASK_CACHE_BYTES):
            self.tasks.pop(next(iter(self.tasks)))
        try:
            mod = self.import_task(job)
            init_inputs = list(mod.get_init_inputs())
            torch.manual_seed(MODEL_SEED)
            model = mod.Model(*init_inputs).to(self.device)
            plan = trial_plan(job["seed"], job["task"], job["trials"])
            task = {"model": model, "mod": mod, "init_inputs": init_inputs, "flags": [], "ref_outs": [],
                    "plan": plan, "draw_on_device": False, "anchor_key": random.SystemRandom().randrange(1 << 62)}
            if self.device == "cuda":  # the reference forwards' peak, from here (answer_gpu_cap_gb)
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
            first = None
            if self.device != "cpu":
                try:
                    first = self.make_inputs(task, plan[0]["seed"], plan[0]["kind"], draw_on_device=True)
                    task["draw_on_device"] = True
                except DRAW_ERRORS:
                    first = None  # drawn on the CPU below
            ref_ops, on_gpu = None, 0  # on_gpu: trials whose outputs stay on the GPU (0 on the CPU)
            for k, entry in enumerate(plan):
                inputs = first if k == 0 and first is not None else \
                    self.make_inputs(task, entry["seed"], entry["kind"])
                first = None
                out, rec = self.reference_forward(model, inputs, entry)
                if out is None:  # a widened draw the reference cannot take: this trial is drawn plainly
                    task["flags"].append(f"trial_not_widened:{entry['kind']}")
                    entry["kind"] = "plain"
                    inputs = self.make_inputs(task, entry["seed"], "plain")
                    out, rec = self.reference_forward(model, inputs, entry)
                if ref_ops is None:   # what an answer's parameters may match: the reference's GEMM and convolution
                    weights = list(rec.used.values()) + [      # weights and its library layers' parameters
                        p for m in model.modules() if type(m).__name__ in LIBRARY_LAYERS for p in m.parameters()] + [
                        p for n, p in model.named_parameters() if n.split(".")[-1] == "bias"]   # and its biases,
                    # which a GEMM's bias add keeps a projection with (their GEMM budget is none)
                    task["anchor_prints"], ids = _anchor_prints(torch, weights, task["anchor_key"])
                    task["anchor_partners"] = _rnn_partners(model, ids)
                    counts = {}   # the reference's multiply-adds per weight, keyed by its index (ROOT_MACS)
                    for f, n in rec.counts.items():
                        if not f.startswith(ROOT_MACS):
                            counts[f] = n
                        elif int(f[len(ROOT_MACS) + 2:]) in ids:
                            name = f"{ROOT_MACS}{ids[int(f[len(ROOT_MACS) + 2:])]}"
                            counts[name] = counts.get(name, 0) + n
                    rec.counts = counts
                ref_ops = ref_ops or compute_ops(rec.counts)
                if k == 0 and self.device == "cuda":
                    out_b, n_trials = _output_bytes(torch, out), len(task["plan"])
                    exclusive = bool(job.get("exclusive"))
                    host_room = self.host_room()
                    working = working_bytes(job, _output_bytes(torch, inputs), out_b, task["draw_on_device"])
                    cap = self.gpu_cap_bytes()
                    if not exclusive and working_set_over_share(working, cap):
                        # verify turns this into an oom of the reference: the Judge runs the job alone now and
                        # remembers the task (ref_oom), so no later job of it pays this first attempt again
                        raise _WorkerError("oom", f"out of memory for a shared job whatever the answer: the task's "
                                           f"working set is {working / (1 << 30):.1f} GB (inputs and outputs held "
                                           f"at once; working_bytes), over the {self.caps['gpu_text']}")
                    on_gpu = ref_gpu_trials(out_b, n_trials, working, cap, host_room, exclusive,
                                            self.free_at_job_start() if exclusive else None)
                    self.timings["ref_gpu_trials"] = on_gpu
                    if (n_trials - on_gpu) * out_b > host_room > 0:
                        # no room on either side: say so now, not after copying GBs to the host watchdog's kill
                        raise _WorkerError("oom", f"the reference outputs of {n_trials} trials take "
                                           f"{out_b * n_trials / (1 << 30):.1f} GB: over {REF_GPU_SHARE:g} of the "
                                           f"{self.caps['gpu_text']} and 0.75 of the {self.caps['rss_text']}")
                where = "cuda" if k < on_gpu else "cpu"
                task["ref_outs"].append(_Stored(torch, out, where))
                _poison_tree(torch, out)
                del out, inputs
        except _WorkerError:
            raise
        except Exception as e:
            if _is_oom(torch, e):
                raise _WorkerError("oom", f"the reference ran out of memory: {_describe(e)}; {self.cap_text(e)}") from None
            raise _WorkerError("task_error", f"reference failed: {_describe(e)}") from None
        if not all(r.finite for r in task["ref_outs"][0].refs):
            task["flags"].append("reference_not_finite")
        task["ref_ops"] = ref_ops
        task["gpu_peak"] = torch.cuda.max_memory_reserved() if self.device == "cuda" else 0
        task["nbytes"] = sum(s.nbytes for s in task["ref_outs"]) + sum(
            t.numel() * t.element_size() for t in itertools.chain(model.parameters(), model.buffers()))
        self.tasks[key] = task
        return task

    @staticmethod
    def anchor_request(task, job):
        """What the answer process needs to tell the reference's parameters among its own (OpRecorder.anchors):
        under policy hybrid only, where it decides which GEMMs torch may run."""
        if job["policy"] != "hybrid":
            return None
        return {"key": task["anchor_key"], "prints": task["anchor_prints"], "partners": task["anchor_partners"],
                # projections are told apart where calls are lent for attention or the reference's own GEMMs take
                # them (hand-written attention): ANCHOR_PROJ
                "proj": any("attention" in f.lower() for f in task["ref_ops"])
                or bool(task["ref_ops"].get(ANCHOR_NONE_PROJ))}

    def make_inputs(self, task, seed, kind="plain", draw_on_device=None):
        """The task's get_inputs under `seed`, moved to the device and widened by `kind` (widen_inputs), as the
        answer process draws them. draw_on_device: with the device as the default device, so its random draws
        happen there (fast: the timing draws a new set per run); None: as the task's reference was drawn
        (task["draw_on_device"], set by load_task)."""
        torch = self.torch
        if draw_on_device is None:
            draw_on_device = task.get("draw_on_device", False)
        torch.manual_seed(seed)
        inputs = draw_inputs(torch, task["mod"].get_inputs, self.device, draw_on_device)
        return widen_inputs(torch, inputs, kind, seed)

    def reference_forward(self, model, inputs, entry):
        """(output, recorder) of the reference on one trial's inputs. A widened trial (not "plain") whose
        reference raises or is not finite gives (None, None): the widening left the task's domain (a log of a
        negative, probabilities out of [0, 1]), and the trial is drawn plainly instead."""
        torch = self.torch
        rec = self.OpRecorder(anchors=_input_anchors(torch, inputs, _model_anchors(torch, model)), proj=True)
        if entry["kind"] == "plain":
            with torch.no_grad(), rec:
                return model(*inputs), rec
        try:
            with torch.no_grad(), rec:
                out = model(*inputs)
        except DRAW_ERRORS:
            return None, None
        outs = [out] if isinstance(out, torch.Tensor) else list(out) if isinstance(out, (tuple, list)) else []
        if any(isinstance(o, torch.Tensor) and o.is_floating_point() and not bool(torch.isfinite(o).all())
               for o in outs):
            return None, None
        return out, rec

    def cap_gpu_memory(self, limit_gb):
        """The caching allocator may hold at most `limit_gb` of the GPU (0: all of it), so a candidate that
        allocates wildly fails with an OOM of its own instead of starving the trainer and the other workers on
        the same GPU. Set per job (a cheap call): an exclusive job, the retry of an oom, lifts it."""
        limit_gb = float(limit_gb or 0.0)
        if limit_gb == self._gpu_cap_gb:
            return
        torch = self.torch
        total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, limit_gb * (1 << 30) / total) if limit_gb > 0 else 1.0)
        self._gpu_cap_gb = limit_gb

    def gpu_cap_bytes(self):
        total = self.torch.cuda.get_device_properties(self.torch.cuda.current_device()).total_memory
        return min(total, self._gpu_cap_gb * (1 << 30)) if self._gpu_cap_gb else total

    def cap_text(self, e):
        """The memory cap that an out-of-memory error `e` ran into, in words (from the job's `caps`)."""
        gpu = isinstance(e, self.torch.OutOfMemoryError) or "CUDA" in str(e)
        return self.caps.get("gpu_text" if gpu else "host_text", "")

    # --- timing (CUDA only) ---------------------------------------------------------------------------

    def lock_where(self):
        """[lock_dir, uuid] of this worker's GPU lock (None before its first CUDA job): an answer process takes it
        shared while it starts CUDA and runs its warm-up kernel, so a spare starting up never lands in a timing."""
        return None if self._gpu_lock is None else [self._gpu_lock.lock_dir, self._gpu_lock.uuid]

    def gpu_lock(self, job):
        if self._gpu_lock is None:
            uuid = str(self.torch.cuda.get_device_properties(self.torch.cuda.current_device()).uuid)
            self._gpu_lock = _GpuLock(job["lock_dir"], uuid)
        return self._gpu_lock

    def time_candidate(self, ans, task, job, v, launch_floor=0):
        """Timing (CUDA): the eager reference (and torch.compile's) timed here, in a process that never imported
        answer code, unless the baseline cache has them; the answer's runs timed in its own process. Both with
        the same method (_cuda_times: L2 flush, a spin kernel before the start event, CUDA events, a device-wide
        sync, warm-ups outside, medians) while this worker holds the GPU exclusively (file lock), on fresh draws
        widened by a kind per run (timing_kinds; plain for all where a widened draw makes the reference raise,
        flag timing_not_widened). The outputs of a few of the answer's timed runs (picked at random there, and
        the last) are checked here against the reference on the same inputs, and its launch counts and the runs
        recorded in place of timed ones against the trials' (check_timed_path)."""
        torch = self.torch
        # Before every timed run the inputs are refilled (outside the timed region) with values never seen
        # before: the task's own get_inputs, run on the GPU under a seed drawn per job. A cache keyed on the
        # input pointer or on the input's content cannot serve them. Each run's draw is widened by a kind drawn
        # per job from the kinds the trials used (timing_kinds), so a forward that approximates once the trials
        # are over meets the contrasts too. If the task's get_inputs cannot run on the device, the runs rotate
        # over three of the trials' input sets instead (flag timing_inputs_rotated).
        if "max-autotune" in timed_functions(job) and "compiled_max_autotune" not in task:
            with self.gpu_hold(job, exclusive=True):  # autotuning times its candidates: the GPU alone
                entry = next(e for e in task["plan"] if not e["faithful"])
                self.compiled_baseline(task, job, "max-autotune", self.make_inputs(task, entry["seed"], entry["kind"]))
        with self.gpu_hold(job):  # the inputs and the baselines' compile (shared, like correctness work)
            seed_base, rotation, fns, refill = self.timing_setup(task, job, v)
        kinds = self.timing_kinds(task, job)
        size = task["ref_outs"][0].nbytes   # one run's outputs: the reply carries the spot checks' and the last's
        lock = self.gpu_lock(job)
        owned = lock.held != "exclusive"  # an exclusive job keeps its hold to the end
        with self.judge_time(job):  # waiting is not the candidate's time
            t = time.perf_counter()
            lock.exclusive()
            v.timings["lock_wait_s"] = round(time.perf_counter() - t, 4)  # part of time_s: other workers' holds
        try:
            times = {}
            for name in fns:  # the reference side's own timing, before the answer's; one function at a time, so
                try:          # a compiled baseline that fails in its runs is flagged, not the verdict's failure
                    times.update(_cuda_times(torch, {name: fns[name]}, {name: refill[name]},
                                             self.timing_inputs(task, seed_base, rotation, kinds), job["time_trials"],
                                             self.run_reference, budget_s=job["time_budget_s"]))
                except _WorkerError as e:
                    if name == "ref" and any(k != "plain" for k in kinds):   # a widened draw left the task's domain
                        kinds = ["plain"] * len(kinds)
                        v.flags.append("timing_not_widened")
                        times.update(_cuda_times(torch, {name: fns[name]}, {name: refill[name]},
                                                 self.timing_inputs(task, seed_base, rotation, kinds),
                                                 job["time_trials"], self.run_reference,
                                                 budget_s=job["time_budget_s"]))
                        continue
                    if name == "ref":
                        raise
                    v.flags.append(f"{baseline_stem(name)}_baseline_failed")
                    v.timings[f"{baseline_stem(name)}_error"] = str(e)[:300]
            del fns, refill
            head, outs = ans.ask({"op": "time", "trials": job["time_trials"], "budget_s": job["time_budget_s"],
                                  "gpu_cap_gb": self.answer_gpu_cap_gb(), "policy": job["policy"],
                                  "numels": [r.numel for r in task["ref_outs"][0].refs],
                                  "atol_rtol": job["atol_rtol"], "fresh": seed_base is not None,
                                  "seed_base": seed_base or 0, "rotation": rotation, "kinds": kinds,
                                  "on_device": task["draw_on_device"], "anchors": self.anchor_request(task, job)},
                                 out_bytes=(_spot_count(size, job["time_trials"]) + 1) * size)
        finally:
            if owned:
                try:
                    torch.cuda.synchronize()
                finally:
                    lock.release()
        with self.gpu_hold(job):
            self.check_timed_runs(head, outs, task, job, v, self.timing_inputs(task, seed_base, rotation, kinds),
                                  kinds if seed_base is not None else None)
        self.check_timed_path(head, task, job, v, launch_floor)
        new_times = [float(x) for x in head["times"]]
        if len(new_times) < job["time_trials"]:
            v.timings["time_trials"] = len(new_times)
        v.ref_ms = cached_ms(job, "eager_ms") if "ref" not in times else _median(times["ref"])
        v.timings["ref_ms_from_cache"] = "ref" not in times
        v.runtime_ms = _median(new_times)
        v.speedup = v.ref_ms / v.runtime_ms if v.runtime_ms > 0 else None
        if v.speedup is not None and v.speedup > SPEEDUP_CAP:
            v.flags.append("speedup_above_cap")
        for name in compile_baselines(job):
            stem = baseline_stem(name)
            ms = _median(times[name]) if name in times else cached_ms(job, f"{stem}_ms")
            if ms is not None:
                v.timings[f"{stem}_ref_ms"] = ms
                v.timings[f"{stem}_ref_ms_from_cache"] = name not in times
                v.timings[f"speedup_vs_{stem}"] = ms / v.runtime_ms

    def timing_inputs(self, task, seed_base, rotation, kinds):
        """inputs_for(i) of the timed runs: fresh draws from seed_base widened by kinds[i], or (seed_base None) a
        rotation over trial inputs."""
        if seed_base is not None:
            return lambda i: self.make_inputs(task, seed_base + 1 + i, kinds[i], draw_on_device=True)
        return lambda i: self.make_inputs(task, *rotation[i % len(rotation)])

    @staticmethod
    def timing_kinds(task, job):
        """The kind each timed run's fresh draw is widened by (widen_inputs): drawn per job (its nonce, which the
        answer never sees) from the kinds of the task's correctness trials, which are plain where a widening
        leaves the task's domain (reference_forward)."""
        kinds = sorted({e["kind"] for e in task["plan"] if not e["faithful"]})
        rng = random.Random(job["nonce"] + ":kinds")
        return [rng.choice(kinds) for _ in range(max(job["time_trials"], 1))]

    def timing_setup(self, task, job, v):
        """Before the timed runs: the seed of their fresh inputs (None where they rotate over trial inputs), that
        rotation, and the reference side's functions to time with their input buffers."""
        torch = self.torch
        plain = [e for e in task["plan"] if not e["faithful"]]
        rotation = [[e["seed"], e["kind"]] for e in plain[:3]]
        first = self.make_inputs(task, *rotation[0])
        seed_base = random.Random(job["nonce"] + ":inputs").randrange(1 << 30)
        layout = lambda xs: [(tuple(x.shape), x.dtype) for x in xs if isinstance(x, torch.Tensor)]  # noqa: E731
        try:
            fresh = layout(self.make_inputs(task, seed_base, draw_on_device=True)) == layout(first)
        except DRAW_ERRORS:
            fresh = False
        if not fresh:
            v.flags.append("timing_inputs_rotated")

        # Baselines the Judge found in its BaselineCache (job["baseline"]) are not timed again.
        cached = job.get("baseline") or {}
        clone = lambda xs: [x.clone() if isinstance(x, torch.Tensor) else x for x in xs]  # noqa: E731
        fns, refill = {}, {}
        timed = timed_functions(job)
        if "ref" in timed:
            inputs_ref = clone(first)
            fns["ref"], refill["ref"] = (lambda: task["model"](*inputs_ref)), inputs_ref
        for name in compile_baselines(job):
            stem = baseline_stem(name)
            if name in timed:
                compiled = self.compiled_baseline(task, job, name, clone(first))
                v.timings[f"{stem}_ms"] = round(task[f"{stem}_ms"], 1)  # how long compiling took (or failed after)
                if compiled is not None:
                    inputs_cmp = clone(first)
                    fns[name], refill[name] = (lambda c=compiled, xs=inputs_cmp: c(*xs)), inputs_cmp
                else:
                    v.flags.append(f"{stem}_baseline_failed")
            elif cached.get(f"{stem}_failed"):
                v.flags.append(f"{stem}_baseline_failed")
        return (seed_base if fresh else None), rotation, fns, refill

    def compiled_baseline(self, task, job, name, inputs):
        """torch.compile(reference, mode=COMPILE_BASELINES[name]), compiled once per cached task on `inputs`
        (compile time is the judge's); None where it does not compile (reported, not fatal). task[<stem>_ms]:
        how long compiling took."""
        torch, stem = self.torch, baseline_stem(name)
        if f"compiled_{stem}" not in task:
            with self.judge_time(job):
                t = time.perf_counter()
                try:
                    mode = COMPILE_BASELINES[name][0]
                    compiled = torch.compile(task["model"], mode=None if mode == "default" else mode)
                    with torch.no_grad():
                        compiled(*inputs)
                    torch.cuda.synchronize()
                except Exception as e:
                    compiled, task[f"{stem}_error"] = None, _describe(e)
                task[f"compiled_{stem}"], task[f"{stem}_ms"] = compiled, (time.perf_counter() - t) * 1e3
        return task[f"compiled_{stem}"]

    def check_timed_runs(self, head, outs, task, job, v, inputs_for, kinds=None):
        """The outputs of the answer's timed runs that came back (picked at random there, one of each widened
        kind among them where their number allows, and the last) against the reference on the same inputs. A
        widened run whose reference raises or is not finite is skipped: that draw left the task's domain."""
        torch = self.torch
        if head.get("wrong_type"):
            raise _WorkerError("wrong_output_type", f"timed run: output type is {head['wrong_type']}", **_partial(v))
        stored0 = task["ref_outs"][0]
        per = len(stored0.refs)
        for j, i in enumerate(head.get("spots", [])):
            ts = outs[j * per:(j + 1) * per]
            if [(tuple(t.shape), t.dtype) for t in ts] != [(r.shape, r.dtype) for r in stored0.refs]:
                raise _WorkerError("shape_mismatch", f"timed run {i}: output shapes differ from the reference's",
                                   **_partial(v))
            widened = bool(kinds) and kinds[i] != "plain"
            try:
                with torch.no_grad():
                    ref = task["model"](*inputs_for(i))
            except Exception as e:  # noqa: BLE001  (the task's own code, on a widened draw outside its domain)
                if widened and not _is_oom(torch, e):
                    continue
                raise
            if widened and any(
                    isinstance(r, torch.Tensor) and r.is_floating_point() and not bool(torch.isfinite(r).all())
                    for r in (ref if isinstance(ref, (tuple, list)) else [ref])):
                continue
            self.compare(ts[0] if stored0.container is None else stored0.container(ts), ref, job["atol_rtol"],
                         f"timed run {i}", v, lambda i=i: self.reference_noise(task, inputs_for(i), i))


def cached_ms(job, key):
    """A baseline time the Judge found in its BaselineCache for this job (job["baseline"]), or None."""
    return (job.get("baseline") or {}).get(key)


class _GpuLock:
    """A readers-writer lock over one GPU shared by all worker processes (flock on two files).

    Correctness work (reference, trials, faithfulness) holds it shared; timing holds it exclusive, so no
    kernel of another worker runs while a candidate is timed. (With only the timing serialised, the H200
    run of `bench.py timing-noise` gave a median 67% disagreement between two timings of the same kernels:
    other workers' correctness runs and Triton compiles were sharing the GPU.) A waiting timer holds the
    gate, which stops new shared holders, so timing is not starved. A worker gives up its shared hold
    before it queues for the gate, so no two workers can wait on each other. A candidate's Triton kernels
    compile under its shared hold although compiling needs no GPU: compiling runs candidate Python (constexpr
    functions, attributes of the globals a kernel reads), which could otherwise launch GPU work into another
    candidate's timing (the lab record: the timers' waits halve without the hold, 14.0 -> 9.9 s a batch).
    The retry of an oom job holds it exclusive for the whole job, so no other worker's memory use
    grows while it runs with the GPU cap lifted."""

    def __init__(self, lock_dir, uuid):
        import fcntl
        self.fcntl = fcntl
        self.lock_dir, self.uuid = lock_dir, uuid
        self.gate = open(os.path.join(lock_dir, f"gpu-{uuid}.gate"), "a")
        self.lock = open(os.path.join(lock_dir, f"gpu-{uuid}.lock"), "a")
        self.held = None  # None, "shared" or "exclusive"

    def shared(self):
        f = self.fcntl
        f.flock(self.gate, f.LOCK_EX)
        f.flock(self.lock, f.LOCK_SH)
        f.flock(self.gate, f.LOCK_UN)
        self.held = "shared"

    def exclusive(self):
        """Exclusive hold; a no-op when already held so (an exclusive job's timing keeps its hold throughout)."""
        if self.held == "exclusive":
            return
        f = self.fcntl
        f.flock(self.lock, f.LOCK_UN)
        f.flock(self.gate, f.LOCK_EX)
        f.flock(self.lock, f.LOCK_EX)
        f.flock(self.gate, f.LOCK_UN)
        self.held = "exclusive"

    def release(self):
        self.fcntl.flock(self.lock, self.fcntl.LOCK_UN)
        self.held = None


def judge_lock_dir():
    """The folder of the per-GPU timing locks, one for every Judge and trainer on this machine."""
    return os.path.join(tempfile.gettempdir(), "drtriton-judge-locks")


_HOLD = {"locks": {}, "depth": 0}  # gpu_work's lock per GPU uuid and its nesting depth in this process


def _hold_lock(torch, device):
    """gpu_work's lock object for the GPU `device` names (the current device without an index)."""
    index = torch.device(device).index if device is not None else None
    uuid = str(torch.cuda.get_device_properties(torch.cuda.current_device() if index is None else index).uuid)
    if uuid not in _HOLD["locks"]:
        os.makedirs(judge_lock_dir(), exist_ok=True)
        _HOLD["locks"][uuid] = _GpuLock(judge_lock_dir(), uuid)
    return _HOLD["locks"][uuid]


@contextlib.contextmanager
def gpu_work(device=None):
    """Hold this process's GPU work (a trainer's generation and updates, an eval's proposing) under the judges'
    per-GPU timing lock, shared, like a worker's correctness work: no judge on this machine times a candidate
    while it runs, and it starts only once a timing in progress (or queued: the gate) is over. Without it, a
    second pipeline stage on the same GPU (train.py --pipeline-parallel-ablation runs two RL stages side by side)
    lands its kernels inside another stage's timed runs. The GPU is synchronised before the hold is given up, so
    no work queued under it runs on into a timing. Re-entrant within the process (a nested hold is the outer
    one: taking the gate again while holding the lock could wait on a timer that waits on us). A no-op on the CPU
    and for a CPU `device`. Never call a Judge while holding it: its timing would wait on this hold."""
    import torch
    if (device is not None and torch.device(device).type != "cuda") or not torch.cuda.is_available():
        yield
        return
    if _HOLD["depth"] > 0:
        _HOLD["depth"] += 1
        try:
            yield
        finally:
            _HOLD["depth"] -= 1
        return
    lock = _hold_lock(torch, device)
    lock.shared()
    _HOLD["depth"] = 1
    try:
        yield
    finally:
        try:
            torch.cuda.synchronize()
        finally:
            _HOLD["depth"] = 0
            lock.release()


@contextlib.contextmanager
def gpu_timing(device=None):
    """Time something in this process as a judge worker times a candidate: the GPU's timing lock held exclusive,
    so no other worker's or trainer's GPU work runs meanwhile (search.py's in-process timings of PyTorch
    fragments, which choose its hybrid plans). A no-op on the CPU; an error inside gpu_work (it would wait on its
    own hold)."""
    import torch
    if (device is not None and torch.device(device).type != "cuda") or not torch.cuda.is_available():
        yield
        return
    if _HOLD["depth"] > 0:
        raise RuntimeError("gpu_timing inside gpu_work: the exclusive hold would wait on this process's own")
    lock = _hold_lock(torch, device)
    torch.cuda.synchronize()
    lock.exclusive()
    try:
        yield
    finally:
        lock.release()


def _cuda_times(torch, fns, refill, inputs_for, trials, run_candidate, warmup=10, check=None, budget_s=None,
                min_trials=MIN_TIME_TRIALS, audit=None):
    """Per function name: `trials` device times in ms. Before each run of trial i its inputs are refilled from
    `inputs_for(i)` (one set per trial, the same for every fn) and L2 is flushed; only the run itself lies
    between the two events.

    What is timed is the device's work, not the host's launch latency: before the start event a spin kernel
    (`torch.cuda._sleep`) keeps the GPU busy for about twice the host time one call takes to enqueue
    (the median over the warm-ups, capped at 10 ms), so by the time the GPU reaches the start event the whole call
    is already queued and runs back to back. Without it, programs of a few microseconds (most KernelBench
    level-1/2 shapes) were timed as Python launch overhead plus host jitter: two timings of the same kernels
    disagreed by a median 5.9% and up to 4x on the H200 (LOG.md). A call that synchronises with the host
    inside forward still pays for it, since the GPU then waits on the host after the start event. So does
    any host computation on the inputs (numpy, Python loops): the inputs live on the GPU, and reading them
    on the host is a copy ordered after the start event. Only input-independent host work is hidden.
    With `budget_s`, the number of timed trials is cut (to no fewer than `min_trials`) so that they take about
    that long, estimated from the warm-ups' wall time: ~100 runs of a microsecond program cost nothing, but of a
    100 ms paper-size 3-d convolution (and its eager reference) they held the GPU lock for 20 s, during which
    no other worker could time anything (search on the H200, LOG.md). The median of >= 20 runs of a kernel that
    long is as stable as of 100 (each run is long against the clock's jitter); where one round takes
    LONG_ROUND_S or more, MIN_TIME_TRIALS_LONG runs are the floor (a 100 ms run is 10^4 times the clock's
    resolution, and such a candidate is rarely close to the fastest).
    `check(i, n, outs, inputs)`, if given, sees every fn's output of timed trial i of n (all fns ran on copies of
    that trial's input set `inputs`).
    `audit` ({name: (choose, run)}), if given: once the number of trials n is known, `choose(n)` names the trials
    of that fn that run as `run(fn)` instead (a recorded forward), untimed, in the place of a timed run; nothing
    before the call tells them apart, so a forward that changes what it does once the trials are over is seen
    doing it. Their times are left out (fewer than n times for that fn)."""
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")  # > L2 of any current GPU
    times = {k: [] for k in fns}
    order = list(fns)
    cycles_per_ms = _sleep_rate(torch)
    host_ms = {k: [] for k in fns}
    round_s = []  # wall time of one warm-up round of every fn, synchronised: what one timed trial will cost
    with torch.no_grad():
        for i in range(warmup):
            t_round = time.perf_counter()
            for k in order:
                t = time.perf_counter()
                run_candidate(fns[k], "runtime_error")  # enqueues; the host returns before the GPU is done
                if i > 0:  # the first call compiles and autotunes
                    host_ms[k].append((time.perf_counter() - t) * 1e3)
                torch.cuda.synchronize()
            if i > 0:
                round_s.append(time.perf_counter() - t_round)
                if budget_s is not None and i >= 2 and sum(round_s) > budget_s / 4:
                    break  # long runs: a couple of warm-ups settle them, more would only hold the lock
        if budget_s is not None and round_s:
            floor = min_trials if _median(round_s) < LONG_ROUND_S else min(min_trials, MIN_TIME_TRIALS_LONG)
            trials = min(trials, max(floor, int(budget_s / max(_median(round_s), 1e-9))))
        # Median, not max: one preempted warm-up on a busy host must not make every trial sleep for long.
        cushion = {k: int(cycles_per_ms * min(2 * _median(host_ms[k] or [0.0]) + 0.05, 10.0)) for k in fns}
        outs = {}
        audited = {k: set(choose(trials)) for k, (choose, _) in (audit or {}).items()}
        for i in range(trials):
            inputs = inputs_for(i)
            for k in (order if i % 2 == 0 else order[::-1]):  # alternate who goes first
                for dst, src in zip(refill[k], inputs):
                    if isinstance(dst, torch.Tensor):
                        dst.copy_(src)
                if i in audited.get(k, ()):
                    outs[k] = audit[k][1](fns[k])
                    torch.cuda.synchronize()
                    continue
                flush.zero_()
                torch.cuda._sleep(cushion[k])
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                outs[k] = run_candidate(fns[k], "runtime_error")
                end.record()
                torch.cuda.synchronize()
                times[k].append(start.elapsed_time(end))
            if check is not None:
                check(i, trials, outs, inputs)
    return times


def _sleep_rate(torch):
    """Cycles of `torch.cuda._sleep` per millisecond on this GPU (its clock as the spin loop sees it)."""
    n = 2_000_000
    torch.cuda._sleep(n // 10)  # wake the clocks
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(n)
    end.record()
    torch.cuda.synchronize()
    return n / max(start.elapsed_time(end), 1e-3)


def _counting_run(orig):
    def run(self, *args, **kwargs):
        if kwargs.get("warmup"):
            return orig(self, *args, **kwargs)
        _Launches.count += 1
        if _Launches.recorder is not None:
            _Launches.recorder.launched(args, kwargs)
        if _Launches.suppress:
            return None
        _Launches.depth += 1
        try:
            out = orig(self, *args, **kwargs)
        except BaseException:
            _Launches.raised = True
            raise
        finally:
            _Launches.depth -= 1
        if _Launches.recorder is not None and _Launches.recorder.pending:
            _Launches.recorder.after_launch()
        return out
    run.__wrapped__ = orig
    return run


def _call_recorded(call, rec, device):
    with rec:
        out = call()
    if device == "cuda":  # asynchronous CUDA errors surface here, attributed to the candidate
        import torch
        torch.cuda.synchronize()
    return out


def _sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def draw_inputs(torch, get_inputs, device, on_device=True):
    """A task's get_inputs() as a list with every tensor on `device`. on_device: run it with `device` as torch's
    default device, so its random draws happen there: an H200 draws GBs in milliseconds, and one CPU thread draws
    ~0.35 GB/s (KernelBench level 2's inputs are 22 GB in all, level 1's up to 8 GB a tensor). A get_inputs that
    cannot run that way raises one of DRAW_ERRORS, and the caller draws on the CPU instead (on_device False)."""
    with torch.device(device) if on_device else contextlib.nullcontext():
        inputs = list(get_inputs())
    return [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]


def _task_key(job):
    """A worker's cache key of a job's task: its source, seed and trial count (what its reference depends on)."""
    return _sha(job["task"] + str(job["seed"]) + str(job["trials"]))


def _import_file(path, name, register=True):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    if register:  # Triton and dataclasses look modules up by name while importing
        sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(name, None)
    return mod


REF_CHUNK_ELEMS = 1 << 24  # reference outputs are stored and compared this many elements at a time
REF_GPU_SHARE = 0.4        # a shared job keeps as many trials' reference outputs on the GPU as fit this share of
                           # its cap
EXCLUSIVE_FREE_SHARE = 0.85  # ... an exclusive retry as many as fit, with the job's working set, this share of the
                             # GPU memory free when it starts (ref_gpu_trials)


def ref_gpu_trials(out_bytes: float, trials: int, working: float, cap: float, host_room: float,
                   exclusive: bool = False, free: float | None = None) -> int:
    """How many trials' reference outputs a job keeps on the GPU (the first ones; the rest go to the host):
    `out_bytes` one trial's outputs, `working` the bytes the rest of the job holds at once besides them
    (working_bytes: 4 inputs' and 2 outputs' worth when only the candidate is timed, 5 and 4 when it, the eager
    reference and torch.compile are), `cap` the job's GPU cap, `host_room` what the host may take.

    A shared job keeps as many as fit REF_GPU_SHARE of its cap and, with the working set, the cap. An exclusive
    retry (an oom's; cap: the whole GPU) decides by the GPU memory `free` as it starts, which counts what the
    waiting workers' contexts and caches hold: as many as fit EXCLUSIVE_FREE_SHARE of it with the working set
    (none where nothing was measured). Either way, where the host has no room for the rest, as many as
    REF_GPU_SHARE of the cap allows stay on the GPU (L1 38_L1Norm_, 8.6 GB a tensor: 43 GB of outputs on the GPU
    left no room for its timing, which is still better than no verdict).

    Per trial, not all or none: a host copy is the slow part (the lab record: of the 29 s a level-1 activation's
    retry took, 21 s were its reference phase with 5 x 6.4 GB of copies to the host; a run on an H100's
    79 GB: 37 retries, 658 s of reference phases, where 2-4 of the 5 trials' outputs fit the GPU). A run of the lab record
    kept every exclusive retry's outputs on the host after four level-1 tasks ran out of GPU memory next to the
    waiting workers' caches under the cap's arithmetic; `free` is what answers that."""
    if out_bytes <= 0:
        return trials

    def fit(room):
        return max(0, min(trials, int(room // out_bytes)))
    share = fit(REF_GPU_SHARE * cap)
    if exclusive:
        n = fit(EXCLUSIVE_FREE_SHARE * free - working) if free is not None else 0
    else:
        n = min(share, fit(cap - working))
    if (trials - n) * out_bytes > host_room:
        n = max(n, share)
    return n


SHARED_WORKING_MAX = 1.1  # a shared job whose working set is over this multiple of its GPU cap runs alone


def working_set_over_share(working: float, cap: float) -> bool:
    """Whether a shared job's working set (working_bytes) is over SHARED_WORKING_MAX of its GPU cap: it would run
    out of memory in its trials whatever the answer, after a reference phase that copied its outputs to the host
    (level 1's activations: 5 x 6.4 GB, 24 s a task). Such a job stops after its first reference output and is
    run alone; the Judge remembers its task as it does a reference's oom. The slack keeps borderline tasks shared
    (level 1's reductions over 8 GB inputs, working set 32 GB against the H200's 31.5 GB share, were judged
    shared in a run of the lab record). cap 0: no cap."""
    return cap > 0 and working > SHARED_WORKING_MAX * cap


def timed_functions(job):
    """The functions a job times (Worker.time_candidate), by name: the candidate ("new"); the eager reference
    ("ref") unless the job's baseline (from the BaselineCache) has its time; each torch.compile baseline's (its
    COMPILE_BASELINES name) where the job measures it and the baseline has neither its time nor its failure. Empty for an untimed job."""
    if not job.get("time_trials"):
        return set()
    cached = job.get("baseline") or {}
    timed = {"new"} | ({"ref"} if cached.get("eager_ms") is None else set())
    for name in compile_baselines(job):
        stem = baseline_stem(name)
        if cached.get(f"{stem}_ms") is None and not cached.get(f"{stem}_failed"):
            timed.add(name)
    return timed


def working_bytes(job, in_bytes, out_bytes, draw_on_device=True):
    """What a job holds on the GPU at once besides its stored reference outputs (ref_gpu_trials' `working`), from
    one input set's and one output's bytes. Timing n functions holds n refill sets, the trial's fresh draw and
    the one before it (a draw is made while the last is held; three seeded sets rotate instead where the task
    cannot draw on the device), n outputs and one more (a run's new output while its last is held, or the spot
    check's reference). The correctness trials hold up to four input sets (the next draw and its contrast copy
    next to the last draw, and a copy of it where the answer process cannot fingerprint an input: _fingerprint)
    and two outputs; the answer process's own forward needs its intermediates beside these. With a cached eager time (level 1 on the
    H200 with a baseline cache) that is 4 inputs' and 2 outputs' worth, not the 5 and 4 of timing three
    functions: 37_FrobeniusNorm_'s 5 x 7 GB of outputs then stay on the GPU of an exclusive retry, where the
    host copies took 25-31 s of the judge's serial time per norm task (the lab record)."""
    n = len(timed_functions(job))
    in_sets = max(4, n + (2 if draw_on_device else 3))
    return in_sets * in_bytes + max(2, n + 1) * out_bytes


class _RefOut:
    """One reference output kept for comparison: flat and contiguous on `device`, read in chunks of
    REF_CHUNK_ELEMS elements (`chunks`), so a 6 GB output is never copied whole for a comparison. Kept in clear:
    no answer runs in the worker's process, and another process's kernels cannot address its GPU memory.
    device None: a view of `t` itself, without a copy (the timing's spot checks)."""

    def __init__(self, torch, t, device=None):
        t = t.detach()
        self.shape, self.dtype, self.numel = tuple(t.shape), t.dtype, t.numel()
        flat = t.contiguous().view(-1)
        self.has_nan, self.finite = False, True
        if t.dtype.is_floating_point:
            for a in range(0, self.numel, REF_CHUNK_ELEMS):
                c = flat[a:a + REF_CHUNK_ELEMS]
                self.has_nan = self.has_nan or bool(torch.isnan(c).any())
                self.finite = self.finite and bool(torch.isfinite(c).all())
        self.data = flat if device is None else flat.to(device, copy=True)
        self.nbytes = self.data.numel() * self.data.element_size()

    def chunks(self, torch):
        """(start, end, tensor of the elements [start, end) in self.dtype) over the flat output."""
        for a in range(0, self.numel, REF_CHUNK_ELEMS):
            b = min(a + REF_CHUNK_ELEMS, self.numel)
            yield a, b, self.data[a:b]


def whole_output_rule(rel, rtol, diff=None, ref=None, noise=None):
    """Why an output fails the whole-output rule, or None. Elementwise atol lets an output whose every value is
    below atol be answered by zeros; the relative L2 error of the whole output, ||out - ref|| / ||ref||, must
    also be within the dtype's rtol (an all-zeros answer has 1.0). Not applied where ||ref|| is 0. Where the
    reference is itself mostly rounding (the mean of a normalised tensor, zero in exact arithmetic), its norm says
    nothing: with `noise` = ||ref - ref_fp64|| (the reference's own error, reference_noise) the rule is
    ||out - ref|| <= rtol ||ref|| + NOISE_FACTOR * noise, which zeros still fail where the reference is
    well above its own rounding."""
    if rel is None or rel <= rtol:
        return None
    if noise is not None and diff is not None and ref is not None and diff <= rtol * ref + NOISE_FACTOR * noise:
        return None
    extra = f" + {NOISE_FACTOR} x the reference's own rounding {noise:.3g}" if noise is not None else ""
    return (f"relative error of the whole output ||out - ref|| / ||ref|| = {rel:.3g} > {rtol:g}{extra} "
            "(rule whole_output)")


NOISE_FACTOR = 10   # whole_output_rule: how many times the reference's own rounding an answer may add


def _chunked_close(torch, o, r, atol, rtol, isclose, equal, device, also_tol=None, whole=None):
    """(max |o - r| as a float, NaN -> inf; allclose) of output tensor `o` and _RefOut `r` (same shape and
    dtype), chunk by chunk on `device`: the same answer as torch.allclose(o, r, atol, rtol, equal_nan=r has a
    NaN) for floating dtypes and torch.equal otherwise, without fp64 copies of the whole output.
    The difference is taken in fp64 one chunk at a time, as the whole-output code did. With `also_tol` (an
    (atol, rtol) pair) a third value says whether the output is also close at that tolerance. With `whole` (a
    dict) the whole output's relative error ||o - r||_2 / ||r||_2 over the positions where the reference is
    finite goes into whole["rel"] (None where that norm is 0 or the dtype is not floating: whole_output_rule)."""
    o = o.detach()
    o = (o if o.is_contiguous() else o.contiguous()).view(-1)
    err, ok, ok_also = 0.0, True, True
    diff_sq, ref_sq = 0.0, 0.0
    for a, b, rc in r.chunks(torch):
        oc, rc = o[a:b].to(device, copy=True), rc.to(device)   # the answer's bytes read once per chunk
        if r.dtype.is_floating_point:
            d = oc.double() - rc.double()
            e = float(d.abs().max())
            if whole is not None:
                fin = torch.isfinite(rc)
                diff_sq += float(torch.where(fin, d, torch.zeros_like(d)).square().sum())
                ref_sq += float(torch.where(fin, rc.double(), torch.zeros_like(d)).square().sum())
            ok = ok and bool(isclose(oc, rc, rtol=rtol, atol=atol, equal_nan=r.has_nan).all())
            if also_tol is not None and ok_also:
                ok_also = bool(isclose(oc, rc, rtol=also_tol[1], atol=also_tol[0], equal_nan=r.has_nan).all())
        else:
            e = float((oc.long() - rc.long()).abs().max())
            ok = ok and equal(oc, rc)
            ok_also = ok_also and ok
        err = max(err, e if e == e else float("inf"))
    if whole is not None:
        whole["rel"] = math.sqrt(diff_sq / ref_sq) if ref_sq > 0 and diff_sq == diff_sq else (
            float("inf") if ref_sq > 0 else None)
        whole["diff"], whole["ref"] = math.sqrt(diff_sq) if diff_sq == diff_sq else float("inf"), math.sqrt(ref_sq)
    return (err, ok) if also_tol is None else (err, ok, ok_also)


class _Stored:
    """A reference output (a tensor, or a tuple/list of tensors) as kept: `container` (None for one tensor, else
    tuple or list) and one _RefOut per tensor."""

    def __init__(self, torch, out, device=None):
        if isinstance(out, torch.Tensor):
            self.container, self.refs = None, [_RefOut(torch, out, device)]
        elif isinstance(out, (tuple, list)) and all(isinstance(o, torch.Tensor) for o in out):
            self.container, self.refs = type(out), [_RefOut(torch, o, device) for o in out]
        else:
            raise TypeError(f"reference output must be a tensor or a tuple/list of tensors, got {type(out).__name__}")
        self.nbytes = sum(r.nbytes for r in self.refs)


def _output_bytes(torch, out):
    ts = [out] if isinstance(out, torch.Tensor) else list(out)
    return sum(t.numel() * t.element_size() for t in ts if isinstance(t, torch.Tensor))


def _poison(torch, t):
    if t.is_floating_point() or t.is_complex():
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(torch.iinfo(t.dtype).max)


def _poison_tree(torch, out):
    for t in ([out] if isinstance(out, torch.Tensor) else out):
        _poison(torch, t.detach())


def _is_oom(torch, e):
    text = str(e)
    text = text.lower()
    return (isinstance(e, (MemoryError, torch.OutOfMemoryError)) or "out of memory" in text
            or "can't allocate memory" in text or "cannot allocate memory" in text)


def _partial(v, **over):
    return {"compiled": v.compiled, "triton_launches": v.triton_launches, "torch_ops": v.torch_ops,
            "flags": v.flags, "max_abs_err": v.max_abs_err, "timings": v.timings, **over}


def _describe(e):
    """Exception type, message and the last candidate-file line of its traceback. A message over 1,500 characters
    keeps its head and its tail: Triton's CompilationError shows the kernel's source first and the reason last
    (a level-1 conv answers that load a None bias lost the reason to a 1,500-character cut)."""
    import traceback
    where = ""
    for fr in traceback.extract_tb(e.__traceback__):
        if os.path.basename(fr.filename) == ANSWER_FILE:
            where = f" (solution line {fr.lineno}: {(fr.line or '').strip()[:120]})"
    text = str(e)
    if len(text) > 1500:
        text = f"{text[:600]} [... {len(text) - 1500} characters ...] {text[-900:]}"
    return f"{type(e).__name__}: {text}{where}"


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


# ----------------------------------------------------------------------------------------------------
# Parent side: the pool. Nothing here imports torch or runs candidate code.

_SECRET = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|_KEY$|AUTH|COOKIE|SESSION", re.IGNORECASE)
_ENV_KEEP = {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "LANG", "LC_ALL",
             "TZ", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "NVIDIA_VISIBLE_DEVICES",
             "NVIDIA_DRIVER_CAPABILITIES", "TRITON_INTERPRET", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH",
             "TRITON_CUDART_PATH", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS"}


WORKER_LOCK_ENV = "DRTRITON_GPU_LOCK"  # a worker's environment: [lock_dir, GPU uuid] of the GPU lock, as JSON


def _worker_env(tmp, device, lock=None):
    """The worker's whole environment: an allowlist minus anything that looks like a credential, with
    HOME, TMPDIR and every cache dir pointing into the worker's own temp dir; `lock` ([lock_dir, uuid]) names
    the GPU lock its start-up takes (_serve)."""
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP and not _SECRET.search(k)}
    if lock:
        env[WORKER_LOCK_ENV] = json.dumps(lock)
    import site
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and os.path.isdir(user_site):  # HOME moves, so keep a --user install importable
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), user_site]))
    env.update(HOME=tmp, TMPDIR=tmp, TRITON_CACHE_DIR=os.path.join(tmp, "triton"), PYTHONDONTWRITEBYTECODE="1",
               XDG_CACHE_HOME=os.path.join(tmp, ".cache"), TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"))
    # numpy's OpenBLAS starts (cores - 1) threads when torch imports numpy: a zygote with threads must not fork,
    # and threads_per_worker budgets a worker's threads (the Triton interpreter's tl.dot is a numpy matmul).
    env["OPENBLAS_NUM_THREADS"] = "1"
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"      # Triton runs on CPU only through its interpreter
        env["CUDA_VISIBLE_DEVICES"] = ""
    else:
        env.pop("TRITON_INTERPRET", None)
    return env


def _start_child(args, tmp, log_name, device, pass_fds, lock=None):
    """`python reward.py ARGS` as the judge starts its own processes (a spawned worker, the zygote): the
    environment from `_worker_env`, cwd `tmp`, its own session (so its process group can be killed whole), the
    given descriptors passed, output to `tmp/log_name`."""
    log = open(os.path.join(tmp, log_name), "wb")
    try:
        return subprocess.Popen([sys.executable, "-u", REWARD_PATH, *args], cwd=tmp,
                                env=_worker_env(tmp, device, lock),
                                pass_fds=pass_fds, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    finally:
        log.close()


def _file_tail(path, n=2000):
    """The last n bytes of a log as text ("" if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read()[-n:].decode(errors="replace")
    except OSError:
        return ""


class _Zygote:
    """The Judge's handle on its zygote (`_zygote_main`): start it, have it fork a worker, collect the exit codes
    it reports. `dead` is None while it lives, else why it is gone (its workers died with it)."""

    def __init__(self, root, device):
        import socket
        self.tmp = tempfile.mkdtemp(prefix="zygote-", dir=root)
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = _start_child(["--zygote", str(theirs.fileno()), device], self.tmp, "zygote.log",
                                     device, (theirs.fileno(),))
        except OSError:
            self.sock.close()
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise
        finally:
            theirs.close()
        self.started = time.monotonic()
        self.ready, self.ready_at = False, None
        self.dead = None
        self.exits = {}  # pid -> exit code (Popen's convention) of a worker it forked

    def fileno(self):
        return self.sock.fileno()

    def fork(self, request, fds, timeout_s=30.0):
        """("forked", pid), ("refused", why) or ("lost", why): the zygote is gone or did not answer (it answers in
        milliseconds; the Judge's event loop waits meanwhile)."""
        import socket
        if self.dead is None:
            try:
                socket.send_fds(self.sock, [json.dumps(request).encode()], list(fds))
            except OSError as e:
                self.lose(f"refused a request ({e})")
        deadline = time.monotonic() + timeout_s
        while self.dead is None:
            msg = self.read(deadline - time.monotonic())
            if msg is not None and msg["type"] in ("forked", "refused"):
                return msg["type"], msg.get("pid") or msg.get("why")
            if msg is None and time.monotonic() > deadline:
                self.lose(f"did not answer a fork request within {timeout_s:g} s")
        return "lost", self.dead

    def wait(self, pid, timeout=None):
        """The exit code of worker `pid` once the zygote reports it; None if the zygote is gone (the worker died
        with it, and nobody saw how). Raises subprocess.TimeoutExpired as Popen.wait does."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while pid not in self.exits and self.dead is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"worker {pid}", timeout)
            self.read(left)
        return self.exits.get(pid)

    def release(self, pid):
        """The Judge is done with worker `pid` (its group is killed): the zygote may reap it."""
        self.exits.pop(pid, None)
        if self.dead is None:
            try:
                self.sock.send(json.dumps({"op": "release", "pid": pid}).encode())
            except OSError as e:
                self.lose(f"refused a request ({e})")

    def poll(self):
        """Handle every message already waiting (ready, exit reports)."""
        while self.dead is None and self.read(0.0) is not None:
            pass

    def read(self, timeout):
        """One message, waiting at most `timeout` seconds (None: forever); None if there was none."""
        if self.dead is not None:
            return None
        readable, _, _ = select.select([self.sock], [], [], None if timeout is None else max(timeout, 0.0))
        if not readable:
            return None
        try:
            data = self.sock.recv(1 << 16)
        except OSError as e:
            return self.lose(f"broke its socket ({e})")
        if not data:
            try:
                rc = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                rc = None
            return self.lose(f"exited with code {rc}")
        try:
            msg = json.loads(data)
        except ValueError as e:
            return self.lose(f"sent an unreadable message ({e})")
        if msg.get("type") == "ready":
            self.ready, self.ready_at = True, time.monotonic()
        elif msg.get("type") == "exit":
            self.exits[msg["pid"]] = msg["rc"]
        return msg

    def lose(self, why):
        if self.dead is None:
            self.dead = why

    def close(self):
        """Kill the zygote (its idle workers die with it: PR_SET_PDEATHSIG) and remove its files."""
        self.lose("closed")
        self.sock.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        shutil.rmtree(self.tmp, ignore_errors=True)


class _Forked:
    """A worker forked by the zygote: what the Judge uses of a Popen (pid, wait) backed by the zygote's exit
    reports, and release(), which lets the zygote reap it."""

    def __init__(self, zygote, pid):
        self.zygote, self.pid, self.returncode = zygote, pid, None

    def wait(self, timeout=None):
        if self.returncode is None:
            self.returncode = self.zygote.wait(self.pid, timeout)
        return self.returncode

    def release(self):
        self.zygote.release(self.pid)


class _Slot:
    """One worker process and the job it is running."""

    def __init__(self):
        self.proc = None
        self.tmp = self.job_w = self.res_r = None
        self.buf = b""
        self.ready = False
        self.job = None          # index into the current batch
        self.nonce = None
        self.started = self.dispatched = self.deadline = 0.0
        self.paused_at = None    # set while the worker does judge work (GPU lock wait, reference, compile baseline)
        self.task = self.sol = self.first_oom = None  # the job's sources; first_oom: set on its exclusive retry
        # exclusive from its first attempt: an earlier job's reference of its task ran out of memory
        self.big_task = False
        self.rss_cap, self.rss_text = 0.0, ""         # the host RSS cap of the running job
        self.n_done = 0


class Judge:
    """Pool of sandboxed worker processes that verify (task, solution) pairs. See the module docstring.

    Judge(workers, device, timeout_s, policy, trials, atol, rtol, time_trials, compile_baseline) starts the
    workers at once (each imports torch and triton once, then serves many candidates); use it as a context
    manager or call close(). Host memory: on CPU an address-space rlimit of `mem_limit_gb`; on any device the
    parent kills a worker whose resident memory passes its RSS cap (checked every <= 0.5 s; CUDA workers
    cannot take an address-space limit, and a candidate filling host RAM must not take the trainer down with
    it). GPU memory: each CUDA worker's caching allocator is capped and gives cached blocks back after a job
    that left more than 2 GB reserved. The caps: `rss_limit_gb` and `gpu_mem_limit_gb` as given, or None
    (default): derived by `memory_caps` from the host's memory, the GPU's (reported by the first worker) and
    `workers`. oom_retry (None: on for CUDA, off for CPU, whose memory is the trainer's too): a job whose verdict
    is oom runs once more on a worker that holds the GPU lock exclusively, with the GPU cap lifted to the whole
    GPU and the RSS cap to most of the host (on the CPU, when asked for: the RSS cap lifted and the address-space
    rlimit removed); that worker is replaced afterwards. An answer is imported and built in its own process
    before its task's reference is computed, so an answer that cannot be built costs no reference.
    autotune_baseline: also time torch.compile(mode="max-autotune") (COMPILE_BASELINES).
    baseline_cache: path of a BaselineCache file (None: none); cached eager/compile times of a task on this
    GPU go out with its job and are not timed again, and times measured go into the file. A worker is replaced after `recycle_every` candidates, after a verdict whose
    error type is in `recycle_errors` (default RECYCLE_ERRORS; RECYCLE_ERRORS_CAUTIOUS also replaces it after
    compile errors and unusable ModelNew classes), after an exclusive retry, and after any candidate that left
    a critical function patched.

    start_method: how a worker starts (module docstring). "zygote" (default on Linux): forked by one helper
    process that imported torch and triton once; the Judge falls back to "spawn" for good, with one line on
    stderr and the reason in `spawn_reason`, if the zygote refuses to fork (it found a thread or CUDA) or cannot
    be started. "spawn": a fresh `python reward.py --worker` per worker. A zygote that dies is restarted,
    counted as a failed worker start; its workers die with it and their candidates get worker_died."""

    def __init__(self, workers=2, device="cpu", timeout_s=60.0, policy="hybrid", trials=5, atol=None, rtol=None,
                 time_trials=100, compile_baseline=False, *, autotune_baseline=False, time_budget_s=TIME_BUDGET_S,
                 strict_tol=False,
                 recycle_every=50, recycle_errors=None,
                 mem_limit_gb=8.0, rss_limit_gb=None, gpu_mem_limit_gb=None, oom_retry=None, baseline_cache=None,
                 seed=None, static_gate=True, threads_per_worker=1, startup_timeout_s=300.0, spare_workers=None, start_method=None,
                 ):
        if device not in ("cpu", "cuda"):
            raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        if workers < 1 or trials < 1:
            raise ValueError("workers and trials must be >= 1")
        linux = sys.platform.startswith("linux")
        start_method = start_method or ("zygote" if linux else "spawn")
        if start_method not in ("zygote", "spawn") or (start_method == "zygote" and not linux):
            raise ValueError(f"start_method must be 'spawn' or, on Linux, 'zygote'; got {start_method!r}")
        self.device, self.timeout_s, self.policy, self.trials = device, float(timeout_s), policy, int(trials)
        self.workers = int(workers)
        self.time_trials, self.compile_baseline = int(time_trials), bool(compile_baseline)
        self.autotune_baseline = bool(autotune_baseline)  # torch.compile(mode="max-autotune") timed too
        # None: trial seeds drawn fresh for every verify_many call (an answer cannot learn them from an earlier
        # judging); an int: that seed for every call, which reproduces a verdict (it is in Verdict.seed)
        self.seed = None if seed is None else int(seed)
        # False only in tests of the layers beneath the gate (the sandbox, memory caps, crash reports), which need
        # answers that do what the gate refuses; never when judging model output
        self.static_gate = bool(static_gate)
        self.call_seed = None
        self.time_budget_s = float(time_budget_s) if time_budget_s else None  # None or 0: every time_trials run
        self.recycle_every, self.mem_limit_gb, self.threads = int(recycle_every), float(mem_limit_gb), int(threads_per_worker)
        self.recycle_errors = sorted(RECYCLE_ERRORS if recycle_errors is None else recycle_errors)
        # Memory caps: None derives them from the machine and `workers` (memory_caps); a number is
        # the per-worker cap as given. The GPU's size comes with the first worker's ready message.
        self.rss_limit_arg, self.gpu_mem_limit_arg = rss_limit_gb, gpu_mem_limit_gb
        self.host_total_gb, self.gpu_total_gb = _host_memory_gb(), 0.0
        self.oom_retry = device == "cuda" if oom_retry is None else bool(oom_retry)
        self.rss_limit_gb = self._caps(False)["rss_gb"]
        self.gpu_mem_limit_gb = None  # known once a CUDA worker is ready
        self.device_info = None  # {"gpu", "gpu_total_gb", "torch", "triton"} from the first ready worker
        self.baseline_cache = BaselineCache(baseline_cache) if baseline_cache else None
        self.startup_timeout_s = float(startup_timeout_s)
        table = STRICT_TOLERANCES if strict_tol else TOLERANCES
        self.atol_rtol = {k: (a if atol is None else atol, r if rtol is None else rtol) for k, (a, r) in table.items()}
        self.root = tempfile.mkdtemp(prefix="drtriton-judge-")
        self.lock_dir = judge_lock_dir()
        os.makedirs(self.lock_dir, exist_ok=True)
        self.startup_failures = 0
        # (seconds since this Judge was made, the worker's own init seconds) per worker that became ready
        self.created, self.ready_log = time.monotonic(), []
        self._retries = []  # (index, task, solution, first oom message): jobs to run again exclusively
        self._big_tasks = {}  # sha256 of a task whose reference ran out of memory under a share -> why (_dispatch)
        self.dispatch_log = []  # (job index, alone?, other jobs in flight) per dispatch of the last verify_many call
        self._queued = collections.Counter()  # sha256 of a task -> its jobs of this verify_many not yet dispatched
        self.closed = False
        self.start_method, self.spawn_reason = start_method, None
        self.zygote = None  # _Zygote while start_method is "zygote" (or while workers it forked live)
        # Spare workers start while others run, so replacing a recycled worker costs no startup latency;
        # at most `workers` candidates run at once. A worker takes seconds to start (torch, dynamo, CUDA), and
        # early RL batches recycle often (a runtime error recycles), so one spare left the pool waiting on
        # restarts (bench.py verify: 3 s of worker time in 4 s of wall after startup on CPU without spares).
        if spare_workers is None:
            spare_workers = max(0, min(max(1, workers // 2), (os.cpu_count() or 1) - workers))
        self.slots = [_Slot() for _ in range(workers + spare_workers)]
        for s in self.slots:
            self._start(s)
        import atexit
        atexit.register(self.close)

    def _caps(self, exclusive):
        """The caps of one job, in GB and in words (the words go into oom messages): host RSS (the parent's
        watchdog), host address space (CPU workers' rlimit) and GPU (the worker's caching allocator)."""
        derived = memory_caps(self.host_total_gb, self.gpu_total_gb, self.workers)
        on = f"{self.workers} worker{'s' * (self.workers > 1)} on"
        if exclusive:
            rss = max(derived["rss_exclusive_gb"], float(self.rss_limit_arg or 0.0))
            gpu = derived["gpu_exclusive_gb"]
            rss_text = f"host RSS cap {rss:.1f} GB (exclusive retry: {CAP_HOST_SHARE:g} of {self.host_total_gb:.1f} GB)"
            gpu_text = f"GPU cap {gpu:.1f} GB (exclusive retry: the whole GPU)"
        else:
            rss = derived["rss_gb"] if self.rss_limit_arg is None else float(self.rss_limit_arg)
            gpu = derived["gpu_gb"] if self.gpu_mem_limit_arg is None else float(self.gpu_mem_limit_arg)
            rss_text = (f"host RSS cap {rss:.1f} GB per worker ({on} {self.host_total_gb:.1f} GB)"
                        if self.rss_limit_arg is None else f"host RSS cap {rss:g} GB per worker (rss_limit_gb)")
            gpu_text = (f"GPU cap {gpu:.1f} GB per worker ({on} {self.gpu_total_gb:.1f} GB)"
                        if self.gpu_mem_limit_arg is None else f"GPU cap {gpu:g} GB per worker (gpu_mem_limit_gb)")
        if self.device == "cpu" and self.mem_limit_gb > 0 and not exclusive:
            host_text = f"host address-space cap {self.mem_limit_gb:g} GB per worker (mem_limit_gb)"
        else:
            host_text = f"the host's memory ran out ({rss_text})"
        return {"rss_gb": rss, "rss_text": rss_text, "gpu_gb": gpu if self.device == "cuda" else 0.0,
                "gpu_text": gpu_text, "host_text": host_text}

    # --- public API -----------------------------------------------------------------------------------

    def verify(self, task_source, solution_source):
        return self.verify_many([(task_source, solution_source)], progress=False)[0]

    def verify_many(self, pairs, completions=False, progress=True):
        """Verdicts for [(task_source, solution_source), ...] in input order. With completions=True the
        second element is raw model text; extraction failures become verdicts, never exceptions."""
        if self.closed:
            raise RuntimeError("Judge is closed")
        pairs = list(pairs)
        results = [None] * len(pairs)
        pending = []
        for i, (task, sol) in enumerate(pairs):
            try:
                sol = extract_solution(sol) if completions else sol
            except SolutionError as e:
                results[i] = _failed(e.error_type, str(e))
                continue
            if not isinstance(task, str):
                results[i] = _failed("task_error", f"task source must be str, got {type(task).__name__}")
                continue
            if not isinstance(sol, str) or len(sol) > MAX_SOLUTION_CHARS:
                results[i] = _failed("too_long", f"solution is not a str of <= {MAX_SOLUTION_CHARS} chars")
                continue
            pending.append((i, task, sol, None))
        pending.reverse()  # pop() from the end keeps input order of dispatch
        self._queued = collections.Counter(_sha(task) for _, task, _, _ in pending)
        self.call_seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(6), "little")
        bar = _progress_bar(len(pairs), progress)
        if bar is not None:
            bar.update(len(pairs) - len(pending))
        self._retries = []
        # Jobs that run alone (the retry of an oom, every job of a task known too big for a share) wait until no
        # shared job is left, then go one at a time with nothing else in flight: a job paused between its GPU
        # steps keeps its memory, so an exclusive job dispatched beside one found the GPU full (the lab record:
        # two level-2 retries ran out of memory next to 35 GB of another job's references) and stalled every
        # other job's steps while it held the lock.
        alone = collections.deque()
        self.dispatch_log = []
        while pending or alone or self._retries or any(s.job is not None for s in self.slots):
            alone.extend(self._retries)
            self._retries.clear()
            busy = sum(s.job is not None for s in self.slots)
            for s in self.slots:
                if s.proc is None:
                    self._start(s)
                if not (s.ready and s.job is None):
                    continue
                while pending and self._runs_alone(pending[-1][1], pending[-1][3]):
                    alone.append(pending.pop())
                if pending and busy < self.workers:
                    job, by_itself = pending.pop(), False
                elif not pending and alone and busy == 0:
                    job, by_itself = alone.popleft(), True
                else:
                    continue
                self.dispatch_log.append((job[0], by_itself, sum(x.job is not None for x in self.slots)))
                self._dispatch(s, *job)
                busy += 1
            self._pump(results, bar)
        if bar is not None:
            bar.close()
        return results

    def _pump(self, results, bar):
        """One round of the event loop: wait (<= 0.5 s, or until the next candidate deadline) for worker
        messages and handle them, then enforce the limits: wall clock, judge-side pauses, host memory, and
        worker startup time."""
        now = time.monotonic()
        waits = [s.deadline - now for s in self.slots if s.job is not None and s.paused_at is None]
        fds = {s.res_r: s for s in self.slots if s.proc is not None}
        z = self.zygote if self.zygote is not None and self.zygote.dead is None else None
        readable, _, _ = select.select(list(fds) + ([z] if z else []), [], [],
                                       min([0.5] + [max(w, 0.0) for w in waits]))
        if z in readable:
            z.poll()  # ready, exit reports
        for fd in readable:
            if fd is not z:
                self._on_readable(fds[fd], results, bar)
        now = time.monotonic()
        if z is not None and not z.ready and z.dead is None and now - z.started > self.startup_timeout_s:
            z.lose(f"was not ready after {self.startup_timeout_s:g} s")  # restarted, and counted, by _start
        for s in self.slots:
            if s.proc is None:
                continue
            if s.job is not None and s.paused_at is None and now > s.deadline:
                self._finish(s, results, bar, _failed(
                    "timeout", f"no verdict within {self.timeout_s:g} s; worker process group killed"))
                self._kill(s)
            elif s.job is not None and s.paused_at is not None and now - s.paused_at > 600.0:
                self._finish(s, results, bar, _failed("timeout", "judge-side pause (GPU lock or compile "
                                                      "baseline) lasted over 600 s; worker killed"))
                self._kill(s)
            elif s.job is not None and s.rss_cap > 0 and _rss_gb(s.proc.pid) > s.rss_cap:
                self._finish(s, results, bar, _failed(
                    "oom", f"worker host memory (RSS) passed the {s.rss_text}; worker process group killed"))
                self._kill(s)
            elif not s.ready and now - s.started > self.startup_timeout_s:
                self._kill(s)
                self._startup_failed(f"worker not ready after {self.startup_timeout_s:g} s")

    def wait_ready(self):
        """Block until every worker has started (imported torch and triton, or was forked from the zygote that
        did, and initialised its device), so a caller can start the judge early and overlap its startup with
        other work, and a benchmark can time verification apart from startup. A worker that dies or hangs in
        startup is restarted as in verify_many; three failed starts in a row close the judge (RuntimeError on
        the next call)."""
        while not self.closed and not all(s.ready for s in self.slots):
            for s in self.slots:
                if s.proc is None:
                    self._start(s)
            self._pump([], None)  # no job is out: only startup messages, exits and startup limits
        if self.closed:
            raise RuntimeError("Judge is closed: its workers failed to start")

    def close(self):
        if getattr(self, "closed", True):
            return
        self.closed = True
        for s in self.slots:
            self._kill(s)
        if self.zygote is not None:
            self.zygote.close()
            self.zygote = None
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    # --- workers --------------------------------------------------------------------------------------

    def _start(self, s):
        """Start a worker in slot s: forked by the zygote or spawned (start_method). While the zygote is still
        importing, s stays empty; verify_many and wait_ready call this again for every empty slot."""
        s.__init__()
        if self.start_method == "zygote" and not self._zygote_ready():
            return
        s.tmp = tempfile.mkdtemp(prefix="w-", dir=self.root)
        job_r, s.job_w = os.pipe()
        s.res_r, res_w = os.pipe()
        try:
            if self.start_method == "zygote":
                s.proc = self._fork(s.tmp, job_r, res_w)  # None: refused (now "spawn") or the zygote is gone
            if s.proc is None and self.start_method == "spawn":
                s.proc = self._spawn(s.tmp, job_r, res_w)
        finally:
            os.close(job_r)
            os.close(res_w)
        if s.proc is None:  # the zygote died while forking: the slot waits for its restart
            return self._kill(s)
        s.started = time.monotonic()

    def _spawn(self, tmp, job_r, res_w):
        args = ["--worker", str(job_r), str(res_w), self.device, str(self.mem_limit_gb), str(self.threads)]
        return _start_child(args, tmp, "worker.log", self.device, (job_r, res_w), self._worker_lock())

    def _worker_lock(self):
        """[lock_dir, uuid] of the GPU lock a new worker's start-up takes, once the first worker reported the GPU;
        None on the CPU and before that."""
        uuid = (self.device_info or {}).get("gpu_uuid")
        return [self.lock_dir, uuid] if self.device == "cuda" and uuid else None

    def _fork(self, tmp, job_r, res_w):
        request = {"op": "fork", "tmp": tmp, "env": _worker_env(tmp, self.device, self._worker_lock()),
                   "device": self.device,
                   "mem_limit_gb": self.mem_limit_gb, "threads": self.threads}
        kind, value = self.zygote.fork(request, (job_r, res_w))
        if kind == "forked":
            return _Forked(self.zygote, value)
        if kind == "refused":
            self._use_spawn(f"the zygote refused to fork: {value}")
        return None

    def _zygote_ready(self):
        """True once the zygote can fork (or the judge fell back to spawn); (re)starts a missing or dead one.
        A dead zygote counts as a failed worker start."""
        z = self.zygote
        if z is not None and z.dead is not None:
            self.zygote = None
            tail = _file_tail(os.path.join(z.tmp, "zygote.log"))
            z.close()
            self._startup_failed(f"the zygote {z.dead}:\n{tail}")  # the third in a row closes the judge
            if self.closed:
                return False
        if self.zygote is None:
            try:
                self.zygote = _Zygote(self.root, self.device)
            except OSError as e:
                self._use_spawn(f"the zygote did not start ({e})")
                return True
        return self.zygote.ready

    def _use_spawn(self, why):
        """From now on workers are spawned. The zygote, if any, lives on for the workers it forked."""
        self.start_method, self.spawn_reason = "spawn", why
        print(f"judge: starting workers with subprocess from now on: {why}", file=sys.stderr)

    def _dispatch(self, s, i, task, sol, first_oom=None):
        """Send job i to slot s. first_oom: the oom message of its first attempt; this is then the retry, run
        exclusively (the whole GPU, most of the host). A job whose task's reference already ran out of memory
        under a worker's share in this Judge runs exclusively from its first attempt (flag "exclusive_task"; like
        every exclusive job it waits until no shared job is left, verify_many): every candidate of a
        KernelBench-sized task would pay that failed first attempt (each plan of a sweep, each sample of pass@k)."""
        s.big_task = first_oom is None and self._runs_alone(task, None)
        if first_oom is None:
            self._queued[_sha(task)] -= 1
        if s.big_task:
            first_oom = self._big_tasks[_sha(task)]
        s.job, s.nonce = i, os.urandom(16).hex()
        s.task, s.sol, s.first_oom = task, sol, first_oom
        caps = self._caps(exclusive=first_oom is not None)
        s.rss_cap, s.rss_text = caps["rss_gb"], caps["rss_text"]
        baseline = None
        if self.baseline_cache is not None and self.device_info is not None:
            baseline = self.baseline_cache.get(self._baseline_key(task))
        s.dispatched = time.monotonic()
        s.deadline = s.dispatched + self.timeout_s
        job = {"type": "job", "nonce": s.nonce, "task": task, "solution": sol, "policy": self.policy,
               "trials": self.trials, "atol_rtol": self.atol_rtol, "time_trials": self.time_trials,
               "time_budget_s": self.time_budget_s,
               "compile_baseline": self.compile_baseline, "autotune_baseline": self.autotune_baseline,
               "seed": self.call_seed, "static_gate": self.static_gate, "lock_dir": self.lock_dir,
               "recycle_every": self.recycle_every, "recycle_errors": self.recycle_errors,
               "caps": caps, "exclusive": first_oom is not None, "mem_limit_gb": self.mem_limit_gb,
               "baseline": baseline,
               # whether the worker keeps a large reference cached after this job: only while more jobs of its task
               # wait in this call (Worker.drop_large_task)
               "task_queued": self._queued[_sha(task)] > 0}
        try:
            _send(s.job_w, job)
        except OSError:  # the worker died while idle; its EOF is handled by _on_readable
            pass

    def _runs_alone(self, task, first_oom):
        """Whether a job runs exclusively: the retry of an oom (first_oom), or a job of a task whose reference ran
        out of memory under a share, in this Judge or, per the baseline cache, in an earlier one."""
        if first_oom is not None:
            return True
        if not self.oom_retry:
            return False
        if _sha(task) not in self._big_tasks:
            known = self._cached_ref_oom(task)
            if known:
                self._big_tasks[_sha(task)] = known
        return _sha(task) in self._big_tasks

    def _on_readable(self, s, results, bar):
        try:
            data = os.read(s.res_r, 1 << 20)
        except OSError:
            data = b""
        if not data:
            return self._on_exit(s, results, bar)
        s.buf += data
        while len(s.buf) >= 8:
            (n,) = struct.unpack("<Q", s.buf[:8])
            if n > MAX_MESSAGE_BYTES:
                return self._protocol_error(s, results, bar, f"message of {n} bytes")
            if len(s.buf) < 8 + n:
                return
            body, s.buf = s.buf[8:8 + n], s.buf[8 + n:]
            try:
                msg = json.loads(body)
                kind = msg["type"]
            except (ValueError, KeyError, TypeError):
                return self._protocol_error(s, results, bar, "unparseable message")
            if kind == "ready" and not s.ready and s.job is None:
                s.ready = True
                self.startup_failures = 0
                if self.device_info is None:
                    self.device_info = {k: msg.get(k) for k in ("gpu", "gpu_total_gb", "torch", "triton", "gpu_uuid")}
                    self.gpu_total_gb = float(msg.get("gpu_total_gb") or 0.0)
                    if self.device == "cuda":
                        self.gpu_mem_limit_gb = self._caps(False)["gpu_gb"]
                self.ready_log.append((round(time.monotonic() - self.created, 3), msg.get("init_s")))
                continue
            if s.job is None or msg.get("nonce") != s.nonce:
                return self._protocol_error(s, results, bar, f"unexpected {kind!r} message")
            if kind == "pause":  # the worker waits for the GPU lock or compiles the baseline
                s.paused_at = time.monotonic()
            elif kind == "resume" and s.paused_at is not None:
                s.deadline += time.monotonic() - s.paused_at  # judge time is not billed to the candidate
                s.paused_at = None
            elif kind == "result":
                try:
                    v = Verdict.from_dict(msg["verdict"])
                except (KeyError, TypeError) as e:
                    return self._protocol_error(s, results, bar, f"bad verdict: {e}")
                v.timings["verify_s"] = round(time.monotonic() - s.dispatched, 4)
                if self.baseline_cache is not None and self.device_info is not None:
                    measured = measured_baselines(v)
                    if measured:
                        self.baseline_cache.put(self._baseline_key(s.task), **measured)
                self._finish(s, results, bar, v)
                s.n_done += 1
                if msg.get("recycle") or s.n_done >= self.recycle_every:
                    self._kill(s)
                    return
            else:
                return self._protocol_error(s, results, bar, f"unknown message type {kind!r}")

    def _on_exit(self, s, results, bar):
        rc = None
        if s.proc is not None:
            try:
                rc = s.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        # A forked worker whose zygote died was killed with it (PR_SET_PDEATHSIG); its exit code is lost.
        lost = isinstance(s.proc, _Forked) and rc is None and s.proc.zygote.dead is not None
        if s.job is not None:
            if rc is not None and rc < 0:
                name = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
                v = _failed("worker_crashed", f"worker killed by signal {name} while running the candidate")
            elif lost:
                v = _failed("worker_died", f"worker died with its zygote (which {s.proc.zygote.dead}) before "
                                           "reporting a verdict")
            else:
                v = _failed("worker_died", f"worker exited with code {rc} before reporting a verdict")
            self._finish(s, results, bar, v)
        elif not s.ready and not lost:  # (the zygote's death is counted once, when it is restarted)
            tail = _file_tail(os.path.join(s.tmp, "worker.log"))
            self._kill(s)
            return self._startup_failed(f"worker exited with code {rc} during startup:\n{tail}")
        self._kill(s)

    def _protocol_error(self, s, results, bar, why):
        if s.job is not None:
            self._finish(s, results, bar, _failed("protocol_error", f"worker sent a bad message: {why}"))
        self._kill(s)

    def _finish(self, s, results, bar, v):
        if v.seed is None:
            v.seed = self.call_seed
        if v.error_type == "oom" and self.oom_retry and s.first_oom is None:
            # Out of memory under a per-worker share: judged again alone on the GPU
            self._retries.append((s.job, s.task, s.sol, v.error_msg))
            if "oom_in_reference" in v.flags:
                self._big_tasks[_sha(s.task)] = f"an earlier job of this task: {v.error_msg[:400]}"
                if self.baseline_cache is not None and self.device_info is not None:
                    self.baseline_cache.put(self._baseline_key(s.task), ref_oom=v.error_msg[:400],
                                            ref_oom_share_gb=self._share_gb())
            s.job = s.nonce = s.paused_at = None
            return
        if s.big_task:
            v.flags.append("exclusive_task")
        elif s.first_oom is not None:
            v.flags.append("oom_retried_exclusive")
            if v.error_type:
                v.error_msg = f"{v.error_msg} (first attempt: {s.first_oom[:500]})"[:4000]
        results[s.job] = v
        s.job = s.nonce = s.paused_at = None
        if bar is not None:
            bar.update(1)

    def _share_gb(self):
        """The memory share a worker's job runs under (not an exclusive retry): its GPU cap on CUDA, its host
        address-space cap on the CPU."""
        return self._caps(False)["gpu_gb"] if self.device == "cuda" else float(self.mem_limit_gb)

    def _cached_ref_oom(self, task):
        """Why the task runs alone from its first attempt, where the baseline cache says its reference ran out of
        memory under a share no smaller than this Judge's (an earlier run on this GPU and versions); else None."""
        if self.baseline_cache is None or self.device_info is None:
            return None
        e = self.baseline_cache.get(self._baseline_key(task)) or {}
        if not e.get("ref_oom") or float(e.get("ref_oom_share_gb") or 0.0) < self._share_gb():
            return None
        return (f"an earlier run's job of this task, under a {float(e['ref_oom_share_gb']):.1f} GB share (baseline "
                f"cache): {e['ref_oom'][:400]}")

    def _baseline_key(self, task):
        info = self.device_info
        return BaselineCache.key(task, info["gpu"], info["torch"], info["triton"])

    def _startup_failed(self, why):
        self.startup_failures += 1
        if self.startup_failures >= 3:  # the judge itself is broken (no torch, no GPU): fail loudly
            self.close()
            raise RuntimeError(f"judge workers fail to start: {why}")

    def _kill(self, s):
        """Kill the worker's whole process group (it leads its own session) and clean up its files."""
        if s.proc is not None:
            try:
                os.killpg(s.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                s.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            if isinstance(s.proc, _Forked):
                s.proc.release()
        for fd in (s.job_w, s.res_r):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if s.tmp:
            shutil.rmtree(s.tmp, ignore_errors=True)
        s.__init__()


def _progress_bar(total, progress):
    if not progress or total < 8:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="verify", unit="cand", file=sys.stderr)


# ----------------------------------------------------------------------------------------------------
# Judging a proposer's candidates (policy.py's format: {"text", "completion", "error_type", "error_msg"});
# eval.py and search.py share these, so a search's fragments and eval's answers are judged alike.


def exception_text(e):
    """One line naming an exception: its type and text (what a failed task's error_msg says)."""
    return f"{type(e).__name__}: {e}".strip()


def verify_by_policy(pairs, policies, cache=None, **judge_kwargs):
    """Verdicts of (task source, solution) pairs, each judged under its own policy ("strict" or "hybrid"): one
    Judge(policy="strict", **judge_kwargs), one verify_many per policy, strict first. teacher.py's command line
    verifies its solutions with it (strict, and hybrid for those that keep a torch op).
    `cache`: a VerdictCache file; a pair it holds a correct verdict for is not judged again, and each new correct
    verdict is added to it (no Judge starts when every pair is known)."""
    known = VerdictCache(cache, judge_kwargs) if cache else None
    verdicts = [known.get(src, sol, pol) if known else None for (src, sol), pol in zip(pairs, policies)]
    todo = [k for k, v in enumerate(verdicts) if v is None]
    if known:
        print(f"verdict cache {cache}: {len(pairs) - len(todo)} of {len(pairs)} pairs judged correct before; "
              f"judging {len(todo)}", flush=True)
    if not todo:
        return verdicts
    with Judge(policy="strict", **judge_kwargs) as j:
        for pol in ("strict", "hybrid"):
            idx = [k for k in todo if policies[k] == pol]
            if idx:
                j.policy = pol
                for k, v in zip(idx, j.verify_many([pairs[k] for k in idx])):
                    verdicts[k] = v
                if known:
                    known.add([(pairs[k], pol, verdicts[k]) for k in idx])
    return verdicts


class VerdictCache:
    """Correct verdicts already reached, in a JSONL file, keyed by everything a verdict depends on: the task source,
    the solution, the policy, the judge's settings (device, time limit, ...) and code (this file's bytes), and the
    torch and triton versions. A data step run again after a change to how tasks are written (synth.py) judges only
    the pairs whose source or solution changed: the teacher's 20,000 pairs take ~100 min on a 2-core CPU (session
    30), most of them unchanged by a render change. Failures are not kept (a timeout on a busy machine is judged
    again). Lines that do not parse are skipped; a line is appended per new correct verdict."""

    def __init__(self, path, judge_kwargs):
        import torch
        import triton
        self.path = path
        settings = sorted((k, repr(v)) for k, v in judge_kwargs.items() if k != "workers")
        with open(os.path.abspath(__file__), "rb") as f:
            h = hashlib.sha256(f.read())
        h.update(repr((settings, torch.__version__, triton.__version__)).encode())
        self.env = h.hexdigest()
        self.known = {}
        if os.path.isfile(path):
            with open(path) as f:
                for line in f:
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        rec = json.loads(line)
                        self.known[rec["key"]] = rec["verdict"]

    def key(self, source, solution, policy):
        h = hashlib.sha256(self.env.encode())
        for part in (source, solution, policy):
            h.update(b"\0" + part.encode())
        return h.hexdigest()

    def get(self, source, solution, policy):
        d = self.known.get(self.key(source, solution, policy))
        return Verdict.from_dict(d) if d is not None else None

    def add(self, judged):
        """judged: ((source, solution), policy, Verdict) triples; the correct ones are appended."""
        lines = []
        for (source, solution), policy, v in judged:
            if v is not None and v.correct:
                k = self.key(source, solution, policy)
                self.known[k] = v.to_dict()
                lines.append(json.dumps({"key": k, "verdict": v.to_dict()}) + "\n")
        if lines:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            with open(self.path, "a") as f:
                f.write("".join(lines))


def judge_candidates(judge, records, candidates):
    """Verdicts per record (lists aligned with `candidates`): one verify_many call for the whole chunk. A
    candidate that already carries its Verdict (key "verdict": a search's end-to-end verdict of the solution it
    found, eval.py --search) is not judged again."""
    pairs, where = [], []
    verdicts = [[None] * len(c) for c in candidates]
    for i, (rec, cands) in enumerate(zip(records, candidates)):
        for j, c in enumerate(cands):
            if c.get("verdict") is not None:
                verdicts[i][j] = c["verdict"]
            elif c["text"] is None:
                verdicts[i][j] = Verdict(error_type=c["error_type"], error_msg=c["error_msg"])
            else:
                pairs.append((rec["source"], c["text"]))
                where.append((i, j, c["completion"]))
    # verify_many takes one completions flag per call; policies never mix kinds, but split to be safe.
    for kind in (False, True):
        idx = [k for k, w in enumerate(where) if w[2] == kind]
        if idx:
            try:
                got = judge.verify_many([pairs[k] for k in idx], completions=kind, progress=False)
            except RuntimeError as e:  # the judge itself failed (workers cannot start): these tasks' rows say so
                got = [Verdict(error_type="judge_error", error_msg=exception_text(e)) for _ in idx]
            for k, v in zip(idx, got):
                verdicts[where[k][0]][where[k][1]] = v
    return verdicts


def solution_text(candidate):
    """The solution source inside a candidate (None if there is none)."""
    if candidate["text"] is None or not candidate["completion"]:
        return candidate["text"]
    try:
        return extract_solution(candidate["text"])
    except SolutionError:
        return None


# ----------------------------------------------------------------------------------------------------
# CLI


def main(argv=None):
    import synth  # the scripts' shared command line: one-line flag errors, each default shown once

    p = synth.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=synth.HelpFormatter)
    p.add_argument("--task", required=True, help="KernelBench-format task source (.py)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--solution", help="solution source (.py) defining ModelNew")
    g.add_argument("--completion", help="raw model text; its last ```python block is the solution")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto", help="auto: cuda if available")
    p.add_argument("--policy", choices=POLICIES, default="hybrid",
                   help="hybrid: torch may also run GEMMs, convolutions and dropout; strict: only alloc/view/copy; "
                        "partial: any torch op next to the kernels (test-time search's partial programs, not RL)")
    p.add_argument("--timeout-s", type=float, default=60.0, help="wall-clock limit per candidate, seconds")
    p.add_argument("--trials", type=int, default=5, help="correctness trials with fresh seeded inputs")
    p.add_argument("--time-trials", type=int, default=100, help="timed runs per model (CUDA only)")
    p.add_argument("--time-budget-s", type=float, default=TIME_BUDGET_S,
                   help=f"fewer timed runs (>= {MIN_TIME_TRIALS}; >= {MIN_TIME_TRIALS_LONG} where one round of "
                        f"candidate and reference takes {LONG_ROUND_S:g} s) where --time-trials would take longer; "
                        "0: no budget")
    p.add_argument("--atol", type=float, default=None, help="override the tolerance table's atol")
    p.add_argument("--rtol", type=float, default=None, help="override the tolerance table's rtol")
    p.add_argument("--strict-tol", action="store_true", help="stricter tolerance table (fp32 1e-4)")
    p.add_argument("--compile-baseline", action="store_true", help="also time torch.compile of the reference")
    p.add_argument("--autotune-baseline", action="store_true",
                   help="also time torch.compile(mode='max-autotune') of the reference")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the trial plan (inputs, widened kinds, the faithfulness trial's place); default: "
                        "fresh, recorded in the verdict's seed, which --seed then reproduces")
    args = p.parse_args(argv)
    try:
        with open(args.task) as f:
            task = f.read()
        with open(args.solution or args.completion, "rb") as f:
            raw = f.read()
    except OSError as e:
        p.error(str(e))
    if args.solution:
        try:
            sol = raw.decode("utf-8")
        except UnicodeDecodeError:
            p.error(f"{args.solution} is not UTF-8")
    device = args.device
    if device == "auto":
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"device {device} | policy {args.policy} | timeout_s {args.timeout_s:g} | trials {args.trials}",
          file=sys.stderr)
    try:
        with Judge(workers=1, device=device, timeout_s=args.timeout_s, policy=args.policy, trials=args.trials,
                   atol=args.atol, rtol=args.rtol, time_trials=args.time_trials,
                   compile_baseline=args.compile_baseline, autotune_baseline=args.autotune_baseline,
                   time_budget_s=args.time_budget_s,
                   strict_tol=args.strict_tol, seed=args.seed) as judge:
            pair = (task, raw if args.completion else sol)
            v = judge.verify_many([pair], completions=bool(args.completion), progress=False)[0]
    except (RuntimeError, OSError, ValueError) as e:  # the judge could not start or run: no verdict
        print(f"reward.py: judge error: {exception_text(e).splitlines()[0][:300]}", file=sys.stderr)
        return 2
    print(json.dumps(v.to_dict()))
    if earns(v):
        print(f"correct (seed {v.seed})", file=sys.stderr)
        return 0
    if v.correct:  # right outputs, but a hack flag: it earns what a wrong answer earns
        print(f"incorrect: flagged {sorted(HACK_FLAGS.intersection(v.flags))} (seed {v.seed})", file=sys.stderr)
        return 1
    line = f"{v.error_type}: {(v.error_msg or '').splitlines()[0][:300] if v.error_msg else ''} (seed {v.seed})"
    if v.error_type == "task_error":
        print(f"reward.py: broken task: {line}", file=sys.stderr)
        return 2
    print(f"incorrect: {line}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker_main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), int(sys.argv[6]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--zygote":
        _zygote_main(int(sys.argv[2]), sys.argv[3])
    else:
        import synth

        sys.exit(synth.run_main(main, prog="reward.py"))
