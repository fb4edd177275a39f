"""policy.py: the model side of DRTriton: loading, LoRA, the prompt, generation and token log-probs.

One place owns each of these so that SFT, RL, search and eval agree on them (issue 5):

- `task_prompt(task_source)` is the model-agnostic user message (KernelBench's instruction: replace the
  PyTorch operators with custom Triton kernels, name the class ModelNew, answer with one python block).
  SFT pairs store it as "prompt"; `render_prompt` / `render_user` put it through the tokenizer's chat
  template (or a plain template when there is none). Prompt text is always encoded with
  `add_special_tokens=False`: the template already holds every special token.
- `load_policy(model=None)` builds the built-in tiny default: a Qwen2-architecture model from a config
  (a few million parameters, random weights) and a byte-level BPE tokenizer trained here on the caller's
  corpus; both are saved in `run_dir` so a resumed run reuses them. Nothing is downloaded.
  `load_policy("Qwen/Qwen2.5-Coder-7B-Instruct")` (or a local path, or a checkpoint written by
  `save_policy`) loads any causal LM. LoRA on all linear layers (`lora_r=0` means full fine-tuning),
  optional 4-bit base (bitsandbytes, CUDA only), bf16 base on CUDA, fp32 on CPU.
- `generate(policy, prompts, ...)` samples completions of rendered prompts and returns `Sample`s with
  token ids and per-token log-probs. The LoRA adapter is merged for sampling and unmerged afterwards.
  `engine="hf"` is plain `transformers` generate; "static" / "cudagraph" / "compile" are the fast engine
  of issue 9 (a static KV cache, decode steps replayed as CUDA graphs); "auto" picks it on CUDA.
- `token_logprobs(model, ...)` is the one log-prob routine: the decoder runs once, then the output layer
  runs over the *selected* positions only, in chunks, in fp32, each chunk under activation checkpointing,
  so full fp32 vocab logits for a batch never exist (7B: 152k vocab x 16 x 2048 tokens would be 20 GB).
  The SFT loss (-mean over completion tokens) and the RL scores both use it.

Differences from a textbook setup, on purpose:
- Log-probs in `Sample.logprobs` are of the model's own distribution (temperature 1, no top-p), computed
  after sampling by the same routine the trainer uses, so the RL ratio is exactly 1 before an update.
- Merging and unmerging a LoRA adapter into a bf16 base is not exact: each cycle rounds the base
  weights (about half an ulp). A 4-bit base is never merged (requantising would be lossier); sampling
  then runs through the adapter.

Usage (a smoke test of the tiny default):
    python policy.py --corpus tasks.jsonl --prompt-file task.py --max-new-tokens 64
"""
import argparse
import contextlib
import dataclasses
import json
import os
import re
import sys

import torch
import torch.utils.checkpoint

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


def task_prompt(task_source: str) -> str:
    """The user message for one task: the instruction, then the task's source in a python block."""
    return f"{PROMPT_INSTRUCTION}\n\nPyTorch program:\n```python\n{task_source.strip()}\n```\n"


def task_source_from_prompt(prompt: str):
    """Inverse of `task_prompt`: the task source inside a user message, or None if it has none."""
    blocks = _PY_BLOCK.findall(prompt)
    return blocks[-1] if blocks else None


def render_user(tokenizer, user_text: str) -> str:
    """A user message as the model sees it, ending where the assistant's answer starts."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": user_text}], tokenize=False, add_generation_prompt=True)
    bos = tokenizer.bos_token or ""
    return bos + PLAIN_TEMPLATE.format(user=user_text)


def render_prompt(tokenizer, task_source: str) -> str:
    """The rendered prompt for a task source; SFT, RL, search and eval all call this."""
    return render_user(tokenizer, task_prompt(task_source))


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


def train_tokenizer(texts, vocab_size: int):
    """A byte-level BPE tokenizer trained on `texts`, wrapped for transformers with a ChatML template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = [t for t in texts if t]
    if not texts:
        raise ValueError("train_tokenizer needs a non-empty corpus of texts")
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=TINY_SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
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
                  intermediate_size=688, max_positions=4096)


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


def resolve_device(device=None) -> torch.device:
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def resolve_dtype(dtype, device: torch.device) -> torch.dtype:
    """bf16 on CUDA, fp32 on CPU (bf16 matmuls are slow there) unless the caller says otherwise."""
    if dtype in (None, "auto"):
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    return {"bf16": torch.bfloat16, "bfloat16": torch.bfloat16, "fp16": torch.float16,
            "fp32": torch.float32, "float32": torch.float32}[dtype]


def _load_tokenizer(path):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
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
        tokenizer = _load_tokenizer(tok_dir)
    else:
        if not corpus_texts:
            raise ValueError("the tiny default model needs corpus_texts to train its tokenizer "
                             "(or a run_dir that already holds tokenizer/)")
        tokenizer = train_tokenizer(corpus_texts, sizes["vocab_size"])
        if tok_dir:
            tokenizer.save_pretrained(tok_dir)
    if base_dir and os.path.isdir(base_dir):
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


def _load_hf_base(path, dtype, load_in_4bit, device):
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
                                                    device_map={"": device.index or 0})
    return AutoModelForCausalLM.from_pretrained(path, dtype=dtype)


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
                seed=0) -> Policy:
    """Load a policy. `model`: None for the tiny default, a hub id, a local model path, or a checkpoint
    directory written by `save_policy` (which restores its adapter or full weights; `lora_*` then unused).
    `lora_r=0` trains every parameter (what a from-scratch tiny model needs); `lora_r>0` attaches LoRA.
    """
    device = resolve_device(device)
    dtype = resolve_dtype(dtype, device)
    saved = None
    if model is not None and os.path.isfile(os.path.join(str(model), "policy.json")):
        with open(os.path.join(model, "policy.json")) as f:
            saved = json.load(f)

    if saved is not None:
        ckpt = str(model)
        tokenizer = _load_tokenizer(os.path.join(ckpt, "tokenizer"))
        if saved["kind"] == "full":
            base_name, base_path = saved["base"], os.path.join(ckpt, "model")
        else:
            base_name = saved["base"]
            base_path = base_name
            rel = os.path.normpath(os.path.join(ckpt, base_name))
            if os.path.isdir(rel):  # bases inside a run dir are stored relative to the checkpoint
                base_path = rel
        hf_model = _load_hf_base(base_path, dtype, load_in_4bit, device)
    elif model is None:
        base_name = "tiny"
        tokenizer, hf_model = _tiny_base(run_dir, corpus_texts, tiny_sizes, seed)
        hf_model = hf_model.to(dtype)
    else:
        base_name = str(model)
        tokenizer = _load_tokenizer(base_name)
        hf_model = _load_hf_base(base_name, dtype, load_in_4bit, device)

    if not load_in_4bit:
        hf_model = hf_model.to(device)
    hf_model.config.use_cache = False  # training default; generate() turns the cache on for itself
    if load_in_4bit:
        import peft

        hf_model = peft.prepare_model_for_kbit_training(hf_model, use_gradient_checkpointing=gradient_checkpointing)
    if gradient_checkpointing:
        hf_model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})

    policy = Policy(model=hf_model, tokenizer=tokenizer, device=device, dtype=dtype, lora=False,
                    quantized=bool(load_in_4bit), base=base_name)
    if saved is not None and saved["kind"] == "lora":
        import peft

        policy.model = peft.PeftModel.from_pretrained(hf_model, os.path.join(str(model), "adapter"),
                                                      is_trainable=True)
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


def _chunk_logprobs(head, softcap, hidden, targets):
    logits = head(hidden).float()  # (chunk, vocab) fp32: the only place full-vocab logits exist
    if softcap:
        logits = torch.tanh(logits / softcap) * softcap
    return torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None]).squeeze(-1)


def token_logprobs(model, input_ids, attention_mask, target_mask, chunk_tokens: int = 512) -> torch.Tensor:
    """Log-probs (fp32) of the tokens where `target_mask` is true, each given the tokens before it.

    input_ids, attention_mask, target_mask: (B, T); position 0 is never a target. Returns (N,), the
    selected tokens in row-major order (N = target_mask[:, 1:].sum()). Padding must be on the right or
    on the left with attention_mask zero there. With grad enabled each chunk is checkpointed, so backward
    keeps (N, hidden) activations instead of (N, vocab) fp32 log-probs.
    """
    decoder, head, softcap = _hf_parts(model)
    hidden = decoder(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
    select = target_mask[:, 1:].bool()                      # (B, T-1): position t predicts token t+1
    h = hidden[:, :-1][select]                              # (N, H)
    targets = input_ids[:, 1:][select]                      # (N,)
    out = []
    for start in range(0, h.shape[0], chunk_tokens):
        h_c, t_c = h[start:start + chunk_tokens], targets[start:start + chunk_tokens]
        if torch.is_grad_enabled():
            out.append(torch.utils.checkpoint.checkpoint(_chunk_logprobs, head, softcap, h_c, t_c,
                                                         use_reentrant=False))
        else:
            out.append(_chunk_logprobs(head, softcap, h_c, t_c))
    return torch.cat(out) if out else h.new_zeros(0, dtype=torch.float32)


def pad_right(rows, pad_id):
    """(ids, attention_mask) tensors (B, T) from lists of ids, padded on the right."""
    width = max(len(r) for r in rows)
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
# The fast engine (issue 9): a static KV cache and a decode step replayed as a CUDA graph
#
# Plain `generate` spends most of a 7B decode step launching kernels from Python (about 4% of the
# memory-bandwidth floor on an H200). Here the decoder runs through our own short forward over the model's
# own modules (embedding, rotary embedding, projections, norms, MLPs: the transformers code and weights,
# so a LoRA adapter merged into them is included) with a preallocated KV cache; one decode step has fixed
# shapes and no host synchronisation, so it is captured once as a CUDA graph and replayed per token
# (engine "cudagraph"), optionally after torch.compile fused the elementwise ops around each attention
# ("compile"; "compile_full" compiles the whole layer at one cache length, the session-1 variant). Engine
# "static" runs the same step eagerly (CPU tests compare it with plain generate). Differences from
# `generate`, none of which changes the sampled distribution:
# - attention reads the cache up to the current length rounded up to `kv_bucket` slots (one graph per
#   bucket), masked to the real tokens; decode GQA folds the query heads of a KV head into query rows
#   instead of copying K/V (what repeat_kv does);
# - the all-finished check runs every `sync_every` steps (a host sync); the extra steps write pad tokens;
# - temperature and top-p use transformers' own logits warpers in the same order, then softmax and
#   torch.multinomial as `generate` does; so on CPU the same seed gives the same tokens as engine "hf".
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


def _rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def _attend(q, k, v, mask, scale):
    """Causal attention of q (B, H, q_len, D) over the cache k, v (B, kv_heads, kv_len, D); mask is
    (B, 1, q_len, kv_len), added to the scores (0 or -inf). Output (B, q_len, H * D)."""
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


def _attn_in(layer, x, cos, sin):
    """A layer's input norm, q/k/v projections and rotary embedding: q, k, v as (B, heads, q_len, D)."""
    attn = layer.self_attn
    B, q_len, _ = x.shape
    h = layer.input_layernorm(x)
    q = attn.q_proj(h).view(B, q_len, -1, attn.head_dim)
    k = attn.k_proj(h).view(B, q_len, -1, attn.head_dim)
    v = attn.v_proj(h).view(B, q_len, -1, attn.head_dim).transpose(1, 2)
    if hasattr(attn, "q_norm"):  # Qwen3
        q, k = attn.q_norm(q), attn.k_norm(k)
    q, k = q.transpose(1, 2), k.transpose(1, 2)                              # (B, heads, q_len, D)
    return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin, v


def _attn_out(layer, x, out):
    """The attention output projection, the residual, and the MLP block with its residual."""
    x = x + layer.self_attn.o_proj(out)
    return x + layer.mlp(layer.post_attention_layernorm(x))


def _layer_forward(layer, x, cos, sin, mask, k_cache, v_cache, slots, kv_len: int, parts=(_attn_in, _attn_out)):
    """One decoder layer (Llama-style: pre-norm attention and MLP with residuals) over the static cache.
    `parts` are the two halves around the attention (compiled ones in the "compile" engine)."""
    q, k, v = parts[0](layer, x, cos, sin)
    k_cache.index_copy_(2, slots, k)
    v_cache.index_copy_(2, slots, v)
    out = _attend(q, k_cache[:, :, :kv_len], v_cache[:, :, :kv_len], mask, layer.self_attn.scaling)
    return parts[1](layer, x, out)


_COMPILED = {}  # function -> torch.compile(function), made once per process


def _compiled(fn):
    """Regional compilation: one compiled function serves every layer of the model (same code, same shapes;
    the layer's weights are graph inputs), so compiling costs one layer, not the whole stack."""
    if fn not in _COMPILED:
        _COMPILED[fn] = torch.compile(fn, dynamic=False)
    return _COMPILED[fn]


def _compiled_layer_forward():
    """The "compile" engine's layer: the two halves around the attention are compiled (norms, rotary,
    residuals and the MLP's activation fuse into few kernels); the attention and the cache writes stay eager,
    so its length grows in kv_len buckets like the cudagraph engine's (one shape per bucket would recompile
    a compiled attention). "compile_full" compiles the whole layer instead, attending over the full cache
    every step; on the H200 the two ran at the same speed (7,596 vs 7,609 tokens/s, LOG.md)."""
    parts = (_compiled(_attn_in), _compiled(_attn_out))

    def layer_fn(*args):
        return _layer_forward(*args, parts=parts)
    return layer_fn


def _static_forward(model, k_cache, v_cache, valid, tokens, positions, slots, kv_len: int, layer_fn=_layer_forward):
    """One forward of `tokens` (B, q_len) at cache slots `slots` (q_len,) with rotary positions
    `positions` (B, q_len): writes their K/V into the caches (lists of (B, kv_heads, L, D)) and returns
    the logits of the last position (B, vocab) in the model dtype. `valid` (B, L) is False at left-pad
    slots. Only tensor ops, no host sync: one call can be captured as a CUDA graph."""
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
    for i, layer in enumerate(dec.layers):
        x = layer_fn(layer, x, cos, sin, mask, k_cache[i], v_cache[i], slots, kv_len)
    return hf.get_output_embeddings()(dec.norm(x[:, -1]))


class _StaticDecoder:
    """A static KV cache for one batch and the decode step over it, eager or replayed as CUDA graphs."""

    def __init__(self, model, batch, cache_len, device, dtype, mode, kv_bucket):
        hf = _hf_model(model)
        cfg = hf.config
        layer0 = hf.get_decoder().layers[0].self_attn
        shape = (batch, cfg.num_key_value_heads, cache_len, layer0.head_dim)
        n = cfg.num_hidden_layers
        self.model, self.mode, self.cache_len = model, mode, cache_len
        self.kv_bucket = cache_len if mode == "compile_full" else kv_bucket  # compile_full: one shape, one graph
        self.k = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(n)]
        self.v = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(n)]
        self.valid = torch.ones(batch, cache_len, dtype=torch.bool, device=device)
        if mode == "compile":
            self.layer_fn = _compiled_layer_forward()
        elif mode == "compile_full":
            self.layer_fn = _compiled(_layer_forward)
        else:
            self.layer_fn = _layer_forward
        # static inputs and captured graphs of the decode step, one per kv_len bucket
        self.tokens = torch.zeros(batch, 1, dtype=torch.long, device=device)
        self.positions = torch.zeros(batch, 1, dtype=torch.long, device=device)
        self.slot = torch.zeros(1, dtype=torch.long, device=device)
        self.graphs, self.graph_out, self.pool = {}, {}, None

    def prefill(self, ids, attention_mask, max_rows):
        """Run the left-padded prompts (B, W) into the cache, `max_rows` rows at a time; logits (B, vocab)."""
        B, W = ids.shape
        self.valid[:, :W] = attention_mask.bool()
        # rotary positions as generate builds them: cumsum of the mask - 1 (pads get 1, never read)
        positions = (attention_mask.long().cumsum(-1) - 1).masked_fill(attention_mask == 0, 1)
        slots = torch.arange(W, device=ids.device)
        out = []
        for r in range(0, B, max_rows):
            rows = slice(r, r + max_rows)
            out.append(_static_forward(self.model, [k[rows] for k in self.k], [v[rows] for v in self.v],
                                       self.valid[rows], ids[rows], positions[rows], slots, W))
        return torch.cat(out)

    def step(self, tokens, positions, slot: int):
        """Logits (B, vocab) after feeding `tokens` (B,) at cache slot `slot` with rotary `positions` (B,)."""
        kv_len = min(self.cache_len, -(-(slot + 1) // self.kv_bucket) * self.kv_bucket)
        self.tokens.copy_(tokens[:, None])
        self.positions.copy_(positions[:, None])
        self.slot.fill_(slot)
        args = (self.model, self.k, self.v, self.valid, self.tokens, self.positions, self.slot, kv_len, self.layer_fn)
        if self.mode == "static":
            return _static_forward(*args)
        if kv_len not in self.graphs:
            self._capture(kv_len, args)
        self.graphs[kv_len].replay()
        return self.graph_out[kv_len]

    def _capture(self, kv_len, args):
        # Warm-up on a side stream (cuBLAS workspaces, torch.compile's compilation), as the CUDA-graph docs
        # ask. It computes this very step, so writing its K/V into the cache is harmless (same values).
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                _static_forward(*args)
        torch.cuda.current_stream().wait_stream(side)
        if self.pool is None:
            self.pool = torch.cuda.graph_pool_handle()  # buckets replay one at a time, so they share memory
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool):
            self.graph_out[kv_len] = _static_forward(*args)
        self.graphs[kv_len] = graph


def _generate_static(policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size, suppress_eos=False,
                     mode="static", kv_bucket=256, sync_every=None, prefill_tokens=32768):
    """The fast engine over left-padded batches: (completion ids, finish reasons). mode: "static"
    (eager), "cudagraph" or "compile" (CUDA only). kv_bucket: cache slots per attention-length bucket.
    sync_every: decode steps between all-finished checks (default 1 on CPU, 16 on CUDA).
    prefill_tokens: prompt tokens per prefill forward (bounds its activation memory)."""
    from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper

    why = fast_engine_unsupported(policy)
    if why:
        raise ValueError(f"the fast generation engine does not support {why}; use engine='hf'")
    device = policy.device
    if mode != "static" and device.type != "cuda":
        raise ValueError(f"engine {mode!r} needs CUDA; use 'static' on {device.type}")
    if mode != "static" and policy.quantized:
        mode = "static"  # bitsandbytes 4-bit matmuls are not known to be graph-safe; stay eager
    sync_every = sync_every or (16 if device.type == "cuda" else 1)
    stop = eos_ids(policy)
    stop_t = torch.tensor(stop, dtype=torch.long, device=device)
    pad_id = policy.tokenizer.pad_token_id
    warpers = []
    if temperature > 0 and temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(temperature))
    if temperature > 0 and top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p))
    dtype = next(_hf_model(policy.model).get_decoder().parameters()).dtype
    if policy.quantized:
        dtype = policy.dtype
    completions, reasons = [], []
    for start in range(0, len(prompt_ids), batch_size):
        ids, mask = _left_pad(prompt_ids[start:start + batch_size], pad_id)
        ids, mask = ids.to(device), mask.to(device)
        B, W = ids.shape
        cache_len = W + max_new_tokens
        if mode == "compile_full":  # the whole layer is compiled for one cache length: fewer recompilations
            cache_len = -(-cache_len // 256) * 256
        decoder = _StaticDecoder(policy.model, B, cache_len, device, dtype, mode, kv_bucket)
        logits = decoder.prefill(ids, mask, max(1, prefill_tokens // W))
        n_prompt = mask.sum(-1)                                                      # (B,)
        out = torch.full((B, max_new_tokens), pad_id, dtype=torch.long, device=device)
        done = torch.zeros(B, dtype=torch.bool, device=device)
        for t in range(max_new_tokens):
            scores = logits.float()                                                  # (B, vocab) fp32, as generate
            if suppress_eos:
                scores[:, stop_t] = -float("inf")
            if temperature > 0:
                for warp in warpers:
                    scores = warp(None, scores)
                token = torch.multinomial(torch.softmax(scores, dim=-1), num_samples=1).squeeze(1)
            else:
                token = torch.argmax(scores, dim=-1)
            token = torch.where(done, pad_id, token)                                 # finished rows emit pad
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


# Generation engines by name, each (policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size,
# suppress_eos=False) -> (completion ids, finish reasons). "auto" picks one in `resolve_engine`.
ENGINES = {
    "hf": _generate_hf,
    "static": _generate_static,
    "cudagraph": lambda *a, **k: _generate_static(*a, mode="cudagraph", **k),
    "compile": lambda *a, **k: _generate_static(*a, mode="compile", **k),
    "compile_full": lambda *a, **k: _generate_static(*a, mode="compile_full", **k),
}
AUTO_CUDA_ENGINE = "cudagraph"  # what "auto" runs on CUDA; chosen by `python bench.py rollout` (LOG.md)
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
    engine: "hf" (plain transformers generate), "static", "cudagraph", "compile" or "auto" (above).

    Seeded: the same (prompts, seed, batch_size, engine) gives the same samples; the global RNG is untouched.
    """
    prompt_ids = [encode(policy.tokenizer, p) for p in prompts]
    engine = resolve_engine(engine, policy)
    with sampling_mode(policy, seed):
        completions, reasons = ENGINES[engine](policy, prompt_ids, max_new_tokens, temperature, top_p, batch_size)
        logprobs = completion_logprobs(policy, prompt_ids, completions, chunk_tokens=logprob_chunk_tokens)
    return [Sample(text=policy.tokenizer.decode(c, skip_special_tokens=True), prompt_ids=p, completion_ids=c,
                   logprobs=lp, finish_reason=r)
            for p, c, lp, r in zip(prompt_ids, completions, logprobs, reasons)]


# ----------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Sample from a policy (smoke test).")
    parser.add_argument("--model", default=None, help="hub id, local path or checkpoint dir (default: tiny)")
    parser.add_argument("--corpus", default=None, help="task JSONL whose sources train the tiny tokenizer")
    parser.add_argument("--prompt-file", required=True, help="a KernelBench-format task .py file")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="tokens to sample")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (0 = greedy)")
    parser.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling mass")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    args = parser.parse_args(argv)
    for path in [args.corpus, args.prompt_file]:
        if path and not os.path.isfile(path):
            parser.error(f"no such file: {path}")
    with open(args.prompt_file) as f:
        source = f.read()
    corpus = [source]
    if args.corpus:
        with open(args.corpus) as f:
            corpus += [json.loads(line)["source"] for line in f if line.strip()]
    policy = load_policy(args.model, corpus_texts=corpus, lora_r=0)
    [sample] = generate(policy, [render_prompt(policy.tokenizer, source)], args.max_new_tokens, args.temperature,
                        args.top_p, args.seed)
    print(sample.text)
    print(f"tokens {len(sample.completion_ids)} | finish {sample.finish_reason} | "
          f"mean logprob {sum(sample.logprobs) / max(1, len(sample.logprobs)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
