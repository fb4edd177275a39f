"""policy.py on CPU with a very small stand-in of the tiny default model.

Everything is pinned to the CPU in fp32 so exact comparisons hold on a CUDA machine too."""
import json
import os
import subprocess
import sys

import pytest
import torch

import policy as P

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAIRS = os.path.join(HERE, "data_sft", "pairs.jsonl")
SIZES = dict(vocab_size=400, hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64,
             max_positions=2048)


def read_pairs():
    with open(PAIRS) as f:
        return [json.loads(line) for line in f]


def corpus():
    pairs = read_pairs()
    return [p["prompt"] for p in pairs] + [p["completion"] for p in pairs]


@pytest.fixture(scope="module")
def tiny():
    """A full-fine-tuning tiny policy (no adapter)."""
    return P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=0, seed=0, device="cpu")


@pytest.fixture(scope="module")
def tiny_lora():
    """A LoRA policy whose adapter is not a no-op (B is random), so merging matters."""
    pol = P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=4, lora_alpha=8, seed=0,
                         device="cpu")
    with torch.no_grad():
        for name, p in pol.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)
    return pol


def test_task_prompt_round_trip_and_content():
    source = read_pairs()[0]["prompt"]
    task_source = P.task_source_from_prompt(source)
    assert "class Model(nn.Module)" in task_source and "get_inputs" in task_source
    prompt = P.task_prompt(task_source)
    assert P.task_source_from_prompt(prompt).strip() == task_source.strip()
    for must in ["ModelNew", "Triton", "@triton.jit", "```python"]:
        assert must in prompt
    assert P.task_source_from_prompt("no code here") is None


KB_LIKE = '''import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Multi-line class docstring.
    """
    def __init__(self, dim: int):
        """Args:
            dim (int): the size.
        """
        super().__init__()
        self.dim = dim  # kept

    def forward(self, x):
        """Doc only before code."""
        s = "# a hash in a string stays"
        return torch.relu(x) * self.dim  # the op

    def unused(self):
        """The whole body."""

dim = 16  # size

def get_inputs():
    return [torch.randn(4, dim)]
'''


def test_code_only_drops_docstrings_and_comments_and_nothing_else():
    """The "code" source form: docstrings and comments go, `pass` stands in for a body that was only a
    docstring, blank-line runs shrink to one; every statement that runs stays. Sources it cannot cut safely
    (unparsable, or a docstring sharing its line with code) come back as they were."""
    import ast
    out = P.code_only(KB_LIKE)
    assert '"""' not in out and "# kept" not in out and "# size" not in out and "# the op" not in out
    assert 's = "# a hash in a string stays"' in out and "        self.dim = dim\n" in out
    assert "    def unused(self):\n        pass\n" in out and "\n\n\n" not in out
    strip = ast.parse(KB_LIKE)
    for node in ast.walk(strip):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and body and isinstance(body[0], ast.Expr):
            node.body = body[1:] or [ast.Pass()]
    assert ast.dump(ast.parse(out)) == ast.dump(strip)
    assert P.code_only(out) == out
    for unchanged in ('def f(): "doc on the def line"\n', "def broken(:\n", 'x = 1; """not a docstring"""\n'):
        assert P.code_only(unchanged) == unchanged


def test_prompt_forms():
    """A policy's source form shapes its prompt; a stored raw prompt put in a form equals the prompt built in it,
    and "raw" leaves everything as written. An unknown form is an error, not a silent raw."""
    raw = P.task_prompt(KB_LIKE)
    assert P.task_source_from_prompt(raw).strip() == KB_LIKE.strip() and P.prompt_in_form(raw, "raw") == raw
    code = P.task_prompt(KB_LIKE, "code")
    assert P.prompt_in_form(raw, "code") == code and '"""' not in code and code.startswith(P.PROMPT_INSTRUCTION)
    assert P.prompt_in_form("no code block", "code") == "no code block"
    with pytest.raises(ValueError, match="source form must be one of raw, code"):
        P.task_prompt(KB_LIKE, "docless")
    with pytest.raises(ValueError, match="source_form must be one of"):
        P.load_policy(None, corpus_texts=["x"], source_form="docless")


def test_module_import_is_light():
    """teacher.py imports policy.task_prompt: no transformers/peft at import time."""
    code = "import sys, policy; assert not {'transformers', 'peft', 'tokenizers'} & set(sys.modules), sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_render_prompt_chat_template_and_plain(tiny):
    text = P.render_prompt(tiny.tokenizer, "SRC")
    assert text.startswith("<|im_start|>user\n") and text.endswith("<|im_end|>\n<|im_start|>assistant\n")
    assert P.task_prompt("SRC") in text

    class Plain:  # a tokenizer without a chat template
        chat_template = None
        bos_token = "<s>"

    plain = P.render_user(Plain(), "hello")
    assert plain == "<s>### Instruction\nhello\n\n### Response\n"


def test_tiny_tokenizer_and_model_cached_in_run_dir(tmp_path):
    a = P.load_policy(None, corpus_texts=corpus(), run_dir=str(tmp_path), tiny_sizes=SIZES, lora_r=0, seed=1,
                     device="cpu")
    assert os.path.isdir(tmp_path / "tokenizer") and os.path.isdir(tmp_path / "base_model")
    # A second load needs no corpus and gets the same tokenizer and weights, even with another seed.
    b = P.load_policy(None, run_dir=str(tmp_path), tiny_sizes=SIZES, lora_r=0, seed=2, device="cpu")
    code = read_pairs()[3]["completion"]
    assert a.tokenizer(code)["input_ids"] == b.tokenizer(code)["input_ids"]
    assert b.tokenizer.decode(b.tokenizer(code)["input_ids"]) == code  # byte-level: lossless
    for (na, pa), (nb, pb) in zip(a.model.named_parameters(), b.model.named_parameters()):
        assert na == nb and torch.equal(pa, pb)
    assert a.tokenizer.eos_token == "<|im_end|>" and a.tokenizer.pad_token == "<|endoftext|>"
    assert a.model.config.vocab_size % 64 == 0 and a.model.config.vocab_size >= len(a.tokenizer)


def test_tokens_spanning_words_stay_within_a_line_and_their_length_cap(tmp_path):
    """max_token_chars N: tokens may join words and spaces, never across a line break, up to N characters; the
    tokenizer saved in the run dir keeps that rule, decoding is lossless, and the pairs take fewer tokens."""
    texts = corpus()
    word = P.train_tokenizer(texts, 1000)
    phrase = P.train_tokenizer(texts, 1000, max_token_chars=12)
    phrase.save_pretrained(str(tmp_path))
    reloaded = P._load_tokenizer(str(tmp_path))
    codes = [p["completion"] for p in read_pairs()]
    n_word = sum(len(word(c)["input_ids"]) for c in codes)
    n_phrase = sum(len(phrase(c)["input_ids"]) for c in codes)
    assert n_phrase < 0.8 * n_word, (n_phrase, n_word)
    spans_words = False
    for code in codes:
        ids = phrase(code)["input_ids"]
        assert reloaded(code)["input_ids"] == ids and phrase.decode(ids) == code
        for i in ids:
            piece = phrase.decode([i])
            assert len(piece) <= 12, piece
            assert "\n" not in piece.lstrip("\n"), piece  # a line break only opens a token, never sits inside
            spans_words |= " " in piece.strip()
    assert spans_words  # some token joins two words: the rule is in force, not word-level BPE again
    for code in codes:  # word-level BPE: no token has a space between two other characters
        assert not any(" " in word.decode([i]).strip() for i in word(code)["input_ids"])
    with pytest.raises(ValueError, match="max_token_chars"):
        P.train_tokenizer(texts, 1000, max_token_chars=-1)


def test_tiny_needs_a_corpus():
    with pytest.raises(ValueError, match="corpus"):
        P.load_policy(None, tiny_sizes=SIZES, lora_r=0)


def reference_logprobs(model, ids, mask, target):
    """Hand computation: full logits, fp32 log-softmax, gather the next token."""
    logits = model(input_ids=ids, attention_mask=mask).logits.float()
    lp = torch.log_softmax(logits[:, :-1], -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    return lp[target[:, 1:].bool()]


@pytest.mark.parametrize("chunk_tokens", [3, 512])
def test_token_logprobs_equal_full_logits(tiny, chunk_tokens):
    torch.manual_seed(0)
    ids, mask = P.pad_right([torch.randint(0, 300, (n,)).tolist() for n in [9, 5, 7]], tiny.tokenizer.pad_token_id)
    target = mask.clone()
    target[:, :3] = 0  # the first three tokens of each row are "prompt"
    tiny.model.eval()
    got = P.token_logprobs(tiny.model, ids, mask, target, chunk_tokens)
    want = reference_logprobs(tiny.model, ids, mask, target)
    assert got.shape == (int(target[:, 1:].sum()),) and got.dtype == torch.float32
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    # Gradients through the chunked, checkpointed path equal those of the plain computation.
    params = [p for p in tiny.model.parameters() if p.requires_grad]
    g_got = torch.autograd.grad(P.token_logprobs(tiny.model, ids, mask, target, chunk_tokens).sum(), params)
    g_want = torch.autograd.grad(reference_logprobs(tiny.model, ids, mask, target).sum(), params)
    for a, b in zip(g_got, g_want):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)


def test_right_padded_batches_run_with_the_causal_mask_alone(tiny, monkeypatch):
    """A right-padded batch's log-probs run without the padding mask (SDPA's flash kernel on a GPU; SFT's batches):
    the same numbers as with it, because a real position only attends to real positions under the causal mask."""
    assert P.right_padded(torch.tensor([[1, 1, 1], [1, 1, 0], [1, 0, 0]]))
    assert not P.right_padded(torch.tensor([[0, 1, 1], [1, 1, 1]]))  # left padding
    assert not P.right_padded(torch.tensor([[1, 0, 1]])) and not P.right_padded(None)
    torch.manual_seed(1)
    ids, mask = P.pad_right([torch.randint(0, 300, (n,)).tolist() for n in [11, 4, 8]], tiny.tokenizer.pad_token_id)
    target = mask.clone()
    target[:, :2] = 0
    decoder = tiny.model.get_decoder()
    seen = []
    real_forward = decoder.forward
    monkeypatch.setattr(decoder, "forward", lambda *a, **kw: seen.append(kw["attention_mask"]) or real_forward(*a, **kw))
    tiny.model.eval()
    with torch.no_grad():
        causal = P.token_logprobs(tiny.model, ids, mask, target)
        monkeypatch.setattr(P, "CAUSAL_WHEN_RIGHT_PADDED", False)
        masked = P.token_logprobs(tiny.model, ids, mask, target)
    assert seen[0] is None and seen[1] is mask  # the switch decides which path runs
    torch.testing.assert_close(causal, masked, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(causal, reference_logprobs(tiny.model, ids, mask, target), atol=1e-5, rtol=1e-5)


def test_generate_greedy_seeded_and_logprobs(tiny):
    prompts = [P.render_user(tiny.tokenizer, p["prompt"]) for p in read_pairs()[:3]]
    rng_before = torch.get_rng_state()
    greedy = P.generate(tiny, prompts, max_new_tokens=8, temperature=0.0, top_p=1.0, seed=0, batch_size=2)
    assert torch.equal(torch.get_rng_state(), rng_before)  # the global RNG is untouched
    again = P.generate(tiny, prompts, max_new_tokens=8, temperature=0.0, top_p=1.0, seed=123, batch_size=3)
    assert [s.completion_ids for s in greedy] == [s.completion_ids for s in again]  # batching-independent
    a = P.generate(tiny, prompts, max_new_tokens=8, temperature=1.0, top_p=0.9, seed=7)
    b = P.generate(tiny, prompts, max_new_tokens=8, temperature=1.0, top_p=0.9, seed=7)
    assert [s.completion_ids for s in a] == [s.completion_ids for s in b]
    for s in greedy + a:
        assert len(s.completion_ids) == len(s.logprobs) <= 8
        assert s.finish_reason in ("eos", "length")
        assert s.prompt_ids == P.encode(tiny.tokenizer, prompts[greedy.index(s) if s in greedy else a.index(s)])
        ids = torch.tensor([s.prompt_ids + s.completion_ids])
        target = torch.zeros_like(ids)
        target[0, len(s.prompt_ids):] = 1
        with torch.no_grad():
            want = reference_logprobs(tiny.model, ids, torch.ones_like(ids), target)
        torch.testing.assert_close(torch.tensor(s.logprobs), want, atol=1e-4, rtol=1e-4)
    # Greedy picks the argmax, so each greedy token's log-prob is the row maximum (>= log 1/vocab).
    assert all(lp >= -torch.log(torch.tensor(float(tiny.model.config.vocab_size))) for s in greedy for lp in s.logprobs)


def test_generate_stops_at_eos(tiny):
    """With eos forced to be the argmax, generation stops at once and keeps eos in completion_ids."""
    eos = tiny.tokenizer.eos_token_id
    bump = torch.zeros(tiny.model.config.vocab_size)
    bump[eos] = 1e4
    hook = tiny.model.get_output_embeddings().register_forward_hook(lambda module, inputs, out: out + bump)
    try:
        [s] = P.generate(tiny, [P.render_prompt(tiny.tokenizer, "x")], max_new_tokens=8, temperature=0.0,
                         top_p=1.0, seed=0)
    finally:
        hook.remove()
    assert s.completion_ids == [eos] and s.finish_reason == "eos" and s.text == ""
    assert abs(s.logprobs[0]) < 1e-3  # log p(eos) = 0 under the forced logits


def test_lora_merged_for_generation_and_unmerged_after(tiny_lora):
    pol = tiny_lora
    before = {k: v.clone() for k, v in pol.model.state_dict().items()}
    prompts = [P.render_user(pol.tokenizer, p["prompt"]) for p in read_pairs()[:2]]
    merges = []
    original = pol.model.merge_adapter
    pol.model.merge_adapter = lambda *a, **k: (merges.append(1), original(*a, **k))[1]
    try:
        samples = P.generate(pol, prompts, max_new_tokens=6, temperature=0.0, top_p=1.0, seed=0)
    finally:
        del pol.model.merge_adapter
    assert merges == [1]
    after = pol.model.state_dict()
    assert before.keys() == after.keys()
    for k in before:
        torch.testing.assert_close(after[k], before[k], atol=1e-6, rtol=0)  # fp32: unmerge is near exact
    assert not any(getattr(m, "merged", False) for m in pol.model.modules())
    assert pol.model.training  # the mode is restored
    # The log-probs sampled with the merged model equal those of the unmerged adapter model.
    s = samples[0]
    ids = torch.tensor([s.prompt_ids + s.completion_ids])
    target = torch.zeros_like(ids)
    target[0, len(s.prompt_ids):] = 1
    pol.model.eval()
    with torch.no_grad():
        want = P.token_logprobs(pol.model, ids, torch.ones_like(ids), target)
    pol.model.train()
    torch.testing.assert_close(torch.tensor(s.logprobs), want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("lora_r", [0, 4])
def test_save_and_load_policy_round_trip(tmp_path, lora_r):
    run_dir = tmp_path / "run"
    pol = P.load_policy(None, corpus_texts=corpus(), run_dir=str(run_dir), tiny_sizes=SIZES, lora_r=lora_r,
                        lora_alpha=8, seed=0, device="cpu", source_form="code")
    with torch.no_grad():
        for p in P.trainable_parameters(pol):
            p.add_(0.01 * torch.randn_like(p))  # "training"
    ckpt = run_dir / "checkpoints" / "step_000001" / "policy"
    P.save_policy(pol, str(ckpt), base_dir=str(run_dir / "base_model") if lora_r else None)
    meta = json.loads((ckpt / "policy.json").read_text())
    assert meta["kind"] == ("lora" if lora_r else "full")
    loaded = P.load_policy(str(ckpt), device="cpu", source_form="raw")  # the checkpoint's form wins
    assert loaded.lora == bool(lora_r) and loaded.source_form == "code"
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    pol.model.eval()
    loaded.model.eval()
    with torch.no_grad():
        torch.testing.assert_close(loaded.model(input_ids=ids).logits, pol.model(input_ids=ids).logits)
    assert sum(p.numel() for p in P.trainable_parameters(loaded)) == sum(
        p.numel() for p in P.trainable_parameters(pol))


def test_attach_lora_merges_the_previous_adapter(tiny_lora):
    """After SFT the RL stage merges the SFT adapter and starts a fresh one: adapter off = SFT policy."""
    import copy

    pol = copy.deepcopy(tiny_lora)
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    pol.model.eval()
    with torch.no_grad():
        sft_logits = pol.model(input_ids=ids).logits
    P.attach_lora(pol, r=2, alpha=4, dropout=0.0)
    pol.model.eval()
    with torch.no_grad(), pol.model.disable_adapter():
        off = pol.model(input_ids=ids).logits
        torch.testing.assert_close(off, sft_logits, atol=1e-5, rtol=1e-5)
    with torch.no_grad():  # a fresh adapter starts as the identity (B = 0)
        torch.testing.assert_close(pol.model(input_ids=ids).logits, sft_logits, atol=1e-5, rtol=1e-5)
    assert all(n.count("lora_A") <= 1 for n, _ in pol.model.named_parameters())


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error raised where CUDA is absent")
def test_4bit_without_cuda_is_a_clear_error():
    with pytest.raises(RuntimeError, match="CUDA"):
        P._load_hf_base("any/model", torch.bfloat16, True, torch.device("cpu"))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_gpu_bf16_lora_generate_and_logprobs():
    """The 7B path in miniature: bf16 base on CUDA, fp32 adapter, merged sampling, chunked log-probs."""
    pol = P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=4, lora_alpha=8, seed=0, device="cuda")
    assert pol.dtype == torch.bfloat16 and pol.device.type == "cuda"
    assert all(p.dtype == torch.float32 for p in P.trainable_parameters(pol))  # peft keeps adapters in fp32
    with torch.no_grad():
        for name, p in pol.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)
    before = {k: v.clone() for k, v in pol.model.state_dict().items()}
    prompts = [P.render_user(pol.tokenizer, p["prompt"]) for p in read_pairs()[:4]]
    samples = P.generate(pol, prompts, max_new_tokens=16, temperature=1.0, top_p=0.95, seed=0)
    assert all(len(s.logprobs) == len(s.completion_ids) > 0 for s in samples)
    assert all(lp <= 0 for s in samples for lp in s.logprobs)
    # Merging into bf16 and back is not exact, but stays within a few bf16 ulps of the weights.
    for k, v in pol.model.state_dict().items():
        torch.testing.assert_close(v.float(), before[k].float(), atol=0.02, rtol=0.02)
