"""search.py: test-time search over program fragments -> the fastest correct hybrid (Triton + PyTorch) program.

    python synth.py --num-programs 8 --levels 5,20 --seed 0 --out /tmp/tasks.jsonl
    python search.py --task /tmp/tasks.jsonl:l5_00000 --policy single-op --out runs/search-smoke
    python search.py --task /tmp/tasks.jsonl --policy teacher --device cuda --autotune --out runs/search-l5

DRTriton (arXiv 2603.21465, test-time search; shared/DESIGN.md "Test-time search"): convert the program to an
op sequence, generate and verify a kernel for every contiguous fragment of up to --max-fragment ops, keep the
fastest correct one per fragment, assemble hybrid programs (unreplaced ops stay PyTorch), verify them end to
end and keep the fastest. Steps and the choices made here:
  1. Op sequence: synth's program dict (record["program"], else synth.load_task of the source). View nodes
     (flatten, view:*) are not ops; a fragment is the node range from its first to its last compute op, so
     views between its ops travel inside it; views before or after it run as PyTorch views in the hybrid.
  2. A fragment is a KernelBench task of its own: tensors it reads from outside (program inputs, nn.Parameters,
     upstream results) become forward inputs with their shapes; nn modules (Linear, Conv, norms, pools) stay
     modules built by the fragment's own __init__ with the same constructor arguments (the judge seeds both
     Model and ModelNew alike, and the teacher compiles modules, not functional weights); parameter-free
     modules (nn.LeakyReLU, nn.GELU) render functionally from their attributes. torch.max(x, dim)[0] renders
     as the tuple-returning call and its [0], as written. Input values follow
     the domain the tensor has in the full program (measured once in-process on the reference: positive ->
     rand + 0.5, non-negative -> rand, integer -> randint, else randn), so log/sqrt fragments see legal inputs.
     Fragments with more than one tensor leaving them are skipped (a task has one output); the single-op
     fragments always exist, so a cover always exists.
  3. K samples per fragment from the policy (policy.py's proposers; the teacher with plans gives one candidate
     per plan, tagged with its name; several searches' fragments are proposed in one call, `drive`), judged by
     the same Judge; keep the fastest correct one. --order epilogue-first tries the fragments without a GEMM or
     convolution before the others, so a sample budget reaches a level-2 task's epilogue. PyTorch time per
     op: the judge's ref_ms of the op's single-op fragment (same timing conditions as the kernels), else an
     in-process CUDA-event median of that fragment, else (no one-op fragment) of the op inside the full program
     (logged as torch_ms_source: judge, in_process, in_program); an op no correct kernel covers is PyTorch in
     every cover, so it is not timed (cost 0, source uncovered): its time would add the same to every cover.
  4. Cover: a beam DP over the op sequence (each step a fragment kernel or one PyTorch op) keeps the B cheapest
     covers. Cost on CUDA: summed milliseconds. On CPU speed is not measured (Triton interpreter), so the cost
     is (-ops inside Triton fragments, number of fragments): the most work in Triton, in the fewest kernels.
  5. Hybrid: one ModelNew with the task's own __init__ (same parameters, same creation order); each fragment
     solution is inlined with its top-level names prefixed (f3_...), built as a submodule after the original
     parameters, and its nn modules are re-pointed at the hybrid's own, so it computes with the task's
     weights. Unreplaced ops stay PyTorch. The beam's hybrids are judged end to end (hybrid policy); the
     fastest correct one wins (CPU: the best-ranked correct one). If none is correct the next B covers are tried.
  6. --autotune (CUDA only; on CPU a no-op, logged): per launch site of the winner, BLOCK* constexprs x {1/2, 2}
     and num_warps in {2, 4, 8}, re-verified; the best per site are combined and kept if faster.
  7. --policy reference: no fragment is sampled; the answer is the PyTorch program itself, correct by
     construction with speedup 1. It is NOT judged: the judge requires >= 1 Triton launch (reward.py rule 4),
     so the verdict written is a labelled stand-in ({"judged": false, "kind": "reference"}). On CUDA the
     all-PyTorch cover also wins when it beats every judged hybrid (end-to-end ref_ms < runtime_ms).
     --policy single-op is the test stand-in: the teacher on fragments of exactly one op, nothing else.
--task is a .py file, a directory of them (KernelBench/level2), a synthetic JSONL or JSONL:ID; the level is
--level, else the directory's levelN, else the record's own (never the file name's number). One task's failure
never stops a run over a task set: it is that task's row in summary.jsonl with error_type import_error
(unreadable or untraceable file), search_error (SearchError: a task the search cannot handle) or search_bug (any
other exception), the message as "Type: text", and the traceback in its fragments.jsonl.
Outputs in --out (per task; a task set gets one subdirectory per task and summary.jsonl): solution.py,
verdict.json, fragments.jsonl (every fragment tried: ops, samples, verdicts, times; covers; errors), run.json.
Budgets: --sample-budget (policy samples over all fragments of a task) and --time-budget-s (wall clock of the
fragment phase, checked before each batch of one fragment per judge worker after the first, so it can be
overrun by one batch); the whole program is tried first, as the task itself (its own source, so its verdict is
an end-to-end verdict and a cover of it alone is not judged again), being the single-shot answer, then
fragments shortest first, so the single-op cover is complete before longer ones. With --sample-budget 1 (and
--samples 1) the search is the whole program's candidates only: with `--teacher-plans all`, the teacher's plans
measured and the fastest correct kept.
Several tasks (eval.py --search, `search_tasks`): `search_steps` is the search as a generator that yields its
judge requests; `drive` runs a chunk's searches together, one judge call a round for all of them, so the
workers stay busy at KernelBench sizes (one task's fragments did not fill 8 workers). The time budget then
counts from the start of the chunk.
Not bit-reproducible: model samples are seeded per fragment batch; CUDA times vary run to run.
"""
import ast
import contextlib
import functools
import hashlib
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import synth
from reward import DRAW_ERRORS, KB_TOL_FLAG, draw_inputs, exception_text, gpu_timing, judge_candidates, solution_text

HERE = os.path.dirname(os.path.abspath(__file__))

PY_NAMES = {"torch", "nn", "F", "triton", "tl", "self", "math"}
# Keyword attributes the import leaves out when the task leaves them out, rendered with PyTorch's own default
# torch.clamp(x, min=m) has no "max" (KernelBench L2 task 100), x.mean(dim=[1, 2, 3, 4]) no
# "keepdim" (tasks 23, 27; every reduction with a keepdim).
OPTIONAL_ATTRS = {"clamp": {"min": None, "max": None}, "triu": {"diagonal": 0}, "tril": {"diagonal": 0},
                  **{op: {"keepdim": False} for op in ("amax", "amin", "logsumexp", "var", "argmax", "argmin")},
                  **{op: {"dim": None, "keepdim": False} for op in ("sum", "mean", "norm")}}


BEAM = 4  # covers kept by the DP and judged end to end a round (--beam, eval.py --search-beam)


class SearchError(Exception):
    """A task or fragment search cannot handle (unsupported node, multi-output fragment, ...)."""


# ----------------------------------------------------------------------------------------------------
# Run records (shared with eval.py and train.py): what produced a run, written next to its outputs


def git_commit():
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=HERE,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (commit + ("-dirty" if dirty else "")) or None


def code_digest(root=HERE, names=None) -> str:
    """sha256 (16 hex digits) of the top-level .py files under `root` (or those in `names`), by name and content:
    which code produced a run even where git cannot say (an earlier run's device copies reported the session's first
    commit, '-dirty', for code three commits newer). run.json's judge_sha256 is reward.py's alone: verdicts are
    comparable across runs (eval.py --reuse-verdicts) only under the same judge."""
    h = hashlib.sha256()
    for name in sorted(n for n in os.listdir(root) if n.endswith(".py") and (names is None or n in names)):
        with open(os.path.join(root, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:16]


def run_info() -> dict:
    """What produced a run: code version, package versions, hardware."""
    import importlib.metadata as md

    import torch

    versions = {}
    for name in ["torch", "triton", "transformers", "peft", "tokenizers", "bitsandbytes", "numpy"]:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    gpus = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            gpus.append({"name": props.name, "memory_gb": round(props.total_memory / 2**30, 1)})
    return {"git_commit": git_commit(), "code_sha256": code_digest(), "judge_sha256": code_digest(names=("reward.py",)),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "versions": versions, "gpus": gpus, "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "hostname": platform.node(), "time": time.strftime("%Y-%m-%d %H:%M:%S")}


def write_json_atomic(path, obj):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, default=str)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------------------------------
# Task sets (shared with eval.py): levels from the directory, one unreadable file is one failed task


def level_of_path(path):
    """The level a task directory names: "levelN" (also "level_N", "level-N") anywhere in its last component,
    e.g. KernelBench/level2 -> "2"; None if it names none. Never the file name's number: KernelBench's
    "16_Matmul_with_transposed_A.py" is task 16 of its level, not level 16."""
    m = re.search(r"level[_-]?(\d+)", os.path.basename(os.path.normpath(os.path.abspath(path))), re.I)
    return m.group(1) if m else None


def read_task_set(path, level=None):
    """Task records of a synthetic JSONL, a directory of KernelBench-format .py files, or one .py file.
    level (the --level flag) overrides every record's level; otherwise a directory's (or a file's directory's)
    level_of_path, else the record's own, else None. A .py file that cannot be read becomes a record with
    "import_error" set (that task fails; the others run). Whole-file problems of a JSONL raise OSError or
    ValueError (synth.read_tasks)."""
    import synth

    if os.path.isdir(path) or (path.endswith(".py") and os.path.isfile(path)):
        files = [path] if os.path.isfile(path) else \
            [os.path.join(path, fn) for fn in sorted(os.listdir(path)) if fn.endswith(".py")]
        if not files:
            raise ValueError(f"{path}: no .py task files")
        dir_level = level_of_path(os.path.dirname(os.path.abspath(files[0])))
        records = []
        for fp in files:
            rec = {"id": os.path.basename(fp)[:-3], "level": dir_level, "source": "", "ops": None, "seed": None,
                   "file": os.path.abspath(fp)}  # named by the task's import errors
            try:
                with open(fp, encoding="utf-8") as f:
                    rec["source"] = f.read()
            except (OSError, UnicodeDecodeError) as e:
                rec["import_error"] = exception_text(e)
            else:
                rec["import_error"] = task_file_error(rec["source"], rec["file"])
            if rec["import_error"] is None:
                del rec["import_error"]
            records.append(rec)
    else:
        records = synth.read_tasks(path)
    if level is not None:
        for rec in records:
            rec["level"] = str(level)
    return records


def task_file_error(source, path):
    """Why a task file cannot be a task, found without running it: a syntax error or no `class Model` at the top
    level, as one line naming the user's file (the judge would otherwise name the temp file it runs); else None."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        return f"{path}:{e.lineno}: SyntaxError: {e.msg}"
    if not any(isinstance(node, ast.ClassDef) and node.name == "Model" for node in tree.body):
        return f"{path}: no class Model at the top level (a task defines Model, get_inputs and get_init_inputs)"
    return None


def trace_task(record):
    """record["program"] traced from the source once (synth.load_task), so the teacher and the search share it.
    Raises what the import raises (a task the importer cannot trace)."""
    if record.get("import_error"):
        raise SearchError(record["import_error"])
    record["program"] = program_of(record)
    return record


# ----------------------------------------------------------------------------------------------------
# The op sequence


def program_of(record):
    """The program dict of a task record (synthetic records carry it; otherwise trace the source)."""
    import synth

    prog = record.get("program")
    if prog and "nodes" in prog:
        return prog
    return synth.load_task(record["source"], filename=record.get("file"))


def compute_index(program):
    """Node indices of the compute ops, in node order (the op sequence)."""
    import synth
    return [i for i, n in enumerate(program["nodes"]) if not synth.is_view(n)]


def module_ref(path):
    """fx module path -> attribute expression on self ('layers.0' -> 'self.layers[0]')."""
    out = "self"
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out


def flat_name(name):
    return re.sub(r"\W", "_", name)


def node_expr(node, refs, mod_expr):
    """PyTorch source of one node, given source refs for its tensor inputs and its module's expression."""
    import synth

    op = node["op"]
    if op == "flatten":
        return f"{refs[0]}.flatten({node['attrs']['start_dim']})"
    if op.startswith("view:"):
        short, a = op[5:], node["attrs"]
        args = [refs[node["inputs"].index(x)] if isinstance(x, str) and x in node["inputs"] else repr(x)
                for x in a.get("args", [])]
        if short == "getitem":   # ints, or synth's JSON indices ({"slice": [...]}, "None", "Ellipsis", lists)
            import teacher
            return f"{refs[0]}[{', '.join(teacher.index_code(x, top=True) for x in a.get('args', []))}]"
        if short == "getattr":
            return f"{refs[0]}.{a['args'][0]}"
        args += [f"{k}={v!r}" for k, v in a.get("kwargs", {}).items()]
        return f"{refs[0]}.{short}({', '.join(args)})"
    if op not in synth.OPS:
        raise SearchError(f"op {op} has no PyTorch rendering (outside synth's operator table)")
    if synth.OPS[op].kind == "library":  # a whole LSTM/attention layer: its call as the task made it
        if not mod_expr or "args" not in node["attrs"]:
            raise SearchError(f"library layer {node['name']} ({op}) has no module call to render")
        ref = dict(zip(node["inputs"], refs))

        def code(v):
            if isinstance(v, list):
                return "(" + ", ".join(code(x) for x in v) + ("," if len(v) == 1 else "") + ")"
            return ref[v] if isinstance(v, str) and v in ref else repr(v)
        a = node["attrs"]
        return f"{mod_expr}({', '.join([code(v) for v in a['args']] + [f'{k}={code(v)}' for k, v in a['kwargs'].items()])})"
    if op in ("amax", "amin") and node["attrs"].get("returns_indices"):
        # torch.max(x, dim) as written returns (values, indices); the traced view:getitem [0] that follows
        # picks the values, so the rendering must return the tuple too (KernelBench L2 task 18, where
        # amax's tensor was indexed by that [0] and a later reduction went out of range)
        a = node["attrs"]
        return f"torch.{op[1:]}({refs[0]}, dim={a['dim']!r}, keepdim={a.get('keepdim', False)!r})"
    a = node["attrs"]
    if op in ("full", "randn"):   # made in forward, on the device of the run (_device in its scope)
        size = tuple(node["shape"])
        value = f", float({str(a['value'])!r})" if op == "full" else ""
        return f"torch.{op}({size}{value}, dtype=torch.{node.get('dtype') or 'float32'}, device=_device)"
    if op == "cat":   # any number of inputs (DenseNet's torch.cat(features, 1))
        return f"torch.cat([{', '.join(refs)}], dim={a.get('dim', 0)!r})"
    if op == "linear" and a.get("functional"):   # F.linear(x, w, b) with the task's own tensors (Swin V2's qkv)
        return f"F.linear({', '.join(refs)})"
    if op == "einsum":   # any number of operands (Mamba's four)
        return f"torch.einsum({a['equation']!r}, {', '.join(refs)})"
    if op in ("masked_fill", "pad", "compare_scalar"):
        value = f"float({str(a['value'])!r})"
        return {"masked_fill": f"{refs[0]}.masked_fill({refs[-1]}, {value})",
                "pad": f"F.pad({refs[0]}, {a.get('pad')!r}, value={value})",
                "compare_scalar": f"({refs[0]} {a.get('cmp')} {value})"}[op]
    if "{mod}" in synth.OPS[op].call and not mod_expr and node.get("module_args") is not None \
            and op.startswith(("adaptive_avg_pool", "max_pool", "avg_pool")):
        # a functional pool (F.adaptive_avg_pool2d(x, 1): KernelBench L2 task 67) is imported without a module and
        # with the module's settings in module_args, which are F's keyword arguments of the same name
        kwargs = ", ".join(f"{k}={v!r}" for k, v in node["module_args"].items())
        return f"F.{op}({refs[0]}, {kwargs})"
    if "{mod}" in synth.OPS[op].call and not mod_expr:
        raise SearchError(f"op {op} renders as a module call but node {node['name']} has no module")
    fmt = dict(OPTIONAL_ATTRS.get(op, {}), **node["attrs"])
    if op.endswith("_scalar") and fmt.get("reverse"):  # 1 - x, 2.0 / x (KernelBench L1 task 100, HingeLoss)
        sign = {"sub_scalar": "-", "div_scalar": "/", "add_scalar": "+", "mul_scalar": "*"}.get(op)
        if sign:
            return f"({fmt['value']!r} {sign} {refs[0]})"
    if op == "norm" and isinstance(fmt.get("p"), str):  # torch.norm(x, p="fro"): a string, not a name
        fmt["p"] = repr(fmt["p"])
    if op == "flip" and isinstance(fmt.get("dims"), int):  # x.flip(1): torch.flip wants a sequence
        fmt["dims"] = [fmt["dims"]]
    fmt.update(zip(("x", "y", "z"), refs))
    fmt["mod"] = "__MOD__"
    try:
        expr = synth.OPS[op].call.format(**fmt)
    except (KeyError, IndexError) as e:
        raise SearchError(f"op {op}: attribute {e} missing, cannot render it") from None
    return expr.replace("self.__MOD__", mod_expr or "self.__MOD__")


def run_program(program, source, seed=1, device="cpu"):
    """In-process run of the reference (task code, not model code): the model and every tensor by name."""
    import synth
    import torch

    ns = synth.exec_source(source, "search_ref")
    model = task_model(ns, device)
    inputs = task_inputs(ns["get_inputs"], device, seed)
    env = {t["name"]: x for t, x in zip(program["inputs"], inputs)}
    for t in program["params"]:  # parameters, buffers and plain tensor attributes (self.h0), by their path
        env[t["name"]] = functools.reduce(getattr, t["name"].split("."), model).detach()
    # `device`: an imported `.to(x.device)` keeps the device, whose repr is device(type='cpu')
    scope = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "self": model, "device": torch.device,
             "_device": torch.device(device)}
    with torch.no_grad():
        for n in program["nodes"]:
            scope.update({f"_t{i}": env[x] for i, x in enumerate(n["inputs"])})
            refs = [f"_t{i}" for i in range(len(n["inputs"]))]
            env[n["name"]] = eval(node_expr(n, refs, module_ref(n["module"]) if n.get("module") else None), scope)
    return model, inputs, env


def task_model(ns, device, seed=42):
    """The task's Model(*get_init_inputs()) under `seed`, built on `device` where it can be, so its weights are drawn
    there, else built on the CPU and moved. On one CPU thread KernelBench level 2's 32768 x 32768 Linear layers
    (55, 56, 59) took 11-13 s each to initialise, and a search runs every task's program before its fragments.
    The weights are not the judge's (a judge worker builds on the CPU, as ModelNew is built); the search only
    reads shapes, dtypes and value domains, and times ops, from this run."""
    import torch

    def build(on_device):
        with torch.device(device) if on_device else contextlib.nullcontext():
            return ns["Model"](*ns["get_init_inputs"]()).to(device)
    return _device_first(build, device, seed)


def task_inputs(get_inputs, device, seed):
    """A task's get_inputs() under `seed`, drawn on `device` where the task allows it, else on the CPU and moved
    there, as the judge draws them (reward.draw_inputs): KernelBench level 2's inputs are 22 GB in all, which one
    CPU thread draws at ~0.35 GB/s, and a search runs every task's program at real size before its fragments."""
    import torch

    return _device_first(lambda on_device: draw_inputs(torch, get_inputs, device, on_device), device, seed)


def _device_first(make, device, seed):
    """make(on_device) right after torch.manual_seed(seed): make(True) where `device` is not the CPU, and make(False)
    under the same seed where that raises one of reward.DRAW_ERRORS (or on the CPU)."""
    import torch

    if torch.device(device).type != "cpu":
        torch.manual_seed(seed)
        try:
            return make(True)
        except DRAW_ERRORS:
            pass  # made on the CPU below
    torch.manual_seed(seed)
    return make(False)


def tensor_spec(x):
    """Shape, dtype and value domain of a tensor of the full program (what a fragment input must look like)."""
    spec = {"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", "")}
    if not x.is_floating_point():
        spec.update(dom="int", high=int(x.max()) + 1 if x.numel() else 1)
    elif x.numel() and bool((x > 0).all()):
        spec["dom"] = "pos"
    elif x.numel() and bool((x >= 0).all()):
        spec["dom"] = "nonneg"
    else:
        spec["dom"] = "any"
    return spec


def input_expr(spec):
    dims = ", ".join(str(s) for s in spec["shape"]) or "()"
    shape = "(" + dims + ("," if len(spec["shape"]) == 1 else "") + ")" if spec["shape"] else "()"
    if spec["dom"] == "int":
        return f"torch.randint(0, {spec['high']}, {shape})"
    return {"pos": f"torch.rand({dims}) + 0.5", "nonneg": f"torch.rand({dims})"}.get(spec["dom"], f"torch.randn({dims})")


def fragment_nodes(program, comp, a, b):
    """Nodes of fragment a..b (compute-op positions, inclusive): the node range comp[a]..comp[b], plus a
    trailing view:getitem of its last node (torch.max(x, dim) returns a tuple; its [0] belongs to it)."""
    nodes = program["nodes"][comp[a]:comp[b] + 1]
    nxt = comp[b] + 1
    if nxt < len(program["nodes"]) and program["nodes"][nxt]["op"] == "view:getitem" and \
            program["nodes"][nxt]["inputs"] == [nodes[-1]["name"]]:
        nodes = nodes + [program["nodes"][nxt]]
    return nodes


def fragment_io(program, nodes):
    """(inputs, output): names read from outside the fragment in first-use order, and the one name used after
    it. Raises SearchError when more than one tensor leaves it."""
    inside = {n["name"] for n in nodes}
    inputs = []
    for n in nodes:
        for x in n["inputs"]:
            if x not in inside and x not in inputs:
                inputs.append(x)
    last = program["nodes"].index(nodes[-1])
    used_after = {x for n in program["nodes"][last + 1:] for x in n["inputs"]} | {program["output"]}
    outs = [n["name"] for n in nodes if n["name"] in used_after]
    if len(outs) != 1:
        raise SearchError(f"{len(outs)} tensors leave the fragment ({outs}); a task has one output")
    return inputs, outs[0]


FRAGMENT_ARGS = ("x", "y", "z", "w", "u", "s")


def fragment_args(inputs, inside):
    """Forward-argument names of a fragment reading `inputs`: a synthetic program's own (in0, v3, p1) stay; a traced
    task's fx names get x, y, z, ... as KernelBench-style sources name their inputs (never a name the fragment
    assigns). fx names themselves ("mul", "sigmoid") would shadow the teacher's wrappers of the same name inside
    forward, and `<name>_in` (an earlier run's form) was a name no training render uses: gs31's SFT checkpoint, trained
    on KernelBench-style renders only, answered a `forward(self, gemm_in)` fragment with a two-input loss kernel and
    every level-2 search failed, while it answers the same fragment with `x` correctly."""
    kept = {x for x in inputs if re.fullmatch(r"(in|v|p)\d+", x)}
    free = [n for n in FRAGMENT_ARGS if n not in inside and n not in kept]
    arg = {}
    for x in inputs:
        arg[x] = flat_name(x) if x in kept else free.pop(0) if free else f"{flat_name(x)}_in"
    return arg


def fragment_task(program, specs, a, b, comp, task_id="task"):
    """Fragment a..b as a KernelBench task record: {"id", "source", "program", "n_ops", "inputs", "output",
    "modules" (flat name -> original module path), "ops"}. specs: tensor name -> tensor_spec."""
    import synth
    nodes = fragment_nodes(program, comp, a, b)
    inputs, output = fragment_io(program, nodes)
    for x in inputs:
        if x not in specs:
            raise SearchError(f"fragment input {x} is not a tensor")
    arg = fragment_args(inputs, {n["name"] for n in nodes})
    modules, init, body, sub_nodes = {}, [], [], []
    for n in nodes:
        mod_flat = None
        if n.get("module"):
            op = synth.OPS.get(n["op"])
            # A parameter-free module (nn.LeakyReLU(0.1), nn.GELU()) whose op renders functionally from its
            # attributes needs no module in the fragment (KernelBench L2 task 12 lost its single-op
            # fragment, and with it the PyTorch time of that op).
            functional = op is not None and not op.module and "{mod}" not in op.call
            if not functional:
                if op is None or not op.module:
                    raise SearchError(f"module node {n['name']} ({n['op']}) cannot be rebuilt from its arguments")
                mod_flat = flat_name(n["module"])
                if mod_flat not in modules:
                    modules[mod_flat] = n["module"]
                    kwargs = ", ".join(f"{k}={v!r}" for k, v in (n.get("module_args") or {}).items())
                    init.append(f"        self.{mod_flat} = nn.{op.module}({kwargs})")
        refs = [arg.get(x, x) for x in n["inputs"]]
        body.append(f"        {n['name']} = {node_expr(n, refs, f'self.{mod_flat}' if mod_flat else None)}")
        sub_nodes.append(dict(n, inputs=refs, module=mod_flat))
    ops = [n["op"] for n in nodes if not synth.is_view(n)]
    lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F", "", "",
             "class Model(nn.Module):", f'    """Fragment {a}..{b} of {task_id}: {" -> ".join(ops)}"""', "",
             "    def __init__(self):", "        super().__init__()"] + init + [
             "", f"    def forward(self, {', '.join(arg[x] for x in inputs)}):"] + body + [
             f"        return {output}", "", "", "def get_inputs():",
             f"    return [{', '.join(input_expr(specs[x]) for x in inputs)}]", "", "",
             "def get_init_inputs():", "    return []", ""]
    sub = {"inputs": [dict(name=arg[x], kind="input", **{k: specs[x][k] for k in ("shape", "dtype")}) for x in inputs],
           "params": [], "nodes": sub_nodes, "output": output}
    return {"id": f"{task_id}:{a}-{b}", "source": "\n".join(lines), "program": sub, "n_ops": b - a + 1,
            "inputs": inputs, "output": output, "modules": modules, "ops": ops, "span": [a, b], "level": b - a + 1}


ORDERS = ("shortest", "epilogue-first")


def heavy_last(frags):
    """The fragments without a GEMM or convolution (teacher.HEAVY_OPS) first, then those with one; each part keeps
    its order (shortest first). A policy's kernel for a KernelBench-sized convolution is slow to judge and rarely
    beats cuDNN; the epilogue's ops are where a hybrid gains."""
    from teacher import HEAVY_OPS

    def heavy(frag):
        return any(op in HEAVY_OPS for op in frag["ops"])
    return [f for f in frags if not heavy(f)] + [f for f in frags if heavy(f)]


def all_fragments(program, specs, max_fragment, task_id="task"):
    """(fragment records, skipped [(a, b, why)]) for every contiguous a..b with at most max_fragment ops,
    shortest first."""
    comp = compute_index(program)
    frags, skipped = [], []
    for length in range(1, max_fragment + 1):
        for a in range(0, len(comp) - length + 1):
            try:
                frags.append(fragment_task(program, specs, a, a + length - 1, comp, task_id))
            except SearchError as e:
                skipped.append((a, a + length - 1, str(e)))
    return frags, skipped


# ----------------------------------------------------------------------------------------------------
# Covers: beam DP over the op sequence


def cover_cost(segments, torch_ms, kernel_ms, speed_measured):
    """Additive cost of a cover. segments: [(a, b, "kernel"|"torch")]. CUDA: (ms, kernels);
    CPU: (-ops in kernels, kernels)."""
    kernels = [s for s in segments if s[2] == "kernel"]
    if speed_measured:
        ms = sum(kernel_ms[(a, b)] for a, b, _ in kernels) + sum(torch_ms[a] for a, _, k in segments if k == "torch")
        return (ms, len(kernels))
    return (-sum(b - a + 1 for a, b, _ in kernels), len(kernels))


def uncovered_ops(n_ops, spans):
    """Ops 0..n_ops-1 inside none of the (a, b) kernel spans: PyTorch in every cover, so their time is the same
    summand of every cover's cost and leaves beam_covers' order unchanged."""
    covered = {a for lo, hi in spans for a in range(lo, hi + 1)}
    return [a for a in range(n_ops) if a not in covered]


def beam_covers(n_ops, torch_ms, kernel_ms, beam, speed_measured):
    """The `beam` cheapest covers of ops 0..n_ops-1 (cheapest first). kernel_ms: {(a, b): ms of the fastest
    correct kernel} (values unused on CPU); torch_ms: per-op PyTorch ms (None allowed on CPU). Exact top-B for
    additive costs: best[i] holds the B cheapest covers of the first i ops."""
    def step_cost(seg):
        a, b, kind = seg
        if speed_measured:
            return (kernel_ms[(a, b)] if kind == "kernel" else torch_ms[a], int(kind == "kernel"))
        return ((-(b - a + 1), 1) if kind == "kernel" else (0, 0))

    best = [[((0, 0), [])]] + [[] for _ in range(n_ops)]
    for i in range(1, n_ops + 1):
        cands = [(c, segs + [(i - 1, i - 1, "torch")]) for c, segs in best[i - 1]]
        for (a, b) in kernel_ms:
            if b == i - 1:
                cands += [(c, segs + [(a, b, "kernel")]) for c, segs in best[a]]
        scored = []
        for c, segs in cands:
            s = step_cost(segs[-1])
            scored.append(((c[0] + s[0], c[1] + s[1]), segs))
        scored.sort(key=lambda cs: (cs[0], [(s[0], s[1], s[2]) for s in cs[1]]))
        best[i] = scored[:beam]
    return best[n_ops]


# ----------------------------------------------------------------------------------------------------
# Hybrid assembly


def _top_level_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def inline_solution(solution, prefix):
    """(imports, body source) of a fragment solution with its top-level names prefixed; names that are also
    argument or keyword names somewhere are left alone (renaming them would change call signatures)."""
    tree = ast.parse(solution)
    args = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)} | \
           {k.arg for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg}
    rename = {n: prefix + n for n in _top_level_names(tree) if n not in args}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in rename:
            node.id = rename[node.id]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in rename:
            node.name = rename[node.name]
    imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    body = [ast.unparse(n) for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    kept = _top_level_names(tree) - set(rename.values())
    return imports, "\n\n\n".join(body), kept


def assemble(program, source, segments, kernels):
    """Hybrid ModelNew source for a cover. kernels: {(a, b): {"solution", "fragment"}}."""
    import teacher

    comp = compute_index(program)
    init_src, consts = teacher._init_from_source(source)
    try:
        fargs, params = teacher.forward_signature(source, len(program["inputs"]))
    except teacher.TeacherError as e:
        raise SearchError(str(e)) from None
    var = {t["name"]: f for t, f in zip(program["inputs"], fargs)}
    var.update({t["name"]: module_ref(t["name"]) for t in program["params"]})
    imports = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F", "import triton",
               "import triton.language as tl"]
    blocks, init_extra, kept_by = [], [], {}
    start_of, skip = {}, set()
    for k, (a, b, kind) in enumerate(s for s in segments):
        if kind != "kernel":
            continue
        frag = kernels[(a, b)]["fragment"]
        prefix = f"f{k}_"
        imps, body, kept = inline_solution(kernels[(a, b)]["solution"], prefix)
        for name in kept:  # un-prefixed top-level names must agree between fragments
            if name in kept_by and kept_by[name][0] != body:
                raise SearchError(f"fragments {kept_by[name][1]} and {a}..{b} both define {name} (not renamable)")
            kept_by[name] = (body, f"{a}..{b}")
        if f"{prefix}ModelNew" not in body:
            raise SearchError(f"fragment {a}..{b}: solution defines no ModelNew")
        imports += [i for i in imps if i not in imports]
        blocks.append(f"# Fragment {a}..{b}: {' -> '.join(frag['ops'])}\n{body}")
        init_extra.append(f"self.frag{k} = {prefix}ModelNew()")
        for flat, path in frag["modules"].items():
            init_extra.append(f"self.frag{k}.{flat} = {module_ref(path)}")
        nodes = fragment_nodes(program, comp, a, b)
        start_of[nodes[0]["name"]] = (k, frag)
        skip |= {n["name"] for n in nodes[1:]}
    taken = PY_NAMES | {n for blk in blocks for n in re.findall(r"^(?:def|class) (\w+)", blk, re.M)}
    for n in program["nodes"]:
        var[n["name"]] = n["name"] if n["name"] not in taken else f"{n['name']}_out"
    body = []
    for n in program["nodes"]:
        if n["name"] in start_of:
            k, frag = start_of[n["name"]]
            # .contiguous(): a fragment is judged on contiguous inputs and its kernels index them row-major, but
            # in the program an input can be a strided view (KernelBench L2 task 14 hands x @ weight.T
            # the transposed weight, and the hybrid was wrong). A no-op for a tensor that is already contiguous.
            body.append(f"{var[frag['output']]} = self.frag{k}("
                        f"{', '.join(var[x] + '.contiguous()' for x in frag['inputs'])})")
        elif n["name"] not in skip:
            mod = module_ref(n["module"]) if n.get("module") else None
            body.append(f"{var[n['name']]} = {node_expr(n, [var[x] for x in n['inputs']], mod)}")
    init_tree = ast.parse(init_src).body[0]
    init_lines = ast.unparse(init_tree).splitlines()
    init_lines += ["    " + ln for ln in init_extra]
    lines = imports + [""] + consts + ["", ""] + ["\n\n".join(blocks), "", "",
                                                 "class ModelNew(nn.Module):"]
    lines += ["    " + ln for ln in init_lines] + ["", f"    def forward(self, {params}):"]
    lines += ["        " + ln for ln in body] + [f"        return {var[program['output']]}", ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------
# Autotuning


def launch_sites(source):
    """Kernel launches `k[grid](..., BLOCK*=int, num_warps=int)`: [(line, {kw: value})] with int constants."""
    sites = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            kws = {k.arg: k.value.value for k in node.keywords
                   if k.arg and (k.arg.startswith("BLOCK") or k.arg == "num_warps")
                   and isinstance(k.value, ast.Constant) and isinstance(k.value.value, int)}
            if any(k.startswith("BLOCK") for k in kws):
                sites.append((node.lineno, kws))
    return sorted(sites)


def tune_variant(source, changes):
    """Source with launch keywords replaced. changes: {line: {kw: value}} (num_warps added if absent)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and node.lineno in changes:
            want = dict(changes[node.lineno])
            for k in node.keywords:
                if k.arg in want:
                    k.value = ast.Constant(want.pop(k.arg))
            node.keywords += [ast.keyword(arg=k, value=ast.Constant(v)) for k, v in want.items()]
    return ast.unparse(tree)


def site_variants(kws):
    """Small grid per launch site: BLOCK* constexprs all x1/2 or x2 (kept >= 16), num_warps in {2, 4, 8}."""
    out = []
    blocks = {k: v for k, v in kws.items() if k.startswith("BLOCK")}
    for scale in (0.5, 1, 2):
        scaled = {k: max(16, int(v * scale)) if v >= 16 else v for k, v in blocks.items()}
        for warps in (2, 4, 8):
            v = dict(scaled, num_warps=warps)
            if v != dict(blocks, num_warps=kws.get("num_warps", 4)):
                out.append(v)
    return out


def autotune(task_source, solution, verdict, log, precision="any"):
    """Per-site grid, re-verified; best per site combined and kept if correct and faster. CUDA only. A generator
    like search_steps (it yields its judge requests). precision "fp32": a variant of a solution within
    KernelBench's 1e-4 must stay within it."""
    from policy import answer

    def keeps(vd):
        lost = precision == "fp32" and KB_TOL_FLAG not in verdict.flags and KB_TOL_FLAG in vd.flags
        return vd.correct and not lost

    sites = launch_sites(solution)
    best = {"solution": solution, "verdict": verdict}
    if not sites or verdict.runtime_ms is None:
        log({"event": "autotune", "skipped": "no tunable launch" if not sites else "speed not measured"})
        return best
    trials = [(line, v) for line, kws in sites for v in site_variants(kws)]
    got = yield [{"source": task_source}] * len(trials), [[answer(tune_variant(solution, {line: v}))]
                                                          for line, v in trials]
    verdicts = [vs[0] for vs in got]
    per_site = {}
    for (line, v), vd in zip(trials, verdicts):
        log({"event": "autotune_trial", "line": line, "config": v, "correct": vd.correct, "runtime_ms": vd.runtime_ms})
        if keeps(vd) and vd.runtime_ms is not None \
                and vd.runtime_ms < per_site.get(line, (None, verdict.runtime_ms))[1]:
            per_site[line] = (v, vd.runtime_ms)
    if not per_site:
        return best
    combined = tune_variant(solution, {line: v for line, (v, _) in per_site.items()})
    vd = (yield [{"source": task_source}], [[answer(combined)]])[0][0]
    log({"event": "autotune_combined", "configs": {str(k): v for k, (v, _) in per_site.items()},
         "correct": vd.correct, "runtime_ms": vd.runtime_ms})
    if keeps(vd) and vd.runtime_ms is not None and vd.runtime_ms < verdict.runtime_ms:
        best = {"solution": combined, "verdict": vd}
    return best


# ----------------------------------------------------------------------------------------------------
# Search


class SingleOpPolicy:
    """Test stand-in: the teacher on fragments of exactly one compute op; no answer for anything longer."""

    def __init__(self, target="cpu", seed=0):
        from policy import TeacherPolicy

        self.teacher = TeacherPolicy(target, seed)

    def propose(self, records, n_samples, seed):
        from policy import no_answer

        out = []
        for rec in records:
            if rec.get("n_ops", 1) == 1:
                out += self.teacher.propose([rec], n_samples, seed)
            else:
                out.append([no_answer("single_op_only", "the single-op stand-in answers one-op fragments only")])
        return out


def time_torch_ms(task_source, device, trials=20):
    """In-process median CUDA-event time of a (fragment) task's PyTorch reference, ms; None on CPU."""
    if device != "cuda":
        return None
    import synth
    import torch

    ns = synth.exec_source(task_source, "search_time")
    model = task_model(ns, "cuda")
    inputs = task_inputs(ns["get_inputs"], "cuda", 0)
    times = []
    with torch.no_grad(), gpu_timing(device):  # the GPU alone, as a judge worker times (another stage may share it)
        for i in range(trials + 3):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            model(*inputs)
            end.record()
            torch.cuda.synchronize()
            if i >= 3:
                times.append(start.elapsed_time(end))
    return statistics.median(times)


def time_ops_ms(program, source, positions, device, trials=20):
    """{op position: in-process median CUDA-event ms of that one op} inside the full reference program, for ops
    that have no single-op fragment to time (a fragment can be skipped, e.g. a module it cannot rebuild); {} on
    CPU. Each op runs on its real input tensors, after 3 warm-ups."""
    if device != "cuda" or not positions:
        return {}
    import torch

    comp = compute_index(program)
    model, _, env = run_program(program, source, device=device)
    # `device`: an imported `.to(x.device)` keeps the device, whose repr is device(type='cpu')
    scope = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "self": model, "device": torch.device,
             "_device": torch.device(device)}
    out = {}
    with torch.no_grad(), gpu_timing(device):  # the GPU alone, as a judge worker times
        for a in positions:
            n = program["nodes"][comp[a]]
            scope.update({f"_t{i}": env[x] for i, x in enumerate(n["inputs"])})
            code = compile(node_expr(n, [f"_t{i}" for i in range(len(n["inputs"]))],
                                     module_ref(n["module"]) if n.get("module") else None), "<op>", "eval")
            times = []
            for i in range(trials + 3):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize()
                start.record()
                eval(code, scope)
                end.record()
                torch.cuda.synchronize()
                if i >= 3:
                    times.append(start.elapsed_time(end))
            out[a] = statistics.median(times)
    return out


def reference_result(record, why):
    """The PyTorch program itself, not judged (the judge requires a Triton launch): a labelled stand-in verdict."""
    solution = re.sub(r"\bModel\b", "ModelNew", record["source"])
    verdict = {"kind": "reference", "judged": False, "correct": True, "speedup": 1.0, "error_type": None,
               "note": "the task's own PyTorch program (Model renamed ModelNew); correct by construction, speedup 1 "
                       "by definition; not judged because reward.py requires >= 1 Triton launch. " + why}
    return {"kind": "reference", "solution": solution, "verdict": verdict}


def search_program(record, proposer, judge, *, max_fragment=5, samples=1, beam=BEAM, seed=0, sample_budget=None,
                   time_budget_s=None, do_autotune=False, allow_reference=True, log=None, progress=True,
                   order="shortest", precision="any"):
    """Search one task. Returns {"kind": "hybrid"|"reference"|"failed", "solution", "verdict" (dict), "cover",
    "stats"}. proposer None means the reference policy (nothing is sampled). search_tasks runs several at once."""
    steps = search_steps(record, proposer, judge.device, judge.time_trials, workers=getattr(judge, "workers", 2),
                         max_fragment=max_fragment,
                         samples=samples, beam=beam, seed=seed, sample_budget=sample_budget,
                         time_budget_s=time_budget_s, do_autotune=do_autotune, allow_reference=allow_reference,
                         log=log, progress=progress, order=order, precision=precision)
    return drive([steps], judge, raise_errors=True)[0]


class Propose:
    """A search's request for candidates (search_steps yields it; drive answers it with propose's lists)."""

    def __init__(self, proposer, records, samples, seed):
        self.proposer, self.records, self.samples, self.seed = proposer, records, samples, seed


def drive(searches, judge, raise_errors=False, progress=None):
    """Run search_steps generators together. Each round first answers every live search's Propose with one
    proposer call for all of them (per proposer, sample count and seed; the searches of a batch start together, so
    round k asks every task with the same seed): a model policy generates the fragments of a whole chunk of tasks
    in full batches, where one task's few fragments left most of a generation batch empty. Then it gathers every
    live search's judge request (records and their candidates) into one judge_candidates call, so the judge's
    workers serve all of them at once (one KernelBench task's fragments do not fill 8 workers at real
    sizes, and its in-process steps leave them idle). Returns one result per search; an exception in a search,
    or in the proposer call of its batch, is its result (raised at once if raise_errors). progress, if given, is
    called with one line per proposer call and per judge round (what it served and how long it took)."""
    from policy import release_gpu_cache

    results, pending = [None] * len(searches), {}
    report = progress or (lambda line: None)
    n_round = 0

    def step(i, value):
        try:
            pending[i] = searches[i].send(value)
        except StopIteration as stop:
            results[i] = stop.value
        except Exception as e:  # noqa: BLE001 -- the caller records it as this task's failure
            if raise_errors:
                raise
            results[i] = e

    for i in range(len(searches)):
        step(i, None)
    while pending:
        asks = {}
        for i, req in pending.items():
            if isinstance(req, Propose):
                asks.setdefault((id(req.proposer), req.samples, req.seed), []).append(i)
        if asks:
            for group in asks.values():
                reqs = [pending.pop(i) for i in group]
                t = time.time()
                try:
                    got = reqs[0].proposer.propose([r for q in reqs for r in q.records], reqs[0].samples, reqs[0].seed)
                    report(f"proposed {sum(len(q.records) for q in reqs)} fragments x {reqs[0].samples} samples for "
                           f"{len(reqs)} searches in {time.time() - t:.1f} s")
                except Exception as e:  # noqa: BLE001 -- the proposer failed: each search of its batch ends with it
                    if raise_errors:
                        raise
                    for i in group:
                        searches[i].close()
                        results[i] = e
                    continue
                at = 0
                for i, q in zip(group, reqs):
                    step(i, got[at:at + len(q.records)])
                    at += len(q.records)
            continue
        order = list(pending)
        for i in order:
            if len(pending[i][0]) != len(pending[i][1]):
                raise ValueError(f"search {i} asked for {len(pending[i][0])} records with "
                                 f"{len(pending[i][1])} candidate lists")
        records = [r for i in order for r in pending[i][0]]
        cands = [c for i in order for c in pending[i][1]]
        requests, pending = pending, {}
        release_gpu_cache()  # what the proposer's generation cached, for the judge's workers on the same GPU
        t = time.time()
        try:
            verdicts = judge_candidates(judge, records, cands)
            n_round += 1
            report(f"judge round {n_round}: {sum(len(c) for c in cands)} candidates of {len(order)} searches in "
                   f"{time.time() - t:.1f} s ({sum(v.correct for vs in verdicts for v in vs)} correct)")
        except Exception as e:  # noqa: BLE001 -- the judge itself failed: every search of this round ends with it
            if raise_errors:
                raise
            for i in order:
                results[i] = e
            continue
        at = 0
        for i in order:
            n = len(requests[i][0])
            step(i, verdicts[at:at + n])
            at += n
    return results


def whole_task(record, program, comp):
    """The whole program as the search's first "fragment": the task's own source and traced program, so its
    verdicts are end-to-end verdicts of the task itself and a cover of this one fragment needs no re-judging."""
    ops = [program["nodes"][i]["op"] for i in comp]
    return {"id": str(record.get("id", "task")), "source": record["source"], "program": program, "n_ops": len(comp),
            "ops": ops, "span": [0, len(comp) - 1], "level": record.get("level", len(comp)), "whole": True}


PRECISIONS = ("any", "fp32")


def preferred(verdicts, indices, precision):
    """Of `indices` (correct verdicts), those a precision mode prefers: under "fp32", the ones within
    KernelBench's 1e-4 where any is (else all of them, so a task keeps its answer at the judge's tolerance);
    under "any", all."""
    if precision != "fp32":
        return list(indices)
    return [i for i in indices if KB_TOL_FLAG not in verdicts[i].flags] or list(indices)


def search_steps(record, proposer, device, time_trials, *, workers=2, max_fragment=5, samples=1, beam=BEAM, seed=0,
                 sample_budget=None, time_budget_s=None, do_autotune=False, allow_reference=True, log=None,
                 progress=True, order="shortest", precision="any"):
    """search_program as a generator (`drive` runs it): it yields a Propose for each batch of fragments and is
    sent their candidates, and yields (records, candidates) for the judge and is sent their verdicts
    (reward.judge_candidates' shape); it returns search_program's result. workers: fragments per batch (the
    judge's workers), so the time budget is checked once per round of the pool. order (ORDERS): "shortest" tries
    the fragments shortest first; "epilogue-first" tries those without a GEMM or convolution first (shortest
    first), then the rest, so a sample budget goes to the ops a policy's kernel can win and that judge fast.
    precision (PRECISIONS): "fp32" prefers a fragment's kernels, and a cover's end-to-end verdicts, within
    KernelBench's 1e-4 over faster ones outside it (`preferred`)."""
    from policy import answer
    log = log or (lambda row: None)
    t0 = time.time()
    speed_measured = device == "cuda" and time_trials > 0
    program = program_of(record)
    comp = compute_index(program)
    _, _, env = run_program(program, record["source"], device=device)  # on the GPU when judging there: real sizes
    specs = {name: tensor_spec(x) for name, x in env.items() if hasattr(x, "shape")}
    del env  # the program's intermediates; a KernelBench task's can take GBs
    if device == "cuda":
        import torch

        torch.cuda.empty_cache()  # ... and the caching allocator would keep them from the judge's workers
    frags, skipped = all_fragments(program, specs, max_fragment, str(record.get("id", "task")))
    if order == "epilogue-first":
        frags = heavy_last(frags)
    # The whole program goes first, as the task itself (whole_task; its rendered fragment is dropped): it is the
    # policy's single-shot answer, so even a search cut short by its budget is never worse than not searching;
    # the rest stay shortest first.
    frags = [whole_task(record, program, comp)] + [f for f in frags if f["span"] != [0, len(comp) - 1]] \
        if comp else frags
    for a, b, why in skipped:
        log({"event": "fragment_skipped", "span": [a, b], "why": why})
    log({"event": "start", "n_ops": len(comp), "fragments": len(frags), "skipped": len(skipped)})
    stats = {"n_ops": len(comp), "fragments": len(frags), "skipped": len(skipped), "samples": 0, "judged": 0,
             "speed_measured": speed_measured}
    if proposer is None:
        res = reference_result(record, "--policy reference samples no fragment.")
        res.update(cover=[[0, len(comp) - 1, "torch"]] if comp else [], stats=stats)
        return res

    # Fragments: sample, judge, keep the fastest correct.
    kernels, torch_ms, torch_src = {}, {}, {}
    bar = _bar(len(frags), progress, f"fragments {record.get('id', '')}")
    # One round of the worker pool per batch, so --time-budget-s is checked often: on the H200 one batch of 16
    # paper-size level-5 fragments (two rounds of 8 workers) outlasted a 120 s call with a 20 s budget.
    chunk = max(1, workers)
    stopped = None
    for i in range(0, len(frags), chunk):
        if i > 0 and time_budget_s is not None and time.time() - t0 > time_budget_s:  # the first batch always runs
            stopped = f"time budget {time_budget_s:g} s"
        if sample_budget is not None and stats["samples"] + samples > sample_budget:
            stopped = f"sample budget {sample_budget}"
        if stopped:
            break
        part = frags[i:i + chunk]
        if sample_budget is not None:
            part = part[:max(1, (sample_budget - stats["samples"]) // samples)]
        cands = yield Propose(proposer, part, samples, seed + i)
        verdicts = yield part, cands
        stats["samples"] += samples * len(part)
        stats["judged"] += sum(c["text"] is not None for cs in cands for c in cs)
        for frag, cs, vs in zip(part, cands, verdicts):
            a, b = frag["span"]
            ok = preferred(vs, [j for j, v in enumerate(vs) if v.correct], precision)
            best = min(ok, key=lambda j: (vs[j].runtime_ms if vs[j].runtime_ms is not None else 0.0, j)) if ok else None
            if best is not None:
                kernels[(a, b)] = {"solution": solution_text(cs[best]), "fragment": frag,
                                   "runtime_ms": vs[best].runtime_ms, "plan": cs[best].get("plan"),
                                   "verdict": vs[best]}
            if frag.get("whole") and any(c.get("plan") for c in cs):  # each plan's outcome on the task itself
                stats["whole_plans"] = {str(c.get("plan", j)): (v.runtime_ms if v.correct else v.error_type)
                                        for j, (c, v) in enumerate(zip(cs, vs))}
            if a == b and best is not None and vs[best].ref_ms is not None:
                torch_ms[a], torch_src[a] = vs[best].ref_ms, "judge"
            log({"event": "fragment", "span": [a, b], "ops": frag["ops"], "n_samples": len(vs),
                 "n_correct": len(ok), "best": best, "runtime_ms": vs[best].runtime_ms if ok else None,
                 "ref_ms": vs[best].ref_ms if ok else None, "whole": bool(frag.get("whole")),
                 "verdicts": [{"correct": v.correct, "error_type": v.error_type, "error_msg": v.error_msg[:300],
                               "runtime_ms": v.runtime_ms, "plan": c.get("plan")} for c, v in zip(cs, vs)]})
        if bar is not None:
            bar.update(len(part))
        if len(part) < len(frags[i:i + chunk]):
            stopped = f"sample budget {sample_budget}"
            break
    if bar is not None:
        bar.close()
    if stopped:
        log({"event": "budget", "stopped": stopped, "fragments_tried": stats["judged"]})
        stats["stopped"] = stopped
    whole_only = list(kernels) == [(0, len(comp) - 1)] and kernels[(0, len(comp) - 1)]["fragment"].get("whole")
    if speed_measured and not whole_only:
        # An op no correct kernel covers is PyTorch in every cover: its time adds the same to each cover's cost and
        # cannot change their order, so it is not timed (cost 0, source "uncovered"). On KernelBench level 2 that
        # is the GEMM or convolution whose fragments an epilogue-first budget never reached: timing it in this
        # process at real size held up every search of the chunk.
        for a in uncovered_ops(len(comp), kernels):
            if a not in torch_ms:
                torch_ms[a], torch_src[a] = 0.0, "uncovered"
        single = {f["span"][0]: f for f in frags if f["span"][0] == f["span"][1]}
        for a in range(len(comp)):
            if a not in torch_ms and a in single:
                torch_ms[a], torch_src[a] = time_torch_ms(single[a]["source"], device), "in_process"
        # ops without a single-op fragment (KernelBench L2 task 12 raised StopIteration here)
        missing = [a for a in range(len(comp)) if a not in torch_ms]
        for a, ms in time_ops_ms(program, record["source"], missing, device).items():
            torch_ms[a], torch_src[a] = ms, "in_program"
        log({"event": "torch_ms", "ms": [torch_ms[a] for a in range(len(comp))],
             "source": [torch_src[a] for a in range(len(comp))]})
        kernel_ms = {k: v["runtime_ms"] for k, v in kernels.items() if v["runtime_ms"] is not None}
    else:
        kernel_ms = {k: None for k in kernels}
    stats["kernels"] = len(kernel_ms)

    # Covers: beam DP, assemble, judge end to end (a second round of covers if none is correct). The cover of
    # the whole program alone is not judged again: its fragment was the task itself (whole_task).
    if whole_only:   # nothing else was tried (a budget stopped the search): that one cover, no PyTorch timing
        ranked = [((kernel_ms.get((0, len(comp) - 1)), 1), [(0, len(comp) - 1, "kernel")])]
    else:
        ranked = beam_covers(len(comp), torch_ms, kernel_ms, 2 * beam, speed_measured)
    reference_rank = next((r for r, (_, segs) in enumerate(ranked) if all(s[2] == "torch" for s in segs)), None)
    winner = None
    for rnd in range(2):
        round_covers = [(c, segs) for c, segs in ranked[rnd * beam:(rnd + 1) * beam]
                        if any(s[2] == "kernel" for s in segs)]
        sources, kept, verdicts, judge_at = [], [], [], []
        for c, segs in round_covers:
            whole = kernels.get((0, len(comp) - 1)) if len(segs) == 1 else None
            if whole is not None and whole["fragment"].get("whole"):
                sources.append(whole["solution"])
                verdicts.append(whole["verdict"])
                kept.append((c, segs))
                continue
            try:
                sources.append(assemble(program, record["source"], segs, kernels))
                verdicts.append(None)
                judge_at.append(len(kept))
                kept.append((c, segs))
            except SearchError as e:
                log({"event": "cover", "cover": segs, "cost": list(c), "error": f"assembly: {e}"})
        if judge_at:
            got = yield [{"source": record["source"]}] * len(judge_at), [[answer(sources[k])] for k in judge_at]
            for k, vs in zip(judge_at, got):
                verdicts[k] = vs[0]
        for (c, segs), src, v in zip(kept, sources, verdicts):
            plans = [kernels[(a, b)].get("plan") for a, b, k in segs if k == "kernel"]
            log({"event": "cover", "round": rnd, "cover": segs, "cost": list(c), "correct": v.correct,
                 "error_type": v.error_type, "error_msg": v.error_msg[:300], "runtime_ms": v.runtime_ms,
                 "speedup": v.speedup, "plans": plans})
            faster = speed_measured and winner is not None and \
                (v.runtime_ms or math.inf) < (winner["verdict"].runtime_ms or math.inf)
            if precision == "fp32" and winner is not None and v.correct:  # within 1e-4 first, then speed
                within, won_within = KB_TOL_FLAG not in v.flags, KB_TOL_FLAG not in winner["verdict"].flags
                faster = within > won_within or (within == won_within and faster)
            if v.correct and (winner is None or faster):
                winner = {"kind": "hybrid", "solution": src, "verdict": v, "cover": segs, "plans": plans}
        settled = winner is not None and not (precision == "fp32" and KB_TOL_FLAG in winner["verdict"].flags)
        if settled or not round_covers:  # under fp32 a winner outside 1e-4 lets the next round try other covers
            break
    if winner is not None and do_autotune:
        if speed_measured:
            tuned = yield from autotune(record["source"], winner["solution"], winner["verdict"], log, precision)
            winner.update(tuned)
        else:
            log({"event": "autotune", "skipped": "speed not measured (CPU): autotuning is a no-op"})
    stats["wall_s"] = round(time.time() - t0, 2)
    if allow_reference and (winner is None or (speed_measured and winner["verdict"].ref_ms is not None
                                               and winner["verdict"].ref_ms < (winner["verdict"].runtime_ms or math.inf))):
        why = "No correct hybrid was found." if winner is None else \
            (f"The all-PyTorch program ({winner['verdict'].ref_ms:.4g} ms) beat the best hybrid "
             f"({winner['verdict'].runtime_ms:.4g} ms); DP rank of the all-PyTorch cover: {reference_rank}.")
        res = reference_result(record, why)
        if winner is not None:
            res["best_hybrid"] = {"solution": winner["solution"], "verdict": winner["verdict"].to_dict(),
                                  "cover": winner["cover"]}
        res.update(cover=[[0, len(comp) - 1, "torch"]], stats=stats)
        if winner is None:
            res["kind"] = "failed_reference"
        return res
    if winner is None:
        return {"kind": "failed", "solution": None, "verdict": None, "cover": None, "stats": stats}
    winner["verdict"] = winner["verdict"].to_dict()
    winner["cover"] = [list(s) for s in winner["cover"]]
    winner["stats"] = stats
    return winner


def search_tasks(records, proposer, judge, samples=1, seed=0, sample_budget=None, time_budget_s=None, logs=None,
                 order="shortest", beam=BEAM, progress=None, precision="any"):
    """eval.py --search contract: the searches of several tasks run together (`drive`: one judge call a round for
    all of them). Returns one item per record: search_program's result (allow_reference=False, so "kind" is
    "hybrid" or "failed"; a hybrid's "verdict" is the judge's end-to-end verdict of its "solution" on the task
    itself, a dict) with "plans" (the teacher plan of each kernel of the cover, where the proposer tags them),
    or the exception that ended that task's search. sample_budget and time_budget_s as search_program's (the
    time budget counts from the start of the batch); logs[i] receives record i's events and then one
    {"event": "result", "kind", "cover", "stats", "plans"}. beam: covers judged end to end a round per task
    (search_program's); progress: drive's line callback; precision: search_steps'. proposer None (the reference policy) gives
    "failed" results: the judge has no reference mode (see --policy reference above)."""
    logs = logs or [None] * len(records)
    from policy import ReferencePolicy

    if proposer is None or isinstance(proposer, ReferencePolicy):
        return [{"kind": "failed", "solution": None, "verdict": None, "cover": None, "stats": {},
                 "plans": None} for _ in records]
    steps = []
    for rec, log in zip(records, logs):
        steps.append(search_steps(rec, proposer, judge.device, judge.time_trials, workers=getattr(judge, "workers", 2),
                                  samples=samples, seed=seed, sample_budget=sample_budget, time_budget_s=time_budget_s,
                                  allow_reference=False, log=log, progress=False, order=order, beam=beam,
                                  precision=precision))
    results = drive(steps, judge, progress=progress)
    for res, log in zip(results, logs):
        if isinstance(res, dict):
            res.setdefault("plans", None)
            if log is not None:
                log({"event": "result", "kind": res["kind"], "cover": res["cover"], "stats": res["stats"],
                     "plans": res["plans"]})
    return results


def _bar(total, progress, desc):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, leave=False, file=sys.stderr)


# ----------------------------------------------------------------------------------------------------
# CLI


def build_parser():
    import teacher  # its plan flags (teacher imports no torch)

    p = synth.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--task", required=True,
                   help="a KernelBench-format .py task, a synthetic JSONL (every task) or JSONL:ID (one task)")
    p.add_argument("--policy", required=True,
                   help="CKPT_DIR | model:ID | teacher | reference | single-op (teacher on one-op fragments only)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--max-fragment", type=int, default=5, help="most compute ops in one fragment")
    p.add_argument("--samples", type=int, default=1, help="policy samples per fragment (K)")
    p.add_argument("--beam", type=int, default=BEAM, help="covers kept by the DP and judged end to end (B)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="judge device; speed needs cuda")
    p.add_argument("--sample-budget", type=int, default=None, help="most policy samples per task (all fragments)")
    p.add_argument("--time-budget-s", type=float, default=None, help="wall-clock limit of the fragment phase, seconds")
    p.add_argument("--autotune", action="store_true", help="tune BLOCK*/num_warps of the winner (CUDA only)")
    p.add_argument("--order", choices=ORDERS, default="shortest",
                   help="fragment order after the whole program: shortest first, or epilogue-first (those without a "
                        "GEMM/convolution first, for a sample budget)")
    p.add_argument("--limit", type=int, default=None, help="with a task set: only the first N tasks")
    p.add_argument("--level", default=None,
                   help="level recorded for every task; default: a directory's levelN (KernelBench/level2 -> 2), "
                        "else the record's own")
    p.add_argument("--workers", type=int, default=2, help="judge worker processes")
    p.add_argument("--timeout-s", type=float, default=120.0, help="wall-clock limit per candidate, seconds")
    p.add_argument("--trials", type=int, default=3, help="correctness trials per candidate")
    p.add_argument("--time-trials", type=int, default=30,
                   help="timed runs per candidate (cuda only); fewer than eval.py's 100 because search times every "
                        "fragment and cover; time the result with eval.py for a reported speedup")
    p.add_argument("--seed", type=int, default=0, help="seed of trial inputs, sampling and the teacher")
    p.add_argument("--precision", choices=PRECISIONS, default="any",
                   help="fp32: kernels and covers within KernelBench's fp32 1e-4 win over faster ones outside it "
                        "(eval.py --precision)")
    teacher.add_plan_flags(p, "each a candidate per fragment; the fastest correct is the fragment's kernel")
    p.add_argument("--max-new-tokens", type=int, default=2048, help="generation length limit, tokens (model policies)")
    p.add_argument("--temperature", type=float, default=None, help="sampling temperature; default 0 for K=1, else 0.8")
    p.add_argument("--top-p", type=float, default=0.95, help="nucleus sampling mass")
    p.add_argument("--gen-batch-size", type=int, default=16, help="prompts per generation call (model policies)")
    p.add_argument("--engine", default="auto",
                   help="policy.generate engine for model policies (policy.ENGINES); auto = the fast engine on CUDA, "
                        "plain generate on CPU")
    return p


def load_records(spec, limit=None, level=None):
    """--task: a .py file, a directory of them, a synthetic JSONL, or JSONL:ID (read_task_set)."""
    if os.path.exists(spec):
        path, task_id = spec, ""
    else:
        path, _, task_id = spec.rpartition(":")
        if not path or not os.path.exists(path):
            raise SearchError(f"--task {spec}: no such file or directory")
    records = read_task_set(path, level)
    if task_id:
        records = [r for r in records if str(r["id"]) == task_id]
        if not records:
            raise SearchError(f"no task {task_id!r} in {path}")
    return records[:limit] if limit else records


def make_proposer(args):
    if args.policy == "reference":
        return None
    if args.policy == "single-op":
        return SingleOpPolicy(args.device, args.seed)
    import policy

    return policy.make_policy(args.policy, args)  # it reads --teacher-plans ("all" or a list: policy.teacher_plans)


def main(argv=None):
    """`python search.py`: a bad flag or input is one line and exit code 2 (parser.error), found before --out is
    written; a model that will not load (policy.ModelLoadError) ends in synth.run_main's one line, exit code 1."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.temperature is None:
        args.temperature = 0.0 if args.samples == 1 else 0.8
    for name in ("max_fragment", "samples", "beam", "workers", "trials", "limit", "sample_budget"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    for name in ("timeout_s", "time_budget_s"):
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be > 0, got {getattr(args, name)}")
    try:
        records = load_records(args.task, args.limit, args.level)
        synth.check_out_path(args.out, "--out", is_dir=True)
    except (SearchError, OSError, ValueError) as e:
        parser.error(synth.one_line(e))
    from policy import ModelNotFoundError, PolicySpecError
    from reward import Judge

    try:  # the model loads before --out is made: a model that will not load leaves no half-made folder
        proposer = make_proposer(args)
    except (PolicySpecError, ModelNotFoundError) as e:  # a bad --policy/--engine, a model path that is not there
        parser.error(f"--policy {args.policy}: {exception_text(e)}")
    os.makedirs(args.out, exist_ok=True)
    args.out = os.path.abspath(args.out)  # run.json's paths hold from any working directory
    if os.path.exists(args.task):
        args.task = os.path.abspath(args.task)
    write_json_atomic(os.path.join(args.out, "run.json"),
                      {"args": vars(args), "argv": ["python", "search.py"] + argv, **run_info()})
    print(f"tasks {len(records)} | policy {args.policy} | device {args.device} | max-fragment {args.max_fragment} | "
          f"samples {args.samples} | beam {args.beam} | speed {'measured' if args.device == 'cuda' else 'not measured: CPU covers prefer most ops in Triton, fewest fragments'}",
          flush=True)
    summary = []
    with Judge(workers=args.workers, device=args.device, timeout_s=args.timeout_s, trials=args.trials, policy="partial",
               time_trials=args.time_trials if args.device == "cuda" else 0, seed=args.seed) as judge:
        for rec in records:
            out = args.out if len(records) == 1 else os.path.join(args.out, re.sub(r"[^\w.-]", "_", str(rec["id"])))
            os.makedirs(out, exist_ok=True)
            log_path = os.path.join(out, "fragments.jsonl")
            open(log_path, "w").close()

            def log(row, path=log_path):
                with open(path, "a") as f:
                    f.write(json.dumps(row, default=str) + "\n")
            # One task never stops the run: an import failure, an unsupported task (SearchError) or a
            # bug in the search or the proposer is this task's failed row; the traceback goes to its log.
            stage = "import_error"
            try:
                trace_task(rec)
                stage = "search_bug"
                res = search_program(rec, proposer, judge, max_fragment=args.max_fragment, samples=args.samples,
                                     beam=args.beam, seed=args.seed, sample_budget=args.sample_budget,
                                     time_budget_s=args.time_budget_s, do_autotune=args.autotune, log=log,
                                     order=args.order, precision=args.precision)
            except Exception as e:  # noqa: BLE001 -- recorded by type with its traceback, never swallowed
                import traceback

                error_type = "search_error" if stage == "search_bug" and isinstance(e, SearchError) else stage
                log({"event": "error", "error_type": error_type, "error_msg": exception_text(e),
                     "traceback": traceback.format_exc()})
                res = {"kind": "failed", "solution": None, "verdict": None, "cover": None,
                       "stats": {"error_type": error_type, "error": exception_text(e)}}
            if res["solution"] is not None:
                with open(os.path.join(out, "solution.py"), "w") as f:
                    f.write(res["solution"])
            write_json_atomic(os.path.join(out, "verdict.json"),
                              {k: res.get(k) for k in ("kind", "verdict", "cover", "stats", "best_hybrid")})
            v = res["verdict"] or {}
            row = {"task_id": str(rec["id"]), "level": rec.get("level"), "kind": res["kind"],
                   "correct": bool(v.get("correct")) and res["kind"] in ("hybrid", "reference"),
                   "hybrid_correct": res["kind"] == "hybrid" and bool(v.get("correct")),
                   "speedup": v.get("speedup"), "cover": res.get("cover"), **(res.get("stats") or {})}
            summary.append(row)
            with open(os.path.join(args.out, "summary.jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"task {len(summary):04d}/{len(records):04d} | {row['task_id']} | {row['kind']} | "
                  f"correct {int(row['correct'])} | ops {row.get('n_ops')} | kernels {row.get('kernels')} | "
                  f"cover {_cover_str(row['cover'])} | speedup {row['speedup']}"
                  + (f" | error {row['error_type']}: {row['error'][:120]}" if row.get("error_type") else ""),
                  flush=True)
    n = len(summary)
    agg = {"n_tasks": n, "hybrid_correct": sum(r["hybrid_correct"] for r in summary) / n if n else None,
           "correct": sum(r["correct"] for r in summary) / n if n else None, "out": args.out}
    print(json.dumps(agg))
    return 0


def _cover_str(cover):
    if not cover:
        return "-"
    return " ".join(f"K[{a}-{b}]" if k == "kernel" else f"T{a}" for a, b, k in cover)


if __name__ == "__main__":
    sys.exit(synth.run_main(main, on_interrupt="interrupted; the tasks finished so far are in --out (summary.jsonl)"))
