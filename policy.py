"""policy.py: the model side of DRTriton: loading, LoRA, the prompt, generation, token log-probs, proposers.

One place owns each of these so that SFT, RL, search and eval agree on them:

- `task_prompt(task_source)` is the model-agnostic user message (KernelBench's instruction: replace the
  PyTorch operators with custom Triton kernels, name the class ModelNew, answer with one python block).
  SFT pairs store it as "prompt"; `render_prompt` / `render_user` put it through the tokenizer's chat
  template (or a plain template when there is none). A policy's `source_form` says whether its prompts show
  the source as written or without docstrings and comments (`code_only`); it is saved with the checkpoint.
  Prompt text is always encoded with `add_special_tokens=False`: the template already holds every special token.
- `load_policy(model=None)` builds the built-in tiny default: a Qwen2-architecture model from a config
  (a few million parameters, random weights) and a byte-level BPE tokenizer trained here on the caller's
  corpus; both are saved in `run_dir` so a resumed run reuses them. Nothing is downloaded.
  `load_policy("Qwen/Qwen2.5-Coder-7B-Instruct")` (or a local path, or a checkpoint written by
  `save_policy`) loads any causal LM. LoRA on all linear layers (`lora_r=0` means full fine-tuning),
  optional 4-bit base (bitsandbytes, CUDA only), bf16 base on CUDA, fp32 on CPU.
- A train.py run's checkpoints are read here (`checkpoint_dirs`, `resolve_checkpoint`, `latest_intact_checkpoint`,
  `load_trainer_state`, `restore_rng`), by --resume, --init, eval.py and the pipeline alike; train.py writes them.
- An SFT pair's token ids and loss mask (`encode_pairs`, `collate`) and its loss (`completion_nll_sum`).
- `generate(policy, prompts, ...)` samples completions of rendered prompts and returns `Sample`s with
  token ids and per-token log-probs. The LoRA adapter is merged for sampling and unmerged afterwards.
  `engine="hf"` is plain `transformers` generate; "static" / "cudagraph" / "compile" are the fast engine
  (a static KV cache, decode steps replayed as CUDA graphs), each also with fused projections
  ("_fused") and/or a split-KV Triton decode attention ("_splitkv"), e.g. "compile_fused_splitkv"
  (`FAST_ENGINES`); "auto" picks one on CUDA.
- `token_logprobs(model, ...)` is the one log-prob routine: the decoder runs once, then the output layer
  runs over the *selected* positions only, in chunks, in fp32, each chunk under activation checkpointing,
  so full fp32 vocab logits for a batch never exist (7B: 152k vocab x 16 x 2048 tokens would be 20 GB).
  The SFT loss (-mean over completion tokens) and the RL scores both use it (RL's at the rollouts' temperature).
- The proposers (end of file): every source of answers eval.py and search.py use, behind one interface
  `propose(records, n_samples, seed)`: `ModelPolicy` (a model or checkpoint through the above), `TeacherPolicy`
  (teacher.compile_program), `ReferencePolicy`, `SolutionsPolicy`; `make_policy(spec, args)` picks one for a
  --policy flag, and `answer` / `no_answer` / `failure` build their candidates.

Differences from a textbook setup, on purpose:
- Log-probs in `Sample.logprobs` are of the model's own distribution (temperature 1, no top-p), computed
  after sampling by the same routine the trainer uses, so the RL ratio is exactly 1 before an update.
- Merging and unmerging a LoRA adapter into a bf16 base is not exact: each cycle rounds the base
  weights (about half an ulp). A 4-bit base is never merged (requantising would be lossier); sampling
  then runs through the adapter.

Usage (a smoke test of the tiny default):
    python policy.py --corpus tasks.jsonl --prompt-file task.py --max-new-tokens 64
"""
import contextlib
import dataclasses
import functools
import json
import os
import random
import re
import shutil
import sys
import typing

import torch
import torch.utils.checkpoint

import synth

# ----------------------------------------------------------------------------------------------------
# The prompt (one function owns it)

PROMPT_INSTRUCTION = """\
You write custom Triton kernels that replace PyTorch operators to make programs faster.

Below is a PyTorch program in KernelBench format. Write a new version of it:
- name the new class ModelNew, with the same constructor arguments as Model and the same forward outputs;
- compute the forward pass with your own @triton.jit kernels (you may fuse several operators into one);
- keep the parameters Model creates, created in the same order, so the two models match for a given seed;
- do not use try/except fallbacks, threads or other tricks; plain PyTorch is allowed only for glue.

Answer with one short sentence, then the complete solution in a single ```python code block."""

PLAIN_TEMPLATE = "### Instruction\n{user}\n\n### Response\n"  # for tokenizers without a chat template

# ChatML, as Qwen uses it, for the tiny tokenizer.
TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
TINY_SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]  # pad, turn start, eos

_PY_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


# How a policy is shown the task's source (`Policy.source_form`, saved with its checkpoint, so a model is always
# prompted the way it was trained): "raw" as written; "code" without docstrings and comments (`code_only`).
# Why "code" exists: a small model trained from scratch saw KernelBench's sources as out of
# distribution. Their docstrings made level 1's prompts a median 449 tokens (p90 792) against 352 (max 696) over
# gpu-small's training prompts, and the model wrote garbled code (23 of level 1's answers did not parse). Without
# docstrings and comments the two are alike: 307 (max 554) against 296 (max 539). The program itself is unchanged.
SOURCE_FORMS = ("raw", "code")


def code_only(source: str) -> str:
    """`source` without its docstrings (a string statement first in a module, class or function body, on lines of
    its own; `pass` stands in where it was the whole body) and comments, trailing whitespace and runs of blank
    lines. What runs is unchanged. A source that does not parse, or would not after the cut, comes back as is."""
    import ast
    import io
    import tokenize

    try:
        tree = ast.parse(source)
        comments = [t.start for t in tokenize.generate_tokens(io.StringIO(source).readline)
                    if t.type == tokenize.COMMENT]
    except (SyntaxError, ValueError, tokenize.TokenError):
        return source
    lines = source.splitlines()
    replace: dict[int, str | None] = {}  # 1-based line -> new text (None: dropped)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) or not body:
            continue
        doc = body[0]
        if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
            continue
        first, last = lines[doc.lineno - 1], lines[doc.end_lineno - 1]
        if first[:doc.col_offset].strip() or last[doc.end_col_offset:].strip().split("#")[0].strip():
            continue  # shares a line with other code
        for i in range(doc.lineno, doc.end_lineno + 1):
            replace[i] = None
        if len(body) == 1 and not isinstance(node, ast.Module):
            replace[doc.lineno] = " " * doc.col_offset + "pass"
    for row, col in comments:
        if replace.get(row, "") is not None:
            text = replace.get(row, lines[row - 1])[:col].rstrip()
            replace[row] = text if text.strip() else None
    out = []
    for i, line in enumerate(lines, 1):
        line = replace.get(i, line)
        if line is None:
            continue
        line = line.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    text = "\n".join(out).strip("\n") + "\n"
    try:
        ast.parse(text)
    except SyntaxError:
        return source
    return text


def source_in_form(task_source: str, form: str = "raw") -> str:
    if form not in SOURCE_FORMS:
        raise ValueError(f"source form must be one of {', '.join(SOURCE_FORMS)}, got {form!r}")
    return code_only(task_source) if form == "code" else task_source


def task_prompt(task_source: str, form: str = "raw") -> str:
    """The user message for one task: the instruction, then the task's source (in `form`) in a python block."""
    return f"{PROMPT_INSTRUCTION}\n\nPyTorch program:\n```python\n{source_in_form(task_source, form).strip()}\n```\n"


def task_source_from_prompt(prompt: str):
    """Inverse of `task_prompt`: the task source inside a user message, or None if it has none."""
    blocks = _PY_BLOCK.findall(prompt)
    return blocks[-1] if blocks else None


def prompt_in_form(prompt: str, form: str) -> str:
    """A stored user message (an SFT pair's, written raw) with the source in its last python block put in `form`;
    the rest of the message as it was."""
    blocks = list(_PY_BLOCK.finditer(prompt))
    if form == "raw" or not blocks:
        return prompt
    m = blocks[-1]
    return prompt[:m.start(1)] + source_in_form(m.group(1), form).strip() + "\n" + prompt[m.end(1):]


def render_user(tokenizer, user_text: str) -> str:
    """A user message as the model sees it, ending where the assistant's answer starts."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": user_text}], tokenize=False, add_generation_prompt=True)
    bos = tokenizer.bos_token or ""
    return bos + PLAIN_TEMPLATE.format(user=user_text)


def render_prompt(tokenizer, task_source: str, form: str = "raw") -> str:
    """The rendered prompt for a task source, its source in `form` (the policy's `source_form`); SFT, RL, search
    and eval all call this."""
    return render_user(tokenizer, task_prompt(task_source, form))


def encode(tokenizer, text: str) -> list:
    """Token ids of rendered text; no special tokens added (the template holds them)."""
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def eos_ids(policy) -> list:
    """Every token id that ends an answer (the tokenizer's eos and the model's generation eos)."""
    ids = set()
    if policy.tokenizer.eos_token_id is not None:
        ids.add(policy.tokenizer.eos_token_id)
    gen_eos = getattr(getattr(policy.model, "generation_config", None), "eos_token_id", None)
    if isinstance(gen_eos, int):
        ids.add(gen_eos)
    elif gen_eos:
        ids.update(gen_eos)
    return sorted(ids)


# ----------------------------------------------------------------------------------------------------
# The tiny default: tokenizer and model built locally


def train_tokenizer(texts, vocab_size: int, max_token_chars: int = 0):
    """A byte-level BPE tokenizer trained on `texts`, wrapped for transformers with a ChatML template.

    max_token_chars 0: GPT-2's word-level pre-split, so no token spans two words. N > 0: a token may span words and
    spaces within one line (never a line break, which starts the next line's first token with its indent), up to
    N characters: phrases of code such as `, mask=mask)` become one token, so the same program is ~3x fewer tokens
    (the tiny preset's 16: 551 -> 198 tokens on its pairs), which cuts every stage's compute."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = [t for t in texts if t]
    if not texts:
        raise ValueError("train_tokenizer needs a non-empty corpus of texts")
    if max_token_chars < 0:
        raise ValueError(f"max_token_chars must be >= 0 (0: word-level tokens), got {max_token_chars}")
    bpe = Tokenizer(models.BPE())
    if max_token_chars:
        bpe.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"\n"), behavior="merged_with_next"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=TINY_SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
                                  max_token_length=max_token_chars or None)
    bpe.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   chat_template=TINY_CHAT_TEMPLATE)


def tiny_model_config(tokenizer, hidden_size, num_layers, num_heads, num_kv_heads, intermediate_size,
                      max_positions):
    """A Qwen2 config sized by the caller; the vocab is the tokenizer's, rounded up to a multiple of 64."""
    from transformers import Qwen2Config

    vocab = (len(tokenizer) + 63) // 64 * 64
    return Qwen2Config(vocab_size=vocab, hidden_size=hidden_size, num_hidden_layers=num_layers,
                       num_attention_heads=num_heads, num_key_value_heads=num_kv_heads,
                       intermediate_size=intermediate_size, max_position_embeddings=max_positions,
                       tie_word_embeddings=True, bos_token_id=None, eos_token_id=tokenizer.eos_token_id,
                       pad_token_id=tokenizer.pad_token_id)


# Sizes of the tiny default; train.py exposes each as a --tiny-* flag.
TINY_SIZES = dict(vocab_size=4096, hidden_size=256, num_layers=4, num_heads=4, num_kv_heads=2,
                  intermediate_size=688, max_positions=4096, max_token_chars=0)


# ----------------------------------------------------------------------------------------------------
# Loading


@dataclasses.dataclass
class Policy:
    model: torch.nn.Module          # a PeftModel when `lora`, else the transformers model itself
    tokenizer: object
    device: torch.device
    dtype: torch.dtype              # dtype of the base weights
    lora: bool                      # an adapter is attached (and is what trains)
    quantized: bool                 # 4-bit base
    base: str                       # hub id or path of the base model ("tiny" for the built-in default)
    source_form: str = "raw"        # how its prompts show a task's source (SOURCE_FORMS); saved with it


def resolve_device(device=None) -> torch.device:
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def release_gpu_cache() -> None:
    """Give the CUDA blocks this process has cached but does not use back to the driver, before judge workers (other
    processes on the same GPU) get work (a no-op without CUDA). Generation and, in a pipeline, SFT leave
    GBs in the caching allocator (gpu-small's SFT peaks at 12.8 GB), which a judge's exclusive retry then sees as
    taken: it counts the GPU's free memory to decide whether a KernelBench task's reference outputs stay on the GPU
    or go to the host, where copying them took 25-31 s per level-1 norm task."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.empty_cache()


def resolve_dtype(dtype, device: torch.device) -> torch.dtype:
    """bf16 on CUDA, fp32 on CPU (bf16 matmuls are slow there) unless the caller says otherwise."""
    if dtype in (None, "auto"):
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    return {"bf16": torch.bfloat16, "bfloat16": torch.bfloat16, "fp16": torch.float16,
            "fp32": torch.float32, "float32": torch.float32}[dtype]


class ModelLoadError(synth.RunError):
    """A model that cannot be loaded: the message names the path or hub id and what to do instead. A CLI ends
    with it as one line and exit code 1 (synth.run_main)."""


class ModelNotFoundError(ModelLoadError):
    """A model path that does not exist, or a name that is neither a local directory nor a valid hub id; a CLI
    whose flag named it reports a usage error."""


class CheckpointError(ModelLoadError):
    """A corrupt or incomplete file of a saved policy or model directory (policy.json, model.safetensors, the
    adapter, the tokenizer); `path` is that file, so a caller can name it or fall back to an older checkpoint."""

    def __init__(self, path, reason):
        self.path = path
        super().__init__(f"{path}: {synth.one_line(reason)}")


HUB_PROBE_S = 3.0  # how long a hub id may wait for the hub to answer before loading fails (offline machines)


def _hub_reachable(endpoint, timeout_s=HUB_PROBE_S) -> bool:
    """Whether a TCP connection to the hub's host opens within timeout_s. Name lookup runs in a thread, so a
    resolver that hangs without network costs timeout_s, not the retries of a download."""
    import socket
    import threading
    import urllib.parse

    url = urllib.parse.urlparse(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    result = []

    def probe():
        try:
            socket.create_connection((url.hostname, port), timeout=timeout_s).close()
            result.append(True)
        except OSError:
            result.append(False)
    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout_s)
    return bool(result and result[0])


def check_model_source(name) -> bool:
    """Check that `name` (a local model directory or a hub id) can be loaded, before anything is downloaded or
    written; returns whether to load from the local hub cache only (True when the hub is off or unreachable and
    the model is cached). Raises ModelNotFoundError for a path that does not exist, ModelLoadError for a hub id
    that is not cached while the hub is off (HF_HUB_OFFLINE) or unreachable: that takes HUB_PROBE_S, not the
    download's minute of retries."""
    name = str(name)
    if os.path.isdir(name):
        return False
    if os.path.exists(name):
        raise ModelNotFoundError(f"model {name}: not a directory (a model is a directory or a hub id)")
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise ModelNotFoundError(f"model {name}: no such directory")
    from huggingface_hub import constants, try_to_load_from_cache

    try:
        cached = isinstance(try_to_load_from_cache(name, "config.json"), str)
    except ValueError as e:  # huggingface_hub's HFValidationError: not a repo id
        raise ModelNotFoundError(f"model {name!r} is neither a local directory nor a hub id ({e})") from None
    if not constants.HF_HUB_OFFLINE and _hub_reachable(constants.ENDPOINT):
        return False
    if cached:
        return True
    why = "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else f"{constants.ENDPOINT} cannot be reached"
    raise ModelLoadError(f"model {name!r} is not a local directory nor in the hub cache ({constants.HF_HUB_CACHE}), "
                         f"and {why}: download it where there is network (huggingface-cli download {name} "
                         f"--local-dir DIR), then pass that DIR in place of the id (--model DIR; eval.py --policy "
                         f"model:DIR)")


def _local_file(path, *names):
    """The first of `names` that exists in directory `path` (the file a load error is about), else `path`."""
    return next((os.path.join(path, n) for n in names if os.path.exists(os.path.join(path, n))), path)


@contextlib.contextmanager
def _loading(path, *names):
    """Turn what a corrupt or missing file of the local directory `path` raises while it loads into a
    CheckpointError naming that file (the first of `names` present)."""
    from safetensors import SafetensorError

    try:
        yield
    except (SafetensorError, OSError, ValueError, KeyError, EOFError) as e:
        raise CheckpointError(_local_file(path, *names), f"cannot be loaded ({type(e).__name__}: {e})") from None


def read_policy_json(ckpt) -> dict:
    """A saved policy's policy.json ({"kind": "full" | "lora", "base", "source_form"}); CheckpointError when it is
    not that."""
    path = os.path.join(str(ckpt), "policy.json")
    try:
        with open(path) as f:
            saved = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(path, f"not valid JSON ({e})") from None
    if not isinstance(saved, dict) or saved.get("kind") not in ("full", "lora") or not isinstance(saved.get("base"),
                                                                                                   str):
        raise CheckpointError(path, "not a policy.json (needs kind 'full' or 'lora' and a base)")
    return saved


def check_saved_policy(ckpt) -> None:
    """Raise CheckpointError naming the first torn file of a save_policy directory, without loading a model:
    policy.json, the tokenizer's tokenizer.json, and the header of each .safetensors file of its weights (safetensors
    checks the header against the file's size, so a truncated file fails). train.py's --resume uses it to fall
    back to the newest intact checkpoint."""
    import glob

    from safetensors import SafetensorError, safe_open

    saved = read_policy_json(ckpt)
    tok = os.path.join(str(ckpt), "tokenizer", "tokenizer.json")
    if os.path.exists(tok):
        try:
            with open(tok) as f:
                json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(tok, f"not valid JSON ({e})") from None
    weights_dir = os.path.join(str(ckpt), "model" if saved["kind"] == "full" else "adapter")
    if not os.path.isdir(weights_dir):
        raise CheckpointError(weights_dir, "missing (policy.json names a saved model here)")
    for path in sorted(glob.glob(os.path.join(weights_dir, "*.safetensors"))):
        try:
            with safe_open(path, "pt"):
                pass
        except (SafetensorError, OSError) as e:
            raise CheckpointError(path, f"cannot be read ({e})") from None


# ----------------------------------------------------------------------------------------------------
# A train.py run's checkpoints, read back: <run>/checkpoints/step_NNNNNN holds policy/ (save_policy),
# trainer_state.pt, args.json and run.json. train.py writes them (under torchrun, with every rank's RNG state);
# --resume, --init, eval.py and the pipeline read them here.


def checkpoint_dirs(run_dir) -> list:
    """Complete checkpoints, oldest first. Half-written ones live under .tmp-* names and are ignored."""
    root = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(root):
        return []
    names = sorted(n for n in os.listdir(root) if n.startswith("step_") and n[5:].isdigit())
    return [os.path.join(root, n) for n in names]


def resolve_checkpoint(path):
    """The directory load_policy reads (it holds policy.json) for a train.py run dir (its last checkpoint),
    a checkpoints/step_N dir, or a save_policy dir; None if `path` is none of these."""
    if os.path.isfile(os.path.join(path, "policy.json")):
        return path
    if os.path.isfile(os.path.join(path, "policy", "policy.json")):
        return os.path.join(path, "policy")
    for step_dir in reversed(checkpoint_dirs(path)):
        ckpt = os.path.join(step_dir, "policy")
        if os.path.isfile(os.path.join(ckpt, "policy.json")):
            return ckpt
    return None


def load_trainer_state(ckpt_dir) -> dict:
    # weights_only=False: the file holds numpy RNG state and plain Python objects that train.py wrote itself.
    return torch.load(os.path.join(ckpt_dir, "trainer_state.pt"), map_location="cpu", weights_only=False)


def checkpoint_problem(ckpt_dir) -> str | None:
    """None if every file a resume reads from this checkpoint is whole, else '<file>: <what is wrong>'. Checked
    without building the model: args.json parses, the trainer state's zip archive passes its CRC check (a
    truncated or overwritten torch.save fails it), and the saved policy passes check_saved_policy."""
    import zipfile

    args_path, state_path = os.path.join(ckpt_dir, "args.json"), os.path.join(ckpt_dir, "trainer_state.pt")
    try:
        with open(args_path) as f:
            json.load(f)
    except (OSError, ValueError) as e:  # JSON and UTF-8 errors are ValueErrors
        return f"{args_path}: {synth.one_line(e)}"
    try:
        with zipfile.ZipFile(state_path) as z:
            bad = z.testzip()
    except (OSError, zipfile.BadZipFile) as e:
        return f"{state_path}: {synth.one_line(e)}"
    if bad is not None:
        return f"{state_path}: member {bad} fails its CRC check"
    try:
        check_saved_policy(os.path.join(ckpt_dir, "policy"))
    except (CheckpointError, OSError) as e:
        return synth.one_line(e)
    return None


def latest_intact_checkpoint(run_dir):
    """The newest checkpoint of `run_dir` whose files are whole (checkpoint_problem), saying which newer ones were
    skipped and why; None if there is none at all. A run whose every checkpoint is damaged fails (synth.RunError),
    naming the newest one's damaged file, rather than quietly starting over."""
    ckpts = checkpoint_dirs(run_dir)
    problems = []
    for ckpt in reversed(ckpts):
        problem = checkpoint_problem(ckpt)
        if problem is None:
            for skipped, problem in problems:
                # renamed out of the step_* names: left there it would count as the newest checkpoint, so pruning
                # would delete the good ones after it and --init/eval.py would pick it
                aside = os.path.join(os.path.dirname(skipped), f".damaged-{os.path.basename(skipped)}")
                shutil.rmtree(aside, ignore_errors=True)
                os.replace(skipped, aside)
                print(f"note: skipping a damaged checkpoint ({problem}), kept as {aside}; resuming from {ckpt}",
                      flush=True)
            return ckpt
        problems.append((ckpt, problem))
    if problems:
        raise synth.RunError(f"no intact checkpoint in {run_dir}; the newest is damaged: {problems[0][1]}")
    return None


def capture_rng() -> dict:
    """This process's Python, numpy, torch and CUDA RNG states, as a checkpoint holds them (restore_rng)."""
    import numpy as np

    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state):
    import numpy as np

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _load_tokenizer(path, local_files_only=False):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=local_files_only)
    if tokenizer.pad_token_id is None:  # many base models have none; padding is always masked anyway
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def _tiny_base(run_dir, corpus_texts, tiny_sizes, seed):
    """The tiny tokenizer and random-init model, from `run_dir` when cached there, else built (and saved)."""
    from transformers import Qwen2ForCausalLM

    sizes = dict(TINY_SIZES, **(tiny_sizes or {}))
    tok_dir = os.path.join(run_dir, "tokenizer") if run_dir else None
    base_dir = os.path.join(run_dir, "base_model") if run_dir else None
    if tok_dir and os.path.isdir(tok_dir):
        with _loading(tok_dir, "tokenizer.json", "tokenizer_config.json"):
            tokenizer = _load_tokenizer(tok_dir)
    else:
        if not corpus_texts:
            raise ValueError("the tiny default model needs corpus_texts to train its tokenizer "
                             "(or a run_dir that already holds tokenizer/)")
        tokenizer = train_tokenizer(corpus_texts, sizes["vocab_size"], sizes["max_token_chars"])
        if tok_dir:
            tokenizer.save_pretrained(tok_dir)
    if base_dir and os.path.isdir(base_dir):
        with _loading(base_dir, "model.safetensors", "config.json"):
            model = Qwen2ForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
    else:
        config = tiny_model_config(tokenizer, sizes["hidden_size"], sizes["num_layers"], sizes["num_heads"],
                                   sizes["num_kv_heads"], sizes["intermediate_size"], sizes["max_positions"])
        with torch.random.fork_rng(devices=[]):  # the init is a function of `seed` alone
            torch.manual_seed(seed)
            model = Qwen2ForCausalLM(config)
        if base_dir:
            model.save_pretrained(base_dir)
    return tokenizer, model


def _load_hf_base(path, dtype, load_in_4bit, device, local_files_only=False):
    from transformers import AutoModelForCausalLM

    if load_in_4bit:
        if not torch.cuda.is_available():
            raise RuntimeError("--load-in-4bit needs a CUDA GPU (bitsandbytes 4-bit kernels); none was found")
        try:
            import bitsandbytes  # noqa: F401  (only this branch needs it)
        except ImportError as e:
            raise RuntimeError("--load-in-4bit needs bitsandbytes: pip install bitsandbytes") from e
        from transformers import BitsAndBytesConfig

        quant = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                                   bnb_4bit_compute_dtype=dtype)
        return AutoModelForCausalLM.from_pretrained(path, dtype=dtype, quantization_config=quant,
                                                    device_map={"": device.index or 0},
                                                    local_files_only=local_files_only)
    return AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=local_files_only)


def attach_lora(policy: Policy, r: int, alpha: float, dropout: float) -> Policy:
    """A fresh LoRA adapter on all linear layers. An adapter already attached is merged in first, so that
    disabling the new one gives the previous policy (the RL stage starts this way after SFT)."""
    import peft

    model = policy.model
    if policy.lora:
        model = model.merge_and_unload()
    config = peft.LoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, target_modules="all-linear",
                             task_type="CAUSAL_LM")
    # peft keeps the adapter weights in fp32 over a bf16 base (autocast_adapter_dtype), as it should.
    policy.model = peft.get_peft_model(model, config)
    policy.lora = True
    return policy


def load_policy(model=None, *, corpus_texts=None, run_dir=None, tiny_sizes=None, lora_r=16, lora_alpha=32,
                lora_dropout=0.0, load_in_4bit=False, gradient_checkpointing=False, dtype=None, device=None,
                seed=0, source_form="raw") -> Policy:
    """Load a policy. `model`: None for the tiny default, a hub id, a local model path, or a checkpoint
    directory written by `save_policy` (which restores its adapter or full weights and its source form; `lora_*`
    and `source_form` then unused). `lora_r=0` trains every parameter (what a from-scratch tiny model needs);
    `lora_r>0` attaches LoRA. `source_form`: how a new policy's prompts show a task's source (SOURCE_FORMS).
    Raises ModelLoadError: ModelNotFoundError for a path that does not exist, CheckpointError naming a corrupt
    file, a plain ModelLoadError for a hub id that cannot be had (check_model_source).
    """
    if source_form not in SOURCE_FORMS:
        raise ValueError(f"source_form must be one of {', '.join(SOURCE_FORMS)}, got {source_form!r}")
    device = resolve_device(device)
    dtype = resolve_dtype(dtype, device)
    saved = None
    if model is not None and os.path.isfile(os.path.join(str(model), "policy.json")):
        saved = read_policy_json(model)

    weights = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "config.json")
    if saved is not None:
        ckpt = str(model)
        tok_dir = os.path.join(ckpt, "tokenizer")
        with _loading(tok_dir, "tokenizer.json", "tokenizer_config.json"):
            tokenizer = _load_tokenizer(tok_dir, local_files_only=True)
        if saved["kind"] == "full":
            base_name, base_path = saved["base"], os.path.join(ckpt, "model")
        else:
            base_name = saved["base"]
            base_path = base_name
            rel = os.path.normpath(os.path.join(ckpt, base_name))
            if os.path.isdir(rel):  # bases inside a run dir are stored relative to the checkpoint
                base_path = rel
        if os.path.isdir(base_path):
            with _loading(base_path, *weights):
                hf_model = _load_hf_base(base_path, dtype, load_in_4bit, device, local_files_only=True)
        else:  # a hub base of a LoRA checkpoint
            hf_model = _load_hf_base(base_path, dtype, load_in_4bit, device,
                                     local_files_only=check_model_source(base_path))
    elif model is None:
        base_name = "tiny"
        tokenizer, hf_model = _tiny_base(run_dir, corpus_texts, tiny_sizes, seed)
        hf_model = hf_model.to(dtype)
    else:
        base_name = str(model)
        local_only = check_model_source(base_name)
        if os.path.isdir(base_name):
            with _loading(base_name, "tokenizer.json", "tokenizer_config.json"):
                tokenizer = _load_tokenizer(base_name)
            with _loading(base_name, *weights):
                hf_model = _load_hf_base(base_name, dtype, load_in_4bit, device)
        else:
            tokenizer = _load_tokenizer(base_name, local_files_only=local_only)
            hf_model = _load_hf_base(base_name, dtype, load_in_4bit, device, local_files_only=local_only)

    if not load_in_4bit:
        hf_model = hf_model.to(device)
    hf_model.config.use_cache = False  # training default; generate() turns the cache on for itself
    if load_in_4bit:
        import peft

        hf_model = peft.prepare_model_for_kbit_training(hf_model, use_gradient_checkpointing=gradient_checkpointing)
    if gradient_checkpointing:
        hf_model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})

    policy = Policy(model=hf_model, tokenizer=tokenizer, device=device, dtype=dtype, lora=False,
                    quantized=bool(load_in_4bit), base=base_name,
                    source_form=saved.get("source_form", "raw") if saved is not None else source_form)
    if saved is not None and saved["kind"] == "lora":
        import peft

        adapter = os.path.join(str(model), "adapter")
        with _loading(adapter, "adapter_model.safetensors", "adapter_config.json"):
            policy.model = peft.PeftModel.from_pretrained(hf_model, adapter, is_trainable=True)
        policy.lora = True
    elif saved is None and lora_r > 0:
        attach_lora(policy, lora_r, lora_alpha, lora_dropout)
    elif saved is None and load_in_4bit:
        raise ValueError("a 4-bit base cannot be fully fine-tuned; use lora_r > 0")
    return policy


def save_policy(policy: Policy, out_dir: str, base_dir=None):
    """Write what `load_policy(out_dir)` needs: tokenizer, adapter (or full weights) and policy.json.
    `base_dir`: where the base weights live when they are in a run directory (stored relative to out_dir)."""
    os.makedirs(out_dir, exist_ok=True)
    policy.tokenizer.save_pretrained(os.path.join(out_dir, "tokenizer"))
    if policy.lora:
        policy.model.save_pretrained(os.path.join(out_dir, "adapter"))
        base = os.path.relpath(base_dir, out_dir) if base_dir else policy.base
        meta = {"kind": "lora", "base": base}
    else:
        policy.model.save_pretrained(os.path.join(out_dir, "model"))
        meta = {"kind": "full", "base": policy.base}
    meta["source_form"] = policy.source_form
    with open(os.path.join(out_dir, "policy.json"), "w") as f:
        json.dump(meta, f, indent=1)


def trainable_parameters(policy: Policy) -> list:
    return [p for p in policy.model.parameters() if p.requires_grad]


# ----------------------------------------------------------------------------------------------------
# Token log-probs (chunked, fp32)


def _hf_parts(model):
    """(decoder, output layer, logit softcap) of a transformers causal LM, through a peft wrapper if any."""
    hf = model.get_base_model() if hasattr(model, "get_base_model") else model
    return hf.get_decoder(), hf.get_output_embeddings(), getattr(hf.config, "final_logit_softcapping", None)


def _chunk_logprobs(head, softcap, hidden, targets, temperature=1.0):
    logits = head(hidden).float()  # (chunk, vocab) fp32: the only place full-vocab logits exist
    if softcap:
        logits = torch.tanh(logits / softcap) * softcap
    if temperature != 1.0:
        logits = logits / temperature
    return torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None]).squeeze(-1)


# A right-padded batch runs with the causal mask alone (policy.right_padded): SDPA's flash kernel instead of the
# masked one. bench.py sft-profile turns this off to time the difference.
CAUSAL_WHEN_RIGHT_PADDED = True


def right_padded(attention_mask) -> bool:
    """True when every row of a (B, T) 0/1 mask is ones then zeros (padding on the right only). Then each real
    position t attends to positions 0..t under the causal mask alone, all of them real: dropping the padding mask
    changes only the outputs at padding positions, which no loss or log-prob reads."""
    if attention_mask is None or attention_mask.dim() != 2:
        return False
    m = attention_mask.bool()
    return bool(m[:, 0].all() and (m[:, 1:] <= m[:, :-1]).all())


def token_logprobs(model, input_ids, attention_mask, target_mask, chunk_tokens: int = 512,
                   temperature: float = 1.0) -> torch.Tensor:
    """Log-probs (fp32) of the tokens where `target_mask` is true, each given the tokens before it, under
    softmax(logits / temperature) (train.py's RL scores rollouts under the distribution they were drawn from).

    input_ids, attention_mask, target_mask: (B, T); position 0 is never a target. Returns (N,), the
    selected tokens in row-major order (N = target_mask[:, 1:].sum()). Padding must be on the right or
    on the left with attention_mask zero there. With grad enabled each chunk is checkpointed, so backward
    keeps (N, hidden) activations instead of (N, vocab) fp32 log-probs.
    """
    decoder, head, softcap = _hf_parts(model)
    if CAUSAL_WHEN_RIGHT_PADDED and right_padded(attention_mask):
        attention_mask = None  # the causal mask alone gives the real positions the same attention (see right_padded)
    hidden = decoder(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
    select = target_mask[:, 1:].bool()                      # (B, T-1): position t predicts token t+1
    h = hidden[:, :-1][select]                              # (N, H)
    targets = input_ids[:, 1:][select]                      # (N,)
    out = []
    for start in range(0, h.shape[0], chunk_tokens):
        h_c, t_c = h[start:start + chunk_tokens], targets[start:start + chunk_tokens]
        if torch.is_grad_enabled():
            out.append(torch.utils.checkpoint.checkpoint(_chunk_logprobs, head, softcap, h_c, t_c, temperature,
                                                         use_reentrant=False))
        else:
            out.append(_chunk_logprobs(head, softcap, h_c, t_c, temperature))
    return torch.cat(out) if out else h.new_zeros(0, dtype=torch.float32)


def pad_right(rows, pad_id, multiple=1):
    """(ids, attention_mask) tensors (B, T) from lists of ids, padded on the right; T is the longest row rounded up
    to a multiple of `multiple` (fewer distinct batch shapes for the GPU)."""
    width = -(-max(len(r) for r in rows) // multiple) * multiple
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
        mask[i, :len(r)] = 1
    return ids, mask


@torch.no_grad()
def completion_logprobs(policy: Policy, prompt_ids, completion_ids, rows_per_pass=4, chunk_tokens=512):
    """Per-token log-probs of each completion given its prompt: a list of lists of floats."""
    out = []
    for start in range(0, len(prompt_ids), rows_per_pass):
        p_rows, c_rows = prompt_ids[start:start + rows_per_pass], completion_ids[start:start + rows_per_pass]
        ids, mask = pad_right([p + c for p, c in zip(p_rows, c_rows)], policy.tokenizer.pad_token_id)
        target = torch.zeros_like(mask)
        for i, (p, c) in enumerate(zip(p_rows, c_rows)):
            target[i, len(p):len(p) + len(c)] = 1
        lp = token_logprobs(policy.model, ids.to(policy.device), mask.to(policy.device),
                            target.to(policy.device), chunk_tokens).tolist()
        for c in c_rows:
            out.append(lp[:len(c)])
            lp = lp[len(c):]
    return out


# ----------------------------------------------------------------------------------------------------
# SFT examples (train.py's SFT, bench.py's sft-profile): a pair {task_id, prompt, completion} as token ids,
# micro-batches of them, and the completion's loss


def encode_pair(tokenizer, pair, eos_id):
    """{"input_ids", "n_prompt"}: rendered prompt ids, then completion ids and eos; the loss covers only
    positions >= n_prompt (the completion and its eos, so the model learns to stop)."""
    prompt_ids = encode(tokenizer, render_user(tokenizer, pair["prompt"]))
    completion_ids = encode(tokenizer, pair["completion"]) + [eos_id]
    return {"input_ids": prompt_ids + completion_ids, "n_prompt": len(prompt_ids), "task_id": pair["task_id"]}


def encode_pairs(tokenizer, pairs, max_seq_len):
    """(the examples of the pairs of at most max_seq_len tokens, how many longer ones were dropped)."""
    examples = [encode_pair(tokenizer, p, tokenizer.eos_token_id) for p in pairs]
    kept = [e for e in examples if len(e["input_ids"]) <= max_seq_len]
    return kept, len(examples) - len(kept)


def collate(examples, pad_id, multiple=1):
    """Right-padded (input_ids, attention_mask, loss_mask), each (B, T), T a multiple of `multiple` (--pad-multiple);
    loss_mask marks completion tokens."""
    ids, attention = pad_right([e["input_ids"] for e in examples], pad_id, multiple)
    loss_mask = torch.zeros_like(attention)
    for i, e in enumerate(examples):
        loss_mask[i, e["n_prompt"]:len(e["input_ids"])] = 1
    return ids, attention, loss_mask


def completion_nll_sum(policy: Policy, batch, chunk_tokens):
    """(sum of -log p over completion tokens, number of them) for one micro-batch from collate."""
    ids, attention, loss_mask = (t.to(policy.device) for t in batch)
    logprobs = token_logprobs(policy.model, ids, attention, loss_mask, chunk_tokens)  # (N,)
    return -logprobs.sum(), logprobs.numel()


# ----------------------------------------------------------------------------------------------------
# Generation


@dataclasses.dataclass
class Sample:
    text: str                 # the completion, decoded without special tokens
    prompt_ids: list          # the rendered prompt's token ids
    completion_ids: list      # generated ids, up to and including the eos token when there is one
    logprobs: list            # log p(token) per completion token under the sampling model (temperature 1)
    finish_reason: str        # "eos" or "length"


@contextlib.contextmanager
def merged_lora(policy: Policy):
    """Merge the adapter into the base for sampling (no LoRA matmuls per token); unmerge afterwards."""
    merge = policy.lora and not policy.quantized
    if merge:
        policy.model.merge_adapter()
    try:
        yield
    finally:
        if merge:
            policy.model.unmerge_adapter()


@contextlib.contextmanager
def eval_mode(model):
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


def _left_pad(rows, pad_id):
    """(ids, attention_mask) tensors (B, W) from lists of ids, padded on the left (prompts end together)."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, r in enumerate(rows):
        ids[i, width - len(r):] = torch.tensor(r, dtype=torch.long)
        mask[i, width - len(r):] = 1
    return ids, mask


def _cut_at_stop(rows, stop):
    """Generated rows cut after their first stop token: (completions, finish reasons)."""
    completions, reasons = [], []
    for row in rows:
        cut = next((i for i, t in enumerate(row) if t in stop), None)
        if cut is None:
            completions.append(row)
            reasons.append("length")
        else:
            completions.append(row[:cut + 1])
            reasons.append("eos")
    return completions, reasons


def _generate_hf(policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size, suppress_eos=False):
    """Plain transformers generate over left-padded batches: (completion ids, finish reasons)."""
    from transformers import GenerationConfig

    stop = eos_ids(policy)
    pad_id = policy.tokenizer.pad_token_id
    sampling = temperature > 0
    # Every knob is set explicitly so a model's own generation_config (Qwen: top_k=20, repetition
    # penalty 1.05) cannot change the sampling semantics. suppress_eos (benchmarks only) sets the eos
    # logits to -inf at every step, so every sequence runs to max_new_tokens.
    config = GenerationConfig(max_new_tokens=max_new_tokens, do_sample=sampling,
                              temperature=temperature if sampling else None, top_p=top_p if sampling else None,
                              top_k=0 if sampling else None, repetition_penalty=1.0, pad_token_id=pad_id,
                              eos_token_id=stop, use_cache=True,
                              min_new_tokens=max_new_tokens if suppress_eos else None)
    completions, reasons = [], []
    for start in range(0, len(prompt_ids), batch_size):
        ids, mask = _left_pad(prompt_ids[start:start + batch_size], pad_id)
        out = policy.model.generate(input_ids=ids.to(policy.device), attention_mask=mask.to(policy.device),
                                    generation_config=config)
        c, r = _cut_at_stop(out[:, ids.shape[1]:].tolist(), stop)
        completions += c
        reasons += r
    return completions, reasons


# ----------------------------------------------------------------------------------------------------
# The fast engine: a static KV cache and a decode step replayed as a CUDA graph
#
# Plain `generate` spends most of a 7B decode step launching kernels from Python (about 4% of the
# memory-bandwidth floor on an H200). Here the decoder runs through our own short forward over the model's
# own modules (embedding, rotary embedding, projections, norms, MLPs: the transformers code and weights,
# so a LoRA adapter merged into them is included) with a preallocated KV cache; one decode step has fixed
# shapes and no host synchronisation, so it is captured once as a CUDA graph and replayed per token
# (engine "cudagraph"), optionally after torch.compile fused the elementwise ops around each attention
# ("compile"; "compile_full" compiles the whole layer at one cache length, the session-1 variant;
# "compile_tuned_fused_splitkv" autotunes the compiled halves' GEMMs, `_compiled`). Engine
# "static" runs the same step eagerly (CPU tests compare it with plain generate). Two options on top of
# each mode, named by suffix (`FAST_ENGINES`):
# - "_fused": per layer one q|k|v matmul and one gate|up matmul instead of five (weights concatenated
#   once per generate batch, after the LoRA merge, and freed with its cache);
# - "_splitkv": the decode attention as our split-KV ("flash-decoding") Triton kernel: one program per
#   (sequence, KV head, slice of the cache), the query heads of a KV head as its rows, then a small
#   kernel combines the slices (`_attend_split_kv`); prefill keeps SDPA.
# e.g. "compile_fused_splitkv". Differences from `generate`, none of which changes the sampled distribution:
# - attention reads the cache up to the current length rounded up to `kv_bucket` slots (one graph per
#   bucket), masked to the real tokens; decode GQA folds the query heads of a KV head into query rows
#   instead of copying K/V (what repeat_kv does);
# - the all-finished check runs every `sync_every` steps (a host sync); the extra steps write pad tokens;
# - temperature and top-p use transformers' own logits warpers in the same order, then softmax and
#   torch.multinomial as `generate` does; so on CPU the same seed gives the same tokens as engine "hf".
#   On CUDA, sampling without top-p (the rollout default) is one Gumbel-max kernel instead (`gumbel_sample`:
#   the same distribution from another random stream; 49 vs 220 us a step at 64 x 152k on the H200).
# - fused projections and the split-KV kernel sum in a different order (bf16: ties of near-equal
#   logits may break the other way; fp32 on CPU gives the same greedy tokens).
# Supported: decoder-only Llama-style models (Qwen2/2.5, Qwen3, Llama, Mistral without sliding window);
# others fall back to "hf" under engine "auto".

FAST_MODEL_TYPES = ("qwen2", "qwen3", "llama", "mistral")


def _hf_model(model):
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def fast_engine_unsupported(policy):
    """Why the fast engine cannot run this policy (a string), or None when it can."""
    hf = _hf_model(policy.model)
    cfg = hf.config
    if cfg.model_type not in FAST_MODEL_TYPES:
        return f"model type {cfg.model_type!r} (supported: {', '.join(FAST_MODEL_TYPES)})"
    if any(t != "full_attention" for t in (getattr(cfg, "layer_types", None) or [])):
        return "sliding-window layers"
    if getattr(cfg, "final_logit_softcapping", None):
        return "logit softcapping"
    dec = hf.get_decoder()
    if not hasattr(dec, "rotary_emb") or not hasattr(dec, "layers"):
        return "a decoder without model-level rotary embedding"
    if cfg._attn_implementation not in ("sdpa", "eager"):
        return f"attention implementation {cfg._attn_implementation!r} (sdpa or eager)"
    return None


class _FusedLayer(typing.NamedTuple):
    """One layer's projections concatenated so that each group is one matmul (engines "*_fused")."""
    qkv_weight: torch.Tensor        # (q + 2 kv, hidden): the rows of q_proj, then k_proj, then v_proj
    qkv_bias: object                # (q + 2 kv,), or None (Llama and Mistral have no q/k/v bias)
    qkv_sizes: tuple                # (q, kv, kv) output widths, to split the fused output
    gate_up_weight: torch.Tensor    # (2 intermediate, hidden): gate_proj rows, then up_proj rows
    gate_up_bias: object            # (2 intermediate,), or None
    o_weight: object                # o_proj's weight (the module's own tensor), or None when it has a bias
    down_weight: object             # down_proj's weight, likewise (the split-K projections take no bias)


def _linear_params(linear):
    """(weight, bias) that a linear layer applies; a peft LoRA layer only through its merged base."""
    if hasattr(linear, "base_layer"):
        if linear.disable_adapters or not linear.merged:
            raise ValueError("fused projections need the LoRA adapter merged and enabled (sampling_mode merges it)")
        linear = linear.base_layer
    return linear.weight, linear.bias


def _cat_linears(linears):
    """(weight, bias, output widths) of the linears stacked along their outputs; bias None when none has one."""
    params = [_linear_params(m) for m in linears]
    weight = torch.cat([w for w, _ in params])
    sizes = tuple(w.shape[0] for w, _ in params)
    if all(b is None for _, b in params):
        return weight, None, sizes
    return weight, torch.cat([b if b is not None else w.new_zeros(w.shape[0]) for w, b in params]), sizes


def _fused_weights(model) -> list:
    """A `_FusedLayer` per decoder layer: new tensors (7B: 8.5 GB in bf16), made after the LoRA merge."""
    out = []
    for layer in _hf_model(model).get_decoder().layers:
        attn, mlp = layer.self_attn, layer.mlp
        gate_up_weight, gate_up_bias, _ = _cat_linears((mlp.gate_proj, mlp.up_proj))
        (o_weight, o_bias), (down_weight, down_bias) = _linear_params(attn.o_proj), _linear_params(mlp.down_proj)
        out.append(_FusedLayer(*_cat_linears((attn.q_proj, attn.k_proj, attn.v_proj)), gate_up_weight, gate_up_bias,
                               o_weight if o_bias is None else None, down_weight if down_bias is None else None))
    return out


def _rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def _attend(q, k, v, mask, scale, last_slot=None):
    """Causal attention of q (B, H, q_len, D) over the cache k, v (B, kv_heads, kv_len, D); mask is
    (B, 1, q_len, kv_len), added to the scores (0 or -inf). Output (B, q_len, H * D). last_slot: unused
    (`_attend_split_kv` takes it)."""
    B, H, q_len, D = q.shape
    groups = H // k.shape[1]
    if q_len == 1:
        # Decode: the `groups` query heads that share a KV head become `groups` query rows of that head,
        # so K/V are read once and never copied (head h uses KV head h // groups, as repeat_kv orders them).
        out = torch.nn.functional.scaled_dot_product_attention(
            q.reshape(B, H // groups, groups, D), k, v, attn_mask=mask, scale=scale)
        return out.reshape(B, 1, H * D)
    if groups > 1:
        k = k[:, :, None].expand(B, k.shape[1], groups, *k.shape[2:]).reshape(B, H, *k.shape[2:])
        v = v[:, :, None].expand(B, v.shape[1], groups, *v.shape[2:]).reshape(B, H, *v.shape[2:])
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    return out.transpose(1, 2).reshape(B, q_len, H * D)


# ----------------------------------------------------------------------------------------------------
# Split-KV ("flash-decoding") attention of the decode step, in Triton
#
# Decode attention reads the whole cache for one query token: memory-bound, and with one program per
# (sequence, KV head) too few programs for a short batch or a long cache. Splitting the cache length over
# programs gives every SM work; each program reads its slice of K and V once for all `groups` query heads
# of its KV head (GQA: the heads are the rows of one tl.dot), and keeps fp32 partials (running max, sum of
# exponentials, unnormalised output), which a second kernel combines.

# cache slots per program (rounded up to a whole number of SPLIT_KV_BLOCK) when B * kv_heads programs leave
# SMs idle; otherwise one split. H200, 7B shape, batch 64, kv_len 1280, one layer: SDPA 64.4 us; slices of
# 64/128/256/512/1024 slots 67.8/56.9/56.7/53.8/50.0 us; over a rollout's slots 1024 and one split (1536)
# were level, 41.6 and 41.2 us, with the combine kernel
SPLIT_KV_TOKENS = 1024
SPLIT_KV_BLOCK = 64    # cache slots per inner iteration of a program
_SPLIT_KV = {}         # the two kernels, made by `_split_kv_kernels` on first use


def _split_kv_kernels():
    """The Triton kernels of `_attend_split_kv`, defined on first use: importing triton is slow for callers
    that only want the prompt, and on CPU TRITON_INTERPRET must be set before that import (tests/conftest.py).
    `tl` becomes a module global because Triton's compiler and its interpreter both look names up in the
    kernel's globals, not in a closure."""
    global tl
    if _SPLIT_KV:
        return _SPLIT_KV
    import triton
    import triton.language as tl

    @triton.jit
    def _attn_split_kv_partial(Q, K, V, Mask, Acc, Max, Sum, Out, LastSlot, kv_len, split_len, scale,
                               stride_qb, stride_qh, stride_qd, stride_kb, stride_kh, stride_kn, stride_kd,
                               stride_vb, stride_vh, stride_vn, stride_vd, stride_mb, stride_mn, stride_ob,
                               KV_HEADS: tl.constexpr, GROUPS: tl.constexpr, HEAD_DIM: tl.constexpr,
                               BLOCK_G: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_N: tl.constexpr,
                               DOT_DTYPE: tl.constexpr, PRECISION: tl.constexpr, HAS_LAST: tl.constexpr,
                               DIRECT: tl.constexpr):
        # program (b * KV_HEADS + kv head, split): cache slots [split * split_len, (split + 1) * split_len)
        bh, split = tl.program_id(0), tl.program_id(1)
        if HAS_LAST:  # the decode slot, read on the device: a graph captured once serves every length
            kv_len = tl.minimum(kv_len, tl.load(LastSlot).to(tl.int32) + 1)
        b, kv_head = (bh // KV_HEADS).to(tl.int64), bh % KV_HEADS   # int64: b * stride_kb can pass 2^31
        g = tl.arange(0, BLOCK_G)                                    # query head within the group: the rows
        d = tl.arange(0, BLOCK_D)
        n = tl.arange(0, BLOCK_N)
        g_ok, d_ok = g < GROUPS, d < HEAD_DIM
        q = tl.load(Q + b * stride_qb + (kv_head * GROUPS + g)[:, None] * stride_qh + d[None, :] * stride_qd,
                    mask=g_ok[:, None] & d_ok[None, :], other=0.0).to(DOT_DTYPE)         # (BLOCK_G, BLOCK_D)
        k_base = K + b * stride_kb + kv_head * stride_kh
        v_base = V + b * stride_vb + kv_head * stride_vh
        # A finite start: a block whose slots are all masked (left padding) then gives p = 0, not nan.
        m_i = tl.full([BLOCK_G], -1.0e30, tl.float32)
        l_i = tl.zeros([BLOCK_G], tl.float32)
        acc = tl.zeros([BLOCK_G, BLOCK_D], tl.float32)
        start = split * split_len
        end = tl.minimum(start + split_len, kv_len)
        for n0 in range(start, end, BLOCK_N):
            slot = n0 + n
            slot_ok = slot < end
            kv_mask = slot_ok[:, None] & d_ok[None, :]
            k = tl.load(k_base + slot[:, None] * stride_kn + d[None, :] * stride_kd, mask=kv_mask, other=0.0)
            k = k.to(DOT_DTYPE)
            bias = tl.load(Mask + b * stride_mb + slot * stride_mn, mask=slot_ok, other=float("-inf"))
            s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * scale + bias.to(tl.float32)[None, :]
            m_new = tl.maximum(m_i, tl.max(s, 1))                                        # (BLOCK_G,)
            alpha = tl.exp(m_i - m_new)
            p = tl.exp(s - m_new[:, None])                                               # (BLOCK_G, BLOCK_N)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_base + slot[:, None] * stride_vn + d[None, :] * stride_vd, mask=kv_mask, other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(DOT_DTYPE), v.to(DOT_DTYPE), input_precision=PRECISION)
            m_i = m_new
        if DIRECT:  # one split: this program's sums are the answer, and no combine kernel runs
            out = acc / l_i[:, None]
            tl.store(Out + b * stride_ob + (kv_head * GROUPS + g)[:, None] * HEAD_DIM + d[None, :],
                     out.to(Out.dtype.element_ty), mask=g_ok[:, None] & d_ok[None, :])
            return
        row = (bh * tl.num_programs(1) + split) * GROUPS + g          # partials are (B * KV_HEADS, splits, GROUPS)
        tl.store(Max + row, m_i, mask=g_ok)
        tl.store(Sum + row, l_i, mask=g_ok)
        tl.store(Acc + row[:, None] * HEAD_DIM + d[None, :], acc, mask=g_ok[:, None] & d_ok[None, :])

    @triton.jit
    def _attn_split_kv_combine(Acc, Max, Sum, Out, n_splits, stride_ob,
                               KV_HEADS: tl.constexpr, GROUPS: tl.constexpr, HEAD_DIM: tl.constexpr,
                               BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
        # program (b * KV_HEADS + kv head, query head within the group): softmax-weighted sum of the splits
        bh, g = tl.program_id(0), tl.program_id(1)
        s = tl.arange(0, BLOCK_S)
        d = tl.arange(0, BLOCK_D)
        s_ok, d_ok = s < n_splits, d < HEAD_DIM
        row = (bh * n_splits + s) * GROUPS + g
        m = tl.load(Max + row, mask=s_ok, other=float("-inf"))
        w = tl.exp(m - tl.max(m, 0))                                             # (BLOCK_S,): 0 for padding
        total = tl.sum(tl.load(Sum + row, mask=s_ok, other=0.0) * w, 0)
        acc = tl.load(Acc + row[:, None] * HEAD_DIM + d[None, :], mask=s_ok[:, None] & d_ok[None, :], other=0.0)
        out = tl.sum(acc * w[:, None], 0) / total                                # (BLOCK_D,)
        b, kv_head = (bh // KV_HEADS).to(tl.int64), bh % KV_HEADS
        tl.store(Out + b * stride_ob + (kv_head * GROUPS + g) * HEAD_DIM + d, out.to(Out.dtype.element_ty), mask=d_ok)

    _SPLIT_KV.update(triton=triton, partial=_attn_split_kv_partial, combine=_attn_split_kv_combine)
    return _SPLIT_KV


@functools.lru_cache(maxsize=None)
def _sm_count(device) -> int:
    """Streaming multiprocessors of a CUDA device."""
    return torch.cuda.get_device_properties(device).multi_processor_count


def _launch_options(num_warps, num_stages) -> dict:
    """Triton launch keywords, leaving out those given as None (Triton's defaults then apply)."""
    return {k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages)) if v is not None}


def _attend_split_kv(q, k, v, mask, scale, last_slot=None, split_tokens=None, block_n=SPLIT_KV_BLOCK,
                     num_warps=None, num_stages=None):
    """`_attend` with the decode step (q_len 1) run by the split-KV Triton kernels; prefill goes to `_attend`.
    Same shapes: q (B, H, 1, D), k, v (B, kv_heads, kv_len, D) (views of the cache), mask additive
    (B, 1, 1, kv_len); output (B, 1, H * D) in q's dtype. last_slot: a one-element tensor holding the slot
    this step writes; slots after it (masked anyway) are then not read, and since the kernel reads it on
    the device, one CUDA graph over the whole cache serves every step. The grid is fixed for a given kv_len
    and nothing waits on the host, so a CUDA graph can capture it. split_tokens: cache slots per program;
    None: the whole cache when B * kv_heads programs fill the GPU's SMs (7B at batch 64: 256 programs on the
    H200's 132), else SPLIT_KV_TOKENS. With one split the partial kernel writes the output itself (no
    combine kernel: ~3 us of each layer's ~41). block_n (cache slots per inner iteration), num_warps,
    num_stages: the partial kernel's launch configuration (None: Triton's defaults)."""
    B, H, q_len, D = q.shape
    if q_len != 1:
        return _attend(q, k, v, mask, scale)
    kernels = _split_kv_kernels()
    triton = kernels["triton"]
    kv_heads, kv_len = k.shape[1], k.shape[2]
    groups = H // kv_heads
    if split_tokens is None:
        fills = q.device.type == "cuda" and B * kv_heads >= _sm_count(q.device)
        split_tokens = kv_len if fills else SPLIT_KV_TOKENS
    split_len = triton.cdiv(split_tokens, block_n) * block_n
    n_splits = triton.cdiv(kv_len, split_len)
    direct = n_splits == 1
    out = torch.empty(B, 1, H * D, dtype=q.dtype, device=q.device)
    if direct:  # the partial kernel writes `out`; its partial-sum arguments are unused
        partial = row_max = row_sum = out
    else:
        partial = torch.empty(B * kv_heads, n_splits, groups, D, dtype=torch.float32, device=q.device)
        row_max = torch.empty(B * kv_heads, n_splits, groups, dtype=torch.float32, device=q.device)
        row_sum = torch.empty_like(row_max)
    block_d = max(16, triton.next_power_of_2(D))  # tl.dot wants every dimension >= 16; padding is masked
    # The dots run in the cache dtype (bf16 on GPU: tensor cores, fp32 accumulation). On CPU they run in
    # fp32: Triton's interpreter multiplies the bit patterns of bf16 inputs (triton 3.9, create_dot).
    dot_dtype = tl.float32 if q.device.type == "cpu" else {torch.bfloat16: tl.bfloat16, torch.float16: tl.float16,
                                                           torch.float32: tl.float32}[q.dtype]
    precision = "ieee" if dot_dtype == tl.float32 else "tf32"  # fp32 stays exact instead of rounding to tf32
    kernels["partial"][(B * kv_heads, n_splits)](
        q, k, v, mask, partial, row_max, row_sum, out, mask if last_slot is None else last_slot, kv_len, split_len,
        scale, q.stride(0), q.stride(1), q.stride(3), *k.stride(), *v.stride(), mask.stride(0), mask.stride(3),
        out.stride(0), KV_HEADS=kv_heads, GROUPS=groups, HEAD_DIM=D, BLOCK_G=max(16, triton.next_power_of_2(groups)),
        BLOCK_D=block_d, BLOCK_N=block_n, DOT_DTYPE=dot_dtype, PRECISION=precision,
        HAS_LAST=last_slot is not None, DIRECT=direct, **_launch_options(num_warps, num_stages))
    if direct:
        return out
    kernels["combine"][(B * kv_heads, groups)](
        partial, row_max, row_sum, out, n_splits, out.stride(0), KV_HEADS=kv_heads, GROUPS=groups, HEAD_DIM=D,
        BLOCK_S=max(2, triton.next_power_of_2(n_splits)), BLOCK_D=block_d)
    return out


# ----------------------------------------------------------------------------------------------------
# Split-K matmul of the decode step, in Triton
#
# At batch 64 a decode matmul reads its whole weight for 64 rows of activations: memory-bound, but with
# 64 FLOPs per weight byte it also needs the tensor cores busy. The weight's output columns alone give
# too few programs for the narrow projections (o and down: 3,584 columns, 28 tiles of 128), so the
# reduction dimension is cut into `split` slices as well; each program writes fp32 partial sums, which
# the caller adds (inside a compiled half, Inductor fuses that sum into the next elementwise op).
# `bench.py decode-gemms --triton` times configurations of it against cuBLAS.

_SKINNY = {}  # the kernel, made by `_skinny_kernels` on first use (see `_split_kv_kernels`)


def _skinny_kernels():
    """The Triton kernel of `skinny_linear`, defined on first use (as `_split_kv_kernels`)."""
    global tl
    if _SKINNY:
        return _SKINNY
    import triton
    import triton.language as tl

    @triton.jit
    def _skinny_mm(X, W, Out, M, N, K, split_len, stride_xm, stride_xk, stride_wn, stride_wk,
                   stride_os, stride_om, stride_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN: tl.constexpr,
                   PRECISION: tl.constexpr):
        # program (column tile, reduction slice): Out[slice] = X[:, slice] @ W[tile, slice]^T, fp32 sums
        pid_n, pid_k = tl.program_id(0), tl.program_id(1)
        m = tl.arange(0, BLOCK_M)
        n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        kk = tl.arange(0, BLOCK_K)
        k_lo = pid_k * split_len
        x_ptrs = X + m[:, None] * stride_xm + (k_lo + kk)[None, :] * stride_xk        # (BLOCK_M, BLOCK_K)
        w_ptrs = W + n[None, :].to(tl.int64) * stride_wn + (k_lo + kk)[:, None] * stride_wk  # (BLOCK_K, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
        for k0 in range(0, split_len, BLOCK_K):
            if EVEN:  # M == BLOCK_M, N % BLOCK_N == 0, split_len % BLOCK_K == 0 and every slice inside K
                x = tl.load(x_ptrs)
                w = tl.load(w_ptrs)
            else:
                k_ok = (kk + k0 < split_len) & (k_lo + k0 + kk < K)
                x = tl.load(x_ptrs, mask=(m < M)[:, None] & k_ok[None, :], other=0.0)
                w = tl.load(w_ptrs, mask=k_ok[:, None] & (n < N)[None, :], other=0.0)
            acc = tl.dot(x, w, acc, input_precision=PRECISION)
            x_ptrs += BLOCK_K * stride_xk
            w_ptrs += BLOCK_K * stride_wk
        out = Out + pid_k * stride_os + m[:, None] * stride_om + n[None, :] * stride_on
        tl.store(out, acc.to(Out.dtype.element_ty), mask=(m < M)[:, None] & (n < N)[None, :])

    @triton.jit
    def _skinny_mm_tma(x_desc, w_desc, Out, M, N, K, split_len, stride_os, stride_om, stride_on,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
        # `_skinny_mm` with tensor-memory-accelerator loads (Hopper on): blocks outside x or W read as zeros
        pid_n, pid_k = tl.program_id(0), tl.program_id(1)
        n0, k_lo = pid_n * BLOCK_N, pid_k * split_len
        acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
        for k0 in range(k_lo, tl.minimum(k_lo + split_len, K), BLOCK_K):
            acc = tl.dot(x_desc.load([0, k0]), w_desc.load([n0, k0]).T, acc, input_precision=PRECISION)
        m = tl.arange(0, BLOCK_M)
        n = n0 + tl.arange(0, BLOCK_N)
        out = Out + pid_k * stride_os + m[:, None] * stride_om + n[None, :] * stride_on
        tl.store(out, acc.to(Out.dtype.element_ty), mask=(m < M)[:, None] & (n < N)[None, :])

    _SKINNY.update(triton=triton, mm=_skinny_mm, mm_tma=_skinny_mm_tma)
    return _SKINNY


def skinny_partials(x, weight, block_n=128, block_k=128, split=1, num_warps=4, num_stages=4, tma=False):
    """x (M, K) @ weight (N, K)^T as (splits, M, N) partial sums over slices of K (fp32; x's dtype when
    there is one slice): sum them over dim 0 for the product. The slices are `split` equal runs of K
    rounded up to block_k, so fewer than `split` may remain. M must fit one tile (at most 256 rows).
    tma: load through tensor descriptors (CUDA, compute capability 9 or more; contiguous rows)."""
    kernels = _skinny_kernels()
    triton = kernels["triton"]
    M, K = x.shape
    N = weight.shape[0]
    if weight.shape[1] != K:
        raise ValueError(f"x is (M, {K}) but weight is {tuple(weight.shape)}")
    block_m = max(16, triton.next_power_of_2(M))
    if block_m > 256:
        raise ValueError(f"skinny_partials takes at most 256 rows (got {M})")
    split_len = triton.cdiv(triton.cdiv(K, split), block_k) * block_k
    n_split = triton.cdiv(K, split_len)
    out = torch.empty(n_split, M, N, device=x.device, dtype=x.dtype if n_split == 1 else torch.float32)
    grid = (triton.cdiv(N, block_n), n_split)
    precision = "ieee" if x.dtype == torch.float32 else "tf32"  # fp32 stays fp32, not rounded to tf32 on GPU
    if tma:
        from triton.tools.tensor_descriptor import TensorDescriptor
        kernels["mm_tma"][grid](
            TensorDescriptor.from_tensor(x, [block_m, block_k]), TensorDescriptor.from_tensor(weight, [block_n, block_k]),
            out, M, N, K, split_len, *out.stride(), BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
            PRECISION=precision, num_warps=num_warps, num_stages=num_stages)
        return out
    even = M == block_m and N % block_n == 0 and split_len * n_split == K
    kernels["mm"][grid](
        x, weight, out, M, N, K, split_len, *x.stride(), *weight.stride(), *out.stride(),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, EVEN=even, PRECISION=precision, num_warps=num_warps,
        num_stages=num_stages)
    return out


def skinny_linear(x, weight, **config):
    """`F.linear(x, weight)` without bias through `skinny_partials` (config: its keyword arguments);
    x (..., K) -> (..., N) in x's dtype: the fp32 partial sums added and rounded once."""
    parts = skinny_partials(x.reshape(-1, x.shape[-1]), weight, **config)
    out = parts[0] if parts.shape[0] == 1 else parts.sum(0).to(x.dtype)
    return out.reshape(*x.shape[:-1], weight.shape[0])


# ----------------------------------------------------------------------------------------------------
# One decoder layer over the static cache


def _attn_in(layer, w, h, cos, sin, k_cache, v_cache, slots, skinny=False):
    """A layer's q/k/v projections and rotary embedding of h, its input already through the layer's input
    norm (the previous half computes it, `_attn_out`): writes k and v into the layer's cache
    (B, kv_heads, L, D) at `slots` (q_len,) and returns q (B, heads, q_len, D). w: the layer's
    `_FusedLayer` (one q|k|v matmul), or None (the model's three projections). Compiled (the "compile"
    engines), the writes stay in place: Inductor turns the index_copy_ of a graph input into stores of the
    step's B * kv_heads * q_len * D elements (k's inside its rotary kernel), not a copy of the whole cache
    (tests/test_rollout.py reads the generated code). skinny: the q|k|v bias is added inside the rotary
    kernel, not by cuBLAS (in a 7B decode step its bias epilogue took 11.8 us, the plain matmul 8.3 us)."""
    attn = layer.self_attn
    B, q_len, _ = h.shape
    if w is None:
        q, k, v = attn.q_proj(h), attn.k_proj(h), attn.v_proj(h)
    elif skinny and w.qkv_bias is not None:
        q, k, v = (torch.nn.functional.linear(h, w.qkv_weight) + w.qkv_bias).split(w.qkv_sizes, dim=-1)
    else:
        q, k, v = torch.nn.functional.linear(h, w.qkv_weight, w.qkv_bias).split(w.qkv_sizes, dim=-1)
    q = q.view(B, q_len, -1, attn.head_dim)
    k = k.view(B, q_len, -1, attn.head_dim)
    v = v.view(B, q_len, -1, attn.head_dim).transpose(1, 2)
    if hasattr(attn, "q_norm"):  # Qwen3
        q, k = attn.q_norm(q), attn.k_norm(k)
    q, k = q.transpose(1, 2), k.transpose(1, 2)                              # (B, heads, q_len, D)
    k_cache.index_copy_(2, slots, k * cos + _rotate_half(k) * sin)
    v_cache.index_copy_(2, slots, v)
    return q * cos + _rotate_half(q) * sin


def _attn_out(layer, w, x, out, next_norm, skinny=False):
    """The attention output projection, the residual, the MLP block with its residual, and `next_norm` (the
    next layer's input norm; the model's final norm after the last layer) of the result: (x, normed x).
    Compiled, the residual add and that norm are one kernel instead of one in each half. w as in `_attn_in`
    (one gate|up matmul; the MLP is down(act(gate) * up) in every supported model). skinny: the o and down
    projections as split-K Triton matmuls (`skinny_linear`, `SKINNY_CONFIGS`; fused weights, decode steps
    only; a projection with a bias stays F.linear), their partial sums added inside the residual's kernel."""
    if skinny and w.o_weight is not None:
        x = x + skinny_linear(out, w.o_weight, **SKINNY_CONFIGS["o"])
    else:
        x = x + layer.self_attn.o_proj(out)
    h = layer.post_attention_layernorm(x)
    if w is None:
        x = x + layer.mlp(h)
        return x, next_norm(x)
    gate, up = torch.nn.functional.linear(h, w.gate_up_weight, w.gate_up_bias).chunk(2, dim=-1)
    act = layer.mlp.act_fn(gate) * up
    if skinny and w.down_weight is not None:
        x = x + skinny_linear(act, w.down_weight, **SKINNY_CONFIGS["down"])
    else:
        x = x + layer.mlp.down_proj(act)
    return x, next_norm(x)


def _attn_in_skinny(layer, w, h, cos, sin, k_cache, v_cache, slots):
    """`_attn_in` with the q|k|v bias added after cuBLAS's matmul (engines "*_skinny")."""
    return _attn_in(layer, w, h, cos, sin, k_cache, v_cache, slots, skinny=True)


def _attn_out_skinny(layer, w, x, out, next_norm):
    """`_attn_out` with the o and down projections as split-K Triton matmuls (engines "*_skinny")."""
    return _attn_out(layer, w, x, out, next_norm, skinny=True)


# Split-K configurations (`skinny_partials` keywords) of the two narrow decode projections, from
# `bench.py decode-gemms --triton` on the H200 (7B shape, 64 rows; kernel alone vs cuBLAS's F.linear):
# o 6.6 vs 7.8 us, down 37.9 vs 41.1 us; both grids are one wave (112 programs on 132 SMs).
# q|k|v stays with cuBLAS (8.3 us; the best split-K grid, 144 programs, took 9.9). Valid for any shape;
# tuned for that one.
SKINNY_CONFIGS = {"o": dict(block_n=64, block_k=128, split=2, num_warps=4, num_stages=4),
                  "down": dict(block_n=128, block_k=128, split=4, num_warps=4, num_stages=4)}


def _layer_forward(layer, w, x, h, cos, sin, mask, k_cache, v_cache, slots, kv_len: int, next_norm,
                   parts=(_attn_in, _attn_out), attend=_attend):
    """One decoder layer (Llama-style: pre-norm attention and MLP with residuals) over the static cache:
    x the residual stream, h = the layer's input norm of x; returns (x, next_norm(x)) for the next layer.
    `parts` are the two halves around the attention (compiled ones in the "compile" engines), `attend` the
    attention (`_attend_split_kv` in the "_splitkv" engines), w the layer's fused weights or None. The first
    half writes the step's K/V into k_cache, v_cache at `slots`; the attention then reads the caches."""
    q = parts[0](layer, w, h, cos, sin, k_cache, v_cache, slots)
    out = attend(q, k_cache[:, :, :kv_len], v_cache[:, :, :kv_len], mask, layer.self_attn.scaling, slots[-1:])
    return parts[1](layer, w, x, out, next_norm)


_COMPILED = {}  # (function, compile mode, dynamic) -> torch.compile(function), made once per process


def _compiled(fn, mode=None, dynamic=False):
    """Regional compilation: one compiled function serves every layer of the model (same code, same shapes;
    the layer's weights are graph inputs), so compiling costs one layer, not the whole stack. mode: None, or
    "max-autotune-no-cudagraphs" (Inductor times its Triton GEMM templates against cuBLAS per shape; the
    engine captures its own CUDA graphs). The cache slots written (`_attn_in`) come from the engine, not from
    data, so Inductor's device-side bounds check on them is off: it is a branch and an assert in the rotary
    kernel of every layer. dynamic: sizes are symbols (the prefill: one compilation serves every batch
    and prompt width); otherwise every new shape compiles anew."""
    if (fn, mode, dynamic) not in _COMPILED:
        options = {"assert_indirect_indexing": False, **(torch._inductor.list_mode_options(mode) if mode else {})}
        _COMPILED[fn, mode, dynamic] = torch.compile(fn, dynamic=dynamic, options=options)
    return _COMPILED[fn, mode, dynamic]


def _layer_fn(mode: str, split_kv: bool, skinny: bool = False):
    """The decode step's layer function of an engine. "compile": the two halves around the attention are
    compiled (norms, rotary with the K/V cache writes, residuals and the MLP's activation fuse into few
    kernels); the attention stays eager, so its length grows in kv_len buckets like the cudagraph engine's
    (one shape per bucket would recompile a compiled attention). "compile_full" compiles the whole layer
    instead, attending over the full cache every step; on the H200 the two ran at the same speed (7,596 vs
    7,609 tokens/s; the lab record). "compile_tuned": "compile" with Inductor's GEMM autotuning. "static" and
    "cudagraph" run the layer eagerly (cudagraph then captures it). skinny: the halves as `_attn_in_skinny`
    and `_attn_out_skinny` (split-K Triton o and down projections, the q|k|v bias outside cuBLAS)."""
    attend = _attend_split_kv if split_kv else _attend
    first, second = (_attn_in_skinny, _attn_out_skinny) if skinny else (_attn_in, _attn_out)
    if mode == "compile_full":
        if split_kv or skinny:
            raise ValueError("compile_full compiles the attention too; the Triton kernels run with the other modes")
        return _compiled(_layer_forward)
    if mode in ("compile", "compile_tuned"):
        tune = "max-autotune-no-cudagraphs" if mode == "compile_tuned" else None
        return functools.partial(_layer_forward, parts=(_compiled(first, tune), _compiled(second, tune)),
                                 attend=attend)
    return functools.partial(_layer_forward, parts=(first, second), attend=attend)


def _static_forward(model, weights, k_cache, v_cache, valid, tokens, positions, slots, kv_len: int,
                    layer_fn=_layer_forward):
    """One forward of `tokens` (B, q_len) at cache slots `slots` (q_len,) with rotary positions
    `positions` (B, q_len): writes their K/V into the caches (lists of (B, kv_heads, L, D)) and returns
    the logits of the last position (B, vocab) in the model dtype. `valid` (B, L) is False at left-pad
    slots; `weights` has a `_FusedLayer` or None per layer. Only tensor ops, no host sync: one call can be
    captured as a CUDA graph."""
    hf = _hf_model(model)
    dec = hf.get_decoder()
    kv_slots = torch.arange(kv_len, device=tokens.device)
    causal = kv_slots[None, :] <= slots[:, None]                              # (q_len, kv_len)
    mask = valid[:, None, None, :kv_len] & causal[None, None]                # (B, 1, q_len, kv_len)
    # A left-pad query sees no real token; letting it see itself keeps its row finite (it is never read).
    mask = mask | (kv_slots[None, :] == slots[:, None])[None, None]
    x = dec.embed_tokens(tokens)                                             # (B, q_len, hidden)
    # additive form, made once here instead of inside every layer's attention call
    mask = torch.zeros(mask.shape, dtype=x.dtype, device=x.device).masked_fill_(~mask, float("-inf"))
    cos, sin = dec.rotary_emb(x, positions)                                  # (B, q_len, D)
    cos, sin = cos[:, None], sin[:, None]
    layers = dec.layers
    h = layers[0].input_layernorm(x)
    for i, layer in enumerate(layers):
        next_norm = layers[i + 1].input_layernorm if i + 1 < len(layers) else dec.norm
        x, h = layer_fn(layer, weights[i], x, h, cos, sin, mask, k_cache[i], v_cache[i], slots, kv_len, next_norm)
    return hf.get_output_embeddings()(h[:, -1])


class _StaticDecoder:
    """A static KV cache for one batch and the decode step over it, eager or replayed as CUDA graphs.
    fused: concatenated projection weights, made here and freed with the decoder; split_kv: the
    decode attention as the split-KV kernel; skinny: the decode step's o and down projections as split-K
    Triton matmuls, the q|k|v bias added outside cuBLAS (needs fused)."""

    def __init__(self, model, batch, cache_len, device, dtype, mode, kv_bucket, fused=False, split_kv=False,
                 skinny=False):
        hf = _hf_model(model)
        cfg = hf.config
        layer0 = hf.get_decoder().layers[0].self_attn
        shape = (batch, cfg.num_key_value_heads, cache_len, layer0.head_dim)
        n = cfg.num_hidden_layers
        self.model, self.mode, self.cache_len = model, mode, cache_len
        # compile_full: one shape, one graph. split_kv: the kernel reads the step's length on the device, so
        # one graph over the whole cache (captured once per batch instead of once per bucket: each capture
        # runs the step three times, and the six of a 1,024-token rollout were ~6% of it on the H200)
        self.kv_bucket = cache_len if mode == "compile_full" or split_kv else kv_bucket
        self.k = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(n)]
        self.v = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(n)]
        self.valid = torch.ones(batch, cache_len, dtype=torch.bool, device=device)
        if skinny and not fused:
            raise ValueError("the split-K projections (skinny) read the fused weights: use them with fused=True")
        if skinny:
            _skinny_kernels()  # defined before torch.compile traces a call to it
        self.weights = _fused_weights(model) if fused else [None] * n
        self.layer_fn = _layer_fn(mode, split_kv, skinny)
        # The prefill of the "compile" engines runs the plain halves compiled with symbolic sizes: its norms,
        # rotary, activation and residuals fuse too (eager, they were ~0.1 s of a 7B 64 x 512 prefill), and a
        # new batch size or prompt width does not compile again.
        self.prefill_fn = (functools.partial(_layer_forward, parts=(_compiled(_attn_in, dynamic=True),
                                                                    _compiled(_attn_out, dynamic=True)))
                           if mode in ("compile", "compile_tuned") else _layer_forward)
        # static inputs and captured graphs of the decode step, one per kv_len bucket
        self.tokens = torch.zeros(batch, 1, dtype=torch.long, device=device)
        self.positions = torch.zeros(batch, 1, dtype=torch.long, device=device)
        self.slot = torch.zeros(1, dtype=torch.long, device=device)
        self.graphs, self.graph_out, self.pool = {}, {}, None

    def prefill(self, ids, attention_mask, max_rows):
        """Run the left-padded prompts (B, W) into the cache, `max_rows` rows at a time; logits (B, vocab).
        SDPA attention, fused weights when the engine has them; the layer halves compiled in the "compile"
        engines (`prefill_fn`), else eager."""
        B, W = ids.shape
        self.valid[:, :W] = attention_mask.bool()
        # rotary positions as generate builds them: cumsum of the mask - 1 (pads get 1, never read)
        positions = (attention_mask.long().cumsum(-1) - 1).masked_fill(attention_mask == 0, 1)
        slots = torch.arange(W, device=ids.device)
        out = []
        for r in range(0, B, max_rows):
            rows = slice(r, r + max_rows)
            out.append(_static_forward(self.model, self.weights, [k[rows] for k in self.k], [v[rows] for v in self.v],
                                       self.valid[rows], ids[rows], positions[rows], slots, W, self.prefill_fn))
        return torch.cat(out)

    def kv_len(self, slot: int) -> int:
        """Cache slots the attention reads at decode slot `slot`: its kv_len bucket."""
        return min(self.cache_len, -(-(slot + 1) // self.kv_bucket) * self.kv_bucket)

    def step(self, tokens, positions, slot: int, replay=True):
        """Logits (B, vocab) after feeding `tokens` (B,) at cache slot `slot` with rotary `positions` (B,).
        replay=False runs the step eagerly even in a graph mode (bench.py rollout-profile: the kernels of
        a replayed graph are not seen by the profiler)."""
        kv_len = self.kv_len(slot)
        self.tokens.copy_(tokens[:, None])
        self.positions.copy_(positions[:, None])
        self.slot.fill_(slot)
        args = (self.model, self.weights, self.k, self.v, self.valid, self.tokens, self.positions, self.slot, kv_len,
                self.layer_fn)
        if self.mode == "static" or not replay:
            return _static_forward(*args)
        if kv_len not in self.graphs:
            self._capture(kv_len, args)
        self.graphs[kv_len].replay()
        return self.graph_out[kv_len]

    def _capture(self, kv_len, args):
        # One warm-up on a side stream (cuBLAS workspaces, torch.compile's compilation, Triton's), as the
        # CUDA-graph docs ask; each run of the step from Python takes ~30 ms of a 7B call. It computes this very
        # step, so writing its K/V into the cache is harmless (same values).
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            _static_forward(*args)
        torch.cuda.current_stream().wait_stream(side)
        if self.pool is None:
            self.pool = torch.cuda.graph_pool_handle()  # buckets replay one at a time, so they share memory
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool):
            self.graph_out[kv_len] = _static_forward(*args)
        self.graphs[kv_len] = graph


# ----------------------------------------------------------------------------------------------------
# Sampling at temperature T without top-p, in one pass over the logits (the Gumbel-max trick)
#
# argmax_i(logits_i / T + G_i), with G_i independent standard Gumbel noise, is distributed exactly as
# softmax(logits / T). One Triton kernel reads the bf16 logits once (each program a chunk of a row, its
# best value and index), instead of generate's fp32 copy, softmax, exponential draws, division and argmax
# (about 0.2 ms of a 6 ms decode step at 64 x 152k on the H200). The uniforms come from Triton's Philox,
# keyed by a seed drawn from torch's RNG each step, so a seeded run repeats; the tokens follow the same
# distribution as generate's but not its random stream.

GUMBEL_BLOCK = 1024  # vocabulary entries per program and Philox draw: each program reads 4 x this many
_GUMBEL = {}


def _gumbel_kernels():
    """The Triton kernel of `gumbel_sample`, defined on first use (as `_split_kv_kernels`; its helper
    `_gumbel_block` is a module global too, where Triton looks it up)."""
    global tl, _gumbel_block
    if _GUMBEL:
        return _GUMBEL
    import triton
    import triton.language as tl

    @triton.jit
    def _gumbel_block(Logits, row, start, offsets, V, stride_b, temperature, u):
        # the largest logit / T + Gumbel noise -log(-log(u)) over entries start + offsets of a row, and where
        cols = start + offsets
        ok = cols < V
        x = tl.load(Logits + row.to(tl.int64) * stride_b + cols, mask=ok, other=float("-inf")).to(tl.float32)
        s = tl.where(ok, x / temperature - tl.log(-tl.log(u)), float("-inf"))    # u = 0 gives -inf noise
        return tl.max(s, 0), start + tl.argmax(s, 0)

    @triton.jit
    def _gumbel_max(Logits, Seed, BestVal, BestIdx, V, stride_b, temperature, BLOCK_V: tl.constexpr):
        # program (row, chunk of 4 x BLOCK_V entries): one Philox call gives four uniforms per offset
        row, chunk = tl.program_id(0), tl.program_id(1)
        offsets = tl.arange(0, BLOCK_V)
        base = chunk * 4 * BLOCK_V
        u0, u1, u2, u3 = tl.rand4x(tl.load(Seed), (row * tl.cdiv(V, 4 * BLOCK_V) + chunk) * BLOCK_V + offsets)
        best, where = _gumbel_block(Logits, row, base, offsets, V, stride_b, temperature, u0)
        v1, i1 = _gumbel_block(Logits, row, base + BLOCK_V, offsets, V, stride_b, temperature, u1)
        v2, i2 = _gumbel_block(Logits, row, base + 2 * BLOCK_V, offsets, V, stride_b, temperature, u2)
        v3, i3 = _gumbel_block(Logits, row, base + 3 * BLOCK_V, offsets, V, stride_b, temperature, u3)
        # ties keep the lower index, as argmax does
        where = tl.where(v1 > best, i1, where)
        best = tl.maximum(best, v1)
        where = tl.where(v2 > best, i2, where)
        best = tl.maximum(best, v2)
        where = tl.where(v3 > best, i3, where)
        best = tl.maximum(best, v3)
        tl.store(BestVal + row * tl.num_programs(1) + chunk, best)
        tl.store(BestIdx + row * tl.num_programs(1) + chunk, where)

    _GUMBEL.update(triton=triton, kernel=_gumbel_max)
    return _GUMBEL


def gumbel_sample(logits, temperature: float, generator=None, block=GUMBEL_BLOCK):
    """Token ids (B,) drawn from softmax(logits / temperature) for logits (B, V) (any float dtype; -inf
    entries are never drawn), by the Gumbel-max trick in one pass. The seed of the noise is drawn from
    torch's RNG on logits' device (or `generator`), so a seeded caller repeats its draws. block: entries
    per Philox draw (a power of two; each program reads four blocks)."""
    if temperature <= 0:
        raise ValueError("gumbel_sample samples at a temperature > 0; use argmax for greedy decoding")
    kernels = _gumbel_kernels()
    B, V = logits.shape
    if logits.stride(1) != 1:
        logits = logits.contiguous()
    chunks = kernels["triton"].cdiv(V, 4 * block)
    seed = torch.randint(0, 2 ** 31 - 1, (1,), device=logits.device, generator=generator)
    best_val = torch.empty(B, chunks, device=logits.device, dtype=torch.float32)
    best_idx = torch.empty(B, chunks, device=logits.device, dtype=torch.int32)
    kernels["kernel"][(B, chunks)](logits, seed, best_val, best_idx, V, logits.stride(0), float(temperature),
                                   BLOCK_V=block)
    return best_idx.gather(1, best_val.argmax(1, keepdim=True)).squeeze(1).long()


def _token_sampler(stop_t, temperature, top_p, suppress_eos, gumbel=False):
    """The fast engine's next-token rule, as `generate` applies it: logits (B, vocab) -> token ids (B,).
    fp32 scores; temperature and top-p are transformers' own warpers in generate's order; stop_t: eos ids.
    gumbel: sample without top-p (top_p 1) by `gumbel_sample` instead (same distribution, another random
    stream); with suppress_eos it then overwrites the stop-token logits in place."""
    if gumbel and temperature > 0 and top_p >= 1.0:
        def gumbel_token(logits):
            if suppress_eos:
                logits.index_fill_(1, stop_t, -float("inf"))
            return gumbel_sample(logits, temperature)
        return gumbel_token

    from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper

    warpers = []
    if temperature > 0 and temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(temperature))
    if temperature > 0 and top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p))

    def next_token(logits):
        scores = logits.float()                                                      # (B, vocab) fp32, as generate
        if suppress_eos:
            scores[:, stop_t] = -float("inf")
        if temperature <= 0:
            return torch.argmax(scores, dim=-1)
        for warp in warpers:
            scores = warp(None, scores)
        return torch.multinomial(torch.softmax(scores, dim=-1), num_samples=1).squeeze(1)
    return next_token


KV_BUCKET = 256  # cache slots per attention-length bucket of the fast engine (one CUDA graph per bucket)


def _generate_static(policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size, suppress_eos=False,
                     mode="static", fused=False, split_kv=False, kv_bucket=KV_BUCKET, sync_every=None, prefill_tokens=32768,
                     gumbel=None, skinny=False):
    """The fast engine over left-padded batches: (completion ids, finish reasons). mode: "static"
    (eager), "cudagraph", "compile", "compile_tuned" or "compile_full" (CUDA only); fused, split_kv: the
    options of the comment above FAST_MODEL_TYPES; skinny: split-K Triton o and down projections in decode
    steps (fused only). kv_bucket: cache slots per attention-length bucket. sync_every: decode steps between
    all-finished checks (default 1 on CPU, 16 on CUDA).
    prefill_tokens: prompt tokens per prefill forward (bounds its activation memory).
    gumbel: sampling without top-p by the one-pass Gumbel-max kernel (`gumbel_sample`); default on CUDA.
    On CPU the engine keeps generate's rule and random stream, so its tokens equal engine "hf"'s."""
    why = fast_engine_unsupported(policy)
    if why:
        raise ValueError(f"the fast generation engine does not support {why}; use engine='hf'")
    device = policy.device
    if mode != "static" and device.type != "cuda":
        raise ValueError(f"engine {mode!r} needs CUDA; use 'static' on {device.type}")
    if split_kv and device.type != "cuda" and os.environ.get("TRITON_INTERPRET") != "1":
        raise ValueError("the split-KV attention is a Triton kernel: it needs CUDA, or TRITON_INTERPRET=1 on CPU")
    if policy.quantized:
        # bitsandbytes 4-bit matmuls are not known to be graph-safe, and packed 4-bit weights do not concatenate
        mode, fused = "static", False
    sync_every = sync_every or (16 if device.type == "cuda" else 1)
    stop = eos_ids(policy)
    stop_t = torch.tensor(stop, dtype=torch.long, device=device)
    pad_id = policy.tokenizer.pad_token_id
    gumbel = device.type == "cuda" if gumbel is None else gumbel
    next_token = _token_sampler(stop_t, temperature, top_p, suppress_eos, gumbel)
    dtype = next(_hf_model(policy.model).get_decoder().parameters()).dtype
    if policy.quantized:
        dtype = policy.dtype
    completions, reasons = [], []
    for start in range(0, len(prompt_ids), batch_size):
        ids, mask = _left_pad(prompt_ids[start:start + batch_size], pad_id)
        ids, mask = ids.to(device), mask.to(device)
        B, W = ids.shape
        cache_len = W + max_new_tokens
        if mode.startswith("compile"):
            # compiled code is specialised to the cache's length (compile_full attends over all of it; the
            # first half of "compile" writes into it), so lengths are rounded up: batches whose longest
            # prompts differ a little share one compilation instead of recompiling each
            cache_len = -(-cache_len // KV_BUCKET) * KV_BUCKET
        decoder = _StaticDecoder(policy.model, B, cache_len, device, dtype, mode, kv_bucket, fused, split_kv, skinny)
        logits = decoder.prefill(ids, mask, max(1, prefill_tokens // W))
        n_prompt = mask.sum(-1)                                                      # (B,)
        out = torch.full((B, max_new_tokens), pad_id, dtype=torch.long, device=device)
        done = torch.zeros(B, dtype=torch.bool, device=device)
        for t in range(max_new_tokens):
            token = torch.where(done, pad_id, next_token(logits))                    # finished rows emit pad
            out[:, t] = token
            done |= torch.isin(token, stop_t)
            if t + 1 == max_new_tokens or ((t + 1) % sync_every == 0 and bool(done.all())):
                break
            logits = decoder.step(token, n_prompt + t, W + t)
        c, r = _cut_at_stop(out.tolist(), stop)
        completions += c
        reasons += r
        del decoder
    return completions, reasons


# The fast engine's variants by name: how a decode step runs (mode) and the two options (see the comment
# above FAST_MODEL_TYPES): "static", "static_fused", "static_splitkv", "static_fused_splitkv", the same
# for "cudagraph" and "compile", "compile_full" and "compile_tuned_fused_splitkv".
FAST_ENGINES = {f"{mode}{'_fused' * fused}{'_splitkv' * split_kv}": dict(mode=mode, fused=fused, split_kv=split_kv)
                for mode in ("static", "cudagraph", "compile") for fused in (False, True) for split_kv in (False, True)}
FAST_ENGINES["compile_full"] = dict(mode="compile_full", fused=False, split_kv=False)
# "compile" whose compiled halves (their GEMMs: the q|k|v, o, gate|up and down projections) are autotuned:
# minutes of tuning in each new process, for the decode GEMMs' share of the step
FAST_ENGINES["compile_tuned_fused_splitkv"] = dict(mode="compile_tuned", fused=True, split_kv=True)
# "compile_fused_splitkv" whose decode steps run the o and down projections as split-K Triton matmuls, their
# partial sums fused into the residual kernels, and add the q|k|v bias in the rotary kernel (`_attn_in_skinny`,
# `_attn_out_skinny`)
FAST_ENGINES["compile_fused_splitkv_skinny"] = dict(mode="compile", fused=True, split_kv=True, skinny=True)

# Generation engines by name, each (policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size,
# suppress_eos=False) -> (completion ids, finish reasons). "auto" picks one in `resolve_engine`.
ENGINES = {"hf": _generate_hf,
           **{name: functools.partial(_generate_static, **options) for name, options in FAST_ENGINES.items()}}
AUTO_CUDA_ENGINE = "cudagraph"  # what "auto" runs on CUDA; chosen by `python bench.py rollout`
ENGINES["auto"] = lambda policy, *a, **k: ENGINES[resolve_engine("auto", policy)](policy, *a, **k)


def resolve_engine(engine: str, policy: Policy) -> str:
    """The engine name "auto" stands for: the fast engine on CUDA when it supports the model, else "hf"."""
    if engine != "auto":
        if engine not in ENGINES:
            raise ValueError(f"unknown generation engine {engine!r}; choose from {', '.join(ENGINES)}")
        return engine
    if policy.device.type == "cuda" and fast_engine_unsupported(policy) is None:
        return AUTO_CUDA_ENGINE
    return "hf"


@contextlib.contextmanager
def sampling_mode(policy: Policy, seed: int):
    """No grad, eval mode, the adapter merged, and a private RNG seeded with `seed` (the global one is
    restored afterwards, so a training run stays reproducible whether or not it samples)."""
    devices = [policy.device] if policy.device.type == "cuda" else []
    with torch.no_grad(), eval_mode(policy.model), merged_lora(policy), torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


def sample_token_ids(policy: Policy, prompt_ids, max_new_tokens: int, temperature: float, top_p: float, seed: int,
                     batch_size: int = 16, engine: str = "hf", suppress_eos: bool = False):
    """(completion ids, finish reasons) for token-id prompts: the sampling part of `generate`, without
    log-probs. suppress_eos: benchmarks only (eos logits -inf, so every sequence runs max_new_tokens)."""
    engine = resolve_engine(engine, policy)
    with sampling_mode(policy, seed):
        return ENGINES[engine](policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size,
                               suppress_eos=suppress_eos)


def generate(policy: Policy, prompts, max_new_tokens: int, temperature: float, top_p: float, seed: int,
             batch_size: int = 16, engine: str = "hf", logprob_chunk_tokens: int = 512) -> list:
    """Sample one completion per rendered prompt (from `render_prompt`). temperature 0 means greedy.
    engine: "hf" (plain transformers generate), a fast engine of `FAST_ENGINES` or "auto" (above).

    Seeded: the same (prompts, seed, batch_size, engine) gives the same samples; the global RNG is untouched.
    """
    from reward import gpu_work

    prompt_ids = [encode(policy.tokenizer, p) for p in prompts]
    engine = resolve_engine(engine, policy)
    # under the judges' GPU lock, shared: no candidate is timed on this GPU while the model generates (reward.gpu_work)
    with gpu_work(policy.device), sampling_mode(policy, seed):
        completions, reasons = ENGINES[engine](policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size)
        logprobs = completion_logprobs(policy, prompt_ids, completions, chunk_tokens=logprob_chunk_tokens)
    return [Sample(text=policy.tokenizer.decode(c, skip_special_tokens=True), prompt_ids=p, completion_ids=c,
                   logprobs=lp, finish_reason=r)
            for p, c, lp, r in zip(prompt_ids, completions, logprobs, reasons)]


# ----------------------------------------------------------------------------------------------------
# Proposers: every source of answers behind one interface, for eval.py and search.py.
# propose(records, n_samples, seed) -> per record, n_samples candidates, each a dict:
#   {"text": str | None, "completion": bool, "error_type": str | None, "error_msg": str}
# text None means the proposer gave no answer (the error says why); completion True means raw model text
# whose last ```python block is the solution (reward.solution_text). The teacher is imported where it is
# used: only its proposer needs it.


class PolicySpecError(ValueError):
    """A --policy (or --engine) that names no proposer; eval.py reports it as a usage error."""


def answer(text, completion=False):
    """A candidate holding an answer."""
    return {"text": text, "completion": completion, "error_type": None, "error_msg": ""}


def no_answer(error_type, msg):
    """A candidate without an answer; the judge turns it into a failed Verdict with this error."""
    return {"text": None, "completion": False, "error_type": error_type, "error_msg": msg}


def failure(error_type, exc):
    """A task's failure from an exception (import_error, teacher_bug, search_bug, search_error): the type and
    text as the message, the traceback kept for samples.jsonl. One task's failure never stops the run."""
    import traceback

    from reward import exception_text

    out = no_answer(error_type, exception_text(exc))
    out["traceback"] = "".join(traceback.format_exception(exc))
    return out


def safe_name(task_id):
    """A task id made file-name safe (solutions/<name>.py)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", str(task_id))


class SolutionsPolicy:
    """solutions:DIR: DIR/<task id>.py (or the id made file-name safe)."""

    def __init__(self, directory):
        self.directory = directory

    def propose(self, records, n_samples, seed):
        out = []
        for rec in records:
            paths = [os.path.join(self.directory, f"{name}.py") for name in (str(rec["id"]), safe_name(rec["id"]))]
            path = next((p for p in paths if os.path.isfile(p)), None)
            if path is None:
                out.append([no_answer("missing_solution", f"no solution file {paths[-1]}")])
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                out.append([answer(f.read())])
        return out


class SamplesPolicy:
    """samples:FILE: the answers of an earlier run replayed, FILE being eval.py's samples.jsonl (rows {task_id,
    sample, completion}) or a folder holding one: each task gets its recorded completions in sample order, up to
    n_samples, judged as completions again (to re-judge a model's answers under another judge, tolerance or GPU
    without the model). A task with no recorded answer is a failed task ("missing_solution"); a row that is not
    such JSON stops the run before any judging (PolicySpecError)."""

    def __init__(self, path):
        self.path = samples_file(path)
        self.by_task = {}
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    key, text = str(row["task_id"]), row["completion"]
                    order = int(row.get("sample", 0))
                except (ValueError, KeyError, TypeError) as e:
                    raise PolicySpecError(f"--policy samples:{path}: line {n} is not a samples.jsonl row "
                                          f"({type(e).__name__}: {e})") from None
                if isinstance(text, str):
                    self.by_task.setdefault(key, []).append((order, text))

    def propose(self, records, n_samples, seed):
        out = []
        for rec in records:
            rows = sorted(self.by_task.get(str(rec["id"]), []))[:n_samples]
            out.append([answer(text, completion=True) for _, text in rows]
                       or [no_answer("missing_solution", f"no answer for {rec['id']} in {self.path}")])
        return out


def samples_file(path):
    """The samples.jsonl a samples:PATH names: PATH itself or PATH/samples.jsonl; None if neither is a file."""
    for cand in (path, os.path.join(path, "samples.jsonl")):
        if os.path.isfile(cand):
            return cand
    return None


class ReferencePolicy:
    """The task's own Model, renamed ModelNew (with every reference to the name Model)."""

    def propose(self, records, n_samples, seed):
        return [[answer(re.sub(r"\bModel\b", "ModelNew", rec["source"]))] for rec in records]


class TeacherPolicy:
    """teacher.compile_program(record, seed, target) per task; TeacherError (an unsupported program) becomes a
    failed task "teacher_error", any other exception (a bug in the teacher) "teacher_bug" with its traceback.
    target = --device: the teacher picks block sizes and num_warps per target. The seed is --seed for every
    task (not the per-batch sampling seed), so a resumed run compiles the same solutions.
    plans (a subset of teacher.PLANS): one candidate per plan the teacher can build for the task, each
    tagged {"plan": name}, so the judge measures them and the caller keeps the fastest correct; None: the one
    solution of compile_program with dot_precision (n_samples is ignored either way: the teacher is
    deterministic).
    fallback (a plan name, with plans): built where none of `plans` applies to a task, and offered by
    fallback_answers for the tasks none of whose plans was judged correct (eval.py --teacher-fallback)."""

    def __init__(self, target, seed, dot_precision="ieee", plans=None, fallback=None):
        import teacher  # imported here: only this proposer needs it

        self.teacher, self.target, self.seed, self.dot_precision = teacher, target, seed, dot_precision
        self.plans = teacher_plans(plans)
        self.fallback = teacher_plans(fallback)

    def propose(self, records, n_samples, seed):
        out = []
        for rec in records:
            try:
                if self.plans is not None:
                    try:
                        out.append(self.plan_answers(rec, self.plans))
                    except self.teacher.TeacherError:
                        if not self.fallback:
                            raise
                        out.append(self.plan_answers(rec, self.fallback))
                    continue
                out.append([answer(self.teacher.compile_program(rec, seed=self.seed, target=self.target,
                                                                dot_precision=self.dot_precision))])
            except self.teacher.TeacherError as e:
                out.append([no_answer("teacher_error", str(e))])
            except Exception as e:  # noqa: BLE001 -- a teacher bug: this task's failed row, the run goes on
                out.append([failure("teacher_bug", e)])
        return out

    def plan_answers(self, rec, plans):
        """One candidate per plan of `plans` the teacher can build for the task, tagged {"plan": name}; raises
        TeacherError when it can build none."""
        return [dict(answer(sol), plan=plan)
                for plan, sol in self.teacher.plans(rec, seed=self.seed, target=self.target, only=plans)]

    def fallback_answers(self, rec, tried):
        """The fallback plan's candidates for a task whose candidates (`tried`, plan-tagged) were all judged wrong;
        [] when there is no fallback, it was among them, or the teacher cannot build it."""
        if not self.fallback or any(c.get("plan") in self.fallback for c in tried):
            return []
        try:
            return self.plan_answers(rec, self.fallback)
        except self.teacher.TeacherError:
            return []


def teacher_plans(spec):
    """The teacher plans a --teacher-plans value names: "all" or a comma list (a string), or a sequence of names,
    as a tuple of teacher.PLANS names in the order given; None stays None (one plain teacher answer). Raises
    PolicySpecError for an empty list or a name that is no plan."""
    if spec is None:
        return None
    import teacher

    names = [p.strip() for p in spec.split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    names = list(teacher.PLANS) if names == ["all"] else names
    if not names or any(p not in teacher.PLANS for p in names):
        raise PolicySpecError(f"--teacher-plans takes 'all' or a comma list of {', '.join(teacher.PLANS)}; "
                              f"got {spec!r}")
    return tuple(names)


class ModelPolicy:
    """A causal LM: the shared prompt, batched seeded sampling, N samples per task. args: the caller's flags
    (device, seed, engine, max_new_tokens, temperature, top_p, gen_batch_size)."""

    def __init__(self, model_path, args):
        self.args = args
        if args.engine not in ENGINES:
            raise PolicySpecError(f"--engine must be one of {', '.join(ENGINES)}, got {args.engine!r}")
        self.policy = load_policy(model_path, lora_r=0, device=args.device, seed=args.seed)
        self.policy.model.eval()

    def propose(self, records, n_samples, seed):
        a = self.args
        prompts = [render_prompt(self.policy.tokenizer, rec["source"], self.policy.source_form)
                   for rec in records for _ in range(n_samples)]
        samples = generate(self.policy, prompts, a.max_new_tokens, a.temperature, a.top_p, seed=seed,
                           batch_size=a.gen_batch_size, engine=a.engine)
        texts = [answer(s.text, completion=True) for s in samples]
        return [texts[i * n_samples:(i + 1) * n_samples] for i in range(len(records))]


def check_policy_spec(spec):
    """Cheap validation of --policy (no model is loaded); returns its kind. Raises PolicySpecError."""
    if spec.startswith("solutions:"):
        if not os.path.isdir(spec[len("solutions:"):]):
            raise PolicySpecError(f"--policy {spec}: {spec[len('solutions:'):]!r} is not a directory")
        return "solutions"
    if spec.startswith("samples:"):
        if samples_file(spec[len("samples:"):]) is None:
            raise PolicySpecError(f"--policy {spec}: no samples.jsonl at {spec[len('samples:'):]!r} (an eval.py "
                                  "--out folder or its samples.jsonl)")
        return "samples"
    if spec in ("reference", "teacher"):
        if spec == "teacher":
            try:
                import teacher  # noqa: F401
            except ImportError as e:
                raise PolicySpecError(f"--policy teacher needs teacher.py, which cannot be imported: "
                                      f"{e}") from None
        return spec
    if spec.startswith("model:"):
        return "model"
    if not (os.path.isdir(spec) and resolve_checkpoint(spec)):
        raise PolicySpecError(f"--policy {spec!r} is not teacher, reference, solutions:DIR, samples:FILE, "
                              "model:ID_OR_PATH or a "
                              "checkpoint directory (a train.py run dir, checkpoints/step_N, or a dir with "
                              "policy.json)")
    return "checkpoint"


def make_policy(spec, args):
    """The proposer for --policy (check_policy_spec has validated it). args: the caller's flags (device, seed,
    teacher_dot_precision, and ModelPolicy's)."""
    kind = check_policy_spec(spec)
    if kind == "solutions":
        return SolutionsPolicy(spec[len("solutions:"):])
    if kind == "samples":
        return SamplesPolicy(spec[len("samples:"):])
    if kind == "reference":
        return ReferencePolicy()
    if kind == "teacher":
        return TeacherPolicy(args.device, args.seed, args.teacher_dot_precision, getattr(args, "teacher_plans", None),
                             getattr(args, "teacher_fallback", None))
    return ModelPolicy(spec[len("model:"):] if kind == "model" else resolve_checkpoint(spec), args)


# ----------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    """`python policy.py`; a bad flag is a usage error (exit 2), a model that will not load a ModelLoadError
    (exit 1), each one line through synth.run_main."""
    parser = synth.ArgumentParser(description="Sample from a policy (smoke test).")
    parser.add_argument("--model", default=None, help="hub id, local path or checkpoint dir (default: tiny)")
    parser.add_argument("--corpus", default=None, help="task JSONL whose sources train the tiny tokenizer")
    parser.add_argument("--prompt-file", required=True, help="a KernelBench-format task .py file")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="tokens to sample")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (0 = greedy)")
    parser.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling mass")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    args = parser.parse_args(argv)
    for flag, path in [("--corpus", args.corpus), ("--prompt-file", args.prompt_file)]:
        if path and not os.path.isfile(path):
            parser.error(f"{flag} {path}: no such file")
    if args.max_new_tokens < 1:
        parser.error(f"--max-new-tokens must be >= 1, got {args.max_new_tokens}")
    with open(args.prompt_file) as f:
        source = f.read()
    corpus = [source]
    if args.corpus:
        try:
            corpus += [r["source"] for r in synth.read_tasks(args.corpus)]
        except ValueError as e:
            parser.error(f"--corpus: {synth.one_line(e)}")
    try:
        policy = load_policy(args.model, corpus_texts=corpus, lora_r=0)
    except ModelNotFoundError as e:
        parser.error(f"--model: {e}")
    [sample] = generate(policy, [render_prompt(policy.tokenizer, source, policy.source_form)], args.max_new_tokens,
                        args.temperature, args.top_p, args.seed)
    print(sample.text)
    print(f"tokens {len(sample.completion_ids)} | finish {sample.finish_reason} | "
          f"mean logprob {sum(sample.logprobs) / max(1, len(sample.logprobs)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(synth.run_main(main))
