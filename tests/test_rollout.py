"""The fast generation engine against plain transformers generate, on a very small stand-in of
the tiny default model on CPU (fp32), plus a CUDA-graph check that skips itself without a GPU.

On CPU engine "static" runs the same code as "cudagraph" / "compile" without the graph capture, so
equality here tests the cache, masks, positions, GQA folding, sampling and stopping of all three; the
compiled layer halves of "compile" are checked against "static" step by step."""
import functools
import json
import os
import re
import sys

import pytest
import torch

import policy as P

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = dict(vocab_size=400, hidden_size=32, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=64,
             max_positions=2048)


def corpus():
    with open(os.path.join(HERE, "data_sft", "pairs.jsonl")) as f:
        pairs = [json.loads(line) for line in f]
    return [p["prompt"] for p in pairs] + [p["completion"] for p in pairs]


# The tiny CPU model through a Triton kernel needs the interpreter; a kernel alone runs interpreted or on CUDA.
needs_interpreter = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1",
                                       reason="CPU model: needs the Triton interpreter")
needs_triton = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
                                  reason="a Triton kernel: needs the interpreter or CUDA")


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny matmuls: one thread is many times faster than two on a shared 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny():
    return P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=0, seed=0, device="cpu")


def prompts(n_rows=5, seed=1):
    """Token-id prompts of different lengths (left padding differs per row)."""
    g = torch.Generator().manual_seed(seed)
    lengths = [3, 41, 12, 27, 1, 18, 7][:n_rows]
    return [torch.randint(5, 390, (n,), generator=g).tolist() for n in lengths]


def run(pol, engine, temperature=0.0, top_p=1.0, seed=0, batch_size=3, max_new_tokens=24, **kw):
    return P.sample_token_ids(pol, prompts(), max_new_tokens, temperature, top_p, seed, batch_size, engine, **kw)


def test_greedy_equals_plain_generate(tiny):
    hf = run(tiny, "hf")
    fast = run(tiny, "static")
    assert fast == hf
    assert all(len(c) == 24 for c in fast[0]) and set(fast[1]) == {"length"}  # this model never says eos
    assert len({tuple(c) for c in fast[0]}) > 1


def test_greedy_stops_at_eos_like_plain_generate(tiny):
    """Make a token the greedy rows emit early an extra eos (through generation_config), so rows stop at
    different steps; the fast engine must stop each row exactly where generate does."""
    completions, _ = run(tiny, "hf")
    eos = completions[0][5]
    config = tiny.model.generation_config
    saved = config.eos_token_id
    config.eos_token_id = [eos, tiny.tokenizer.eos_token_id]
    try:
        hf = run(tiny, "hf")
        fast = run(tiny, "static")
    finally:
        config.eos_token_id = saved
    assert fast == hf
    assert fast[1][0] == "eos" and len(fast[0][0]) <= 6 and fast[0][0][-1] == eos
    for c, reason in zip(*fast):
        assert (reason == "eos") == (eos in c) and (reason == "length") == (len(c) == 24)
        assert eos not in c[:-1]  # nothing after the first stop token


def test_sampling_matches_generate_and_is_seeded(tiny):
    hf = run(tiny, "hf", temperature=0.8, top_p=0.9, seed=5)
    fast = run(tiny, "static", temperature=0.8, top_p=0.9, seed=5)
    assert fast == hf  # same warpers, same multinomial calls, same RNG stream
    assert run(tiny, "static", temperature=0.8, top_p=0.9, seed=5) == fast
    assert run(tiny, "static", temperature=0.8, top_p=0.9, seed=6)[0] != fast[0]
    state = torch.get_rng_state()
    run(tiny, "static", temperature=1.0, seed=7)
    assert torch.equal(torch.get_rng_state(), state)  # the global RNG is untouched


def test_max_new_tokens_and_suppress_eos(tiny):
    for n in (1, 2, 9):
        completions, reasons = run(tiny, "static", max_new_tokens=n)
        assert all(len(c) == n for c in completions) and set(reasons) == {"length"}
    completions, _ = run(tiny, "hf")
    config = tiny.model.generation_config
    saved = config.eos_token_id
    config.eos_token_id = [completions[0][5], tiny.tokenizer.eos_token_id]
    try:
        hf = run(tiny, "hf", temperature=1.0, seed=3, suppress_eos=True)
        fast = run(tiny, "static", temperature=1.0, seed=3, suppress_eos=True)
    finally:
        config.eos_token_id = saved
    assert fast == hf
    assert all(len(c) == 24 for c in fast[0]) and set(fast[1]) == {"length"}
    assert not any(completions[0][5] in c for c in fast[0])


def test_lora_is_merged_for_sampling_and_unmerged_after():
    pol = P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=4, lora_alpha=8, seed=0,
                        device="cpu")
    with torch.no_grad():
        for name, p in pol.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)
    base = {n: p.clone() for n, p in pol.model.named_parameters() if "base_layer" in n}
    hf = run(pol, "hf")
    fast = run(pol, "static")
    assert fast == hf
    assert run(pol, "static_fused") == hf  # the fused weights are taken after the merge
    with pol.model.disable_adapter():  # the adapter changes the greedy tokens, so it was in the forward
        assert run(pol, "static")[0] != fast[0]
    for n, p in pol.model.named_parameters():
        if n in base:
            torch.testing.assert_close(p, base[n])  # unmerged again (up to rounding)


def test_generate_samples_and_logprobs_agree(tiny):
    texts = [P.render_prompt(tiny.tokenizer, "x = 1\n" * k) for k in (1, 4)]
    hf = P.generate(tiny, texts, 12, 0.0, 1.0, seed=0, batch_size=2, engine="hf")
    fast = P.generate(tiny, texts, 12, 0.0, 1.0, seed=0, batch_size=2, engine="static")
    for a, b in zip(hf, fast):
        assert a.completion_ids == b.completion_ids and a.text == b.text and a.finish_reason == b.finish_reason
        assert a.logprobs == b.logprobs


def test_engine_names(tiny):
    assert P.resolve_engine("auto", tiny) == "hf"  # CPU
    assert P.resolve_engine("static", tiny) == "static"
    assert "auto" in P.ENGINES and run(tiny, "auto") == run(tiny, "hf")
    with pytest.raises(ValueError, match="unknown generation engine"):
        P.resolve_engine("vllm", tiny)
    with pytest.raises(ValueError, match="needs CUDA"):
        run(tiny, "cudagraph")


def test_fused_projections_equal_unfused_and_generate(tiny):
    hf = run(tiny, "hf")
    assert run(tiny, "static_fused") == run(tiny, "static") == hf
    assert run(tiny, "static_fused", temperature=0.8, top_p=0.9, seed=5) == run(tiny, "hf", temperature=0.8, top_p=0.9,
                                                                               seed=5)
    [w0] = P._fused_weights(tiny.model)[:1]
    attn = tiny.model.get_decoder().layers[0].self_attn
    assert w0.qkv_sizes == (32, 16, 16) and w0.qkv_bias is not None and w0.gate_up_bias is None  # Qwen2: q/k/v biases
    torch.testing.assert_close(w0.qkv_weight[32:48], attn.k_proj.weight, rtol=0, atol=0)


@pytest.mark.parametrize("arch", ["llama", "qwen3"])
def test_fused_projections_other_architectures(arch):
    """Llama with MLP biases and no q/k/v bias, Qwen3 with q_norm/k_norm: fused == unfused == generate."""
    import types

    from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM
    kw = dict(vocab_size=400, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              intermediate_size=64, max_position_embeddings=256, bos_token_id=None, eos_token_id=2, pad_token_id=0)
    torch.manual_seed(0)
    if arch == "llama":
        model = LlamaForCausalLM(LlamaConfig(mlp_bias=True, **kw))
        with torch.no_grad():  # nonzero biases, so leaving one out would show
            for layer in model.model.layers:
                layer.mlp.gate_proj.bias.normal_(0, 0.5)
                layer.mlp.up_proj.bias.normal_(0, 0.5)
    else:
        model = Qwen3ForCausalLM(Qwen3Config(head_dim=8, **kw))
    pol = P.Policy(model=model.eval(), tokenizer=types.SimpleNamespace(pad_token_id=0, eos_token_id=2),
                   device=torch.device("cpu"), dtype=torch.float32, lora=False, quantized=False, base=arch)
    hf = run(pol, "hf", max_new_tokens=12)
    assert run(pol, "static_fused", max_new_tokens=12) == run(pol, "static", max_new_tokens=12) == hf
    assert len({tuple(c) for c in hf[0]}) > 1


@pytest.mark.slow  # Inductor compiles C++ kernels: about 20 s with a cold cache, 5 s warm
@pytest.mark.parametrize("fused", [False, True])
def test_compile_engine_step_equals_static_and_writes_the_cache_in_place(tiny, fused):
    """The "compile" engine's decode steps on CPU, as `_StaticDecoder.step(..., replay=False)` runs them
    (`_generate_static` wants CUDA for a compile mode), against the eager engine's: the same logits and the
    same whole caches, up to fp32 rounding (Inductor's kernels sum in another order). Its compiled first
    half writes K/V into the cache itself, and must do so at the step's slot: a functionalized write (a new
    cache, copied back whole; 7B: 1,536 slots every step) would allocate a buffer of the cache's shape in
    Inductor's generated code. One graph per half serves both layers, whatever the attention's length.
    The prefill's compiled halves (symbolic sizes) against eager, for two batch shapes."""
    from torch._inductor.utils import run_and_get_code

    ids, mask = P._left_pad(prompts(3), tiny.tokenizer.pad_token_id)
    B, W = ids.shape
    steps = 5
    tokens = torch.randint(5, 390, (steps, B), generator=torch.Generator().manual_seed(2))
    # kv_bucket 2: the attention's length changes between steps; the compiled halves must not recompile.
    # Made without grad, as sampling_mode makes them (fused weights that require grad are other graphs).
    with torch.no_grad():
        eager, compiled = (P._StaticDecoder(tiny.model, B, W + steps + 3, ids.device, torch.float32, mode, 2, fused)
                           for mode in ("static", "compile"))

    def decode(decoder):
        return [decoder.step(tokens[t], mask.sum(-1) + t, W + t, replay=False) for t in range(steps)]

    with torch.no_grad():
        # the prefill runs the halves compiled with symbolic sizes: another batch size and width, no new graph
        torch.testing.assert_close(compiled.prefill(ids, mask, B), eager.prefill(ids, mask, B), rtol=1e-6, atol=1e-6)
        graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
        other = P._StaticDecoder(tiny.model, 2, W + 3, ids.device, torch.float32, "compile", 2, fused)
        other_eager = P._StaticDecoder(tiny.model, 2, W + 3, ids.device, torch.float32, "static", 2, fused)
        torch.testing.assert_close(other.prefill(ids[:2, 5:], mask[:2, 5:], 2),
                                   other_eager.prefill(ids[:2, 5:], mask[:2, 5:], 2), rtol=1e-6, atol=1e-6)
        assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == graphs
        want = decode(eager)
        graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
        got, codes = run_and_get_code(decode, compiled)  # resets Dynamo first, so both halves compile here
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] - graphs == 2  # not 2 per layer
    allocations = re.findall(r"empty_strided\w*\((\([\d, ]*\))", "\n".join(codes))
    assert allocations and str(tuple(compiled.k[0].shape)) not in allocations
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
    for k_or_v, k_or_v_want in zip(compiled.k + compiled.v, eager.k + eager.v):
        torch.testing.assert_close(k_or_v, k_or_v_want, rtol=1e-6, atol=1e-6)
        assert k_or_v[:, :, W + steps - 1].abs().min() > 0 and not k_or_v[:, :, W + steps:].any()


def attention_case(B, H, kv_heads, D, kv_len, pads, slot, dtype, seed=0):
    """q, k, v and the additive decode mask as `_static_forward` builds it: left padding `pads` per row,
    the current slot `slot` (< kv_len: the slots after it are the rest of the kv_len bucket)."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, 1, D, generator=g).to(dtype)
    cache_len = kv_len + 16  # the engine passes views of a longer cache
    k, v = (torch.randn(B, kv_heads, cache_len, D, generator=g).to(dtype)[:, :, :kv_len] for _ in range(2))
    valid = torch.ones(B, kv_len, dtype=torch.bool)
    for b, pad in enumerate(pads):
        valid[b, :pad] = False
    slots = torch.tensor([slot])
    kv = torch.arange(kv_len)
    seen = valid[:, None, None, :] & (kv <= slots[:, None])[None, None] | (kv == slots[:, None])[None, None]
    mask = torch.zeros(seen.shape, dtype=dtype).masked_fill_(~seen, float("-inf"))
    return q, k, v, mask


@pytest.mark.parametrize("B,H,kv_heads,D,kv_len,pads,slot,split_tokens,dtype", [
    (2, 4, 4, 16, 150, [0, 130], 140, 64, torch.float32),    # groups 1; row 1's first two splits all padding
    (3, 8, 2, 8, 200, [5, 0, 64], 199, 64, torch.float32),   # groups 4, head dim 8 (padded to 16), 4 splits
    (2, 6, 2, 32, 70, [3, 0], 60, 256, torch.bfloat16),      # groups 3 (not a power of 2), one split
    (1, 7, 1, 128, 300, [10], 290, 100, torch.bfloat16),     # 7B's groups and head dim; splits of 128, last of 44
])
def test_split_kv_attention_equals_attend(B, H, kv_heads, D, kv_len, pads, slot, split_tokens, dtype):
    """The split-KV Triton kernels (through the interpreter on CPU, compiled on CUDA) against `_attend` in fp32."""
    device = "cuda" if torch.cuda.is_available() else "cpu"  # on CPU conftest.py sets TRITON_INTERPRET=1
    q, k, v, mask = (t.to(device) for t in attention_case(B, H, kv_heads, D, kv_len, pads, slot, dtype))
    got = P._attend_split_kv(q, k, v, mask, D ** -0.5, split_tokens=split_tokens)
    ref = P._attend(q.float(), k.float(), v.float(), mask.float(), D ** -0.5)
    assert got.shape == ref.shape == (B, 1, H * D) and got.dtype == dtype
    tol = 1e-5 if dtype == torch.float32 else 1e-2  # bf16: the output is rounded to bf16
    torch.testing.assert_close(got.float(), ref, rtol=tol, atol=tol)
    # the decode slot read on the device: slots after it are skipped, not just masked (one graph serves every
    # length); given the slot the mask ends at, the same numbers; given an earlier one, the mask is not needed
    at = lambda s: torch.tensor([s], device=device)  # noqa: E731
    assert torch.equal(P._attend_split_kv(q, k, v, mask, D ** -0.5, last_slot=at(slot), split_tokens=split_tokens), got)
    short = max(pads) + (slot - max(pads)) // 2
    cut = mask.clone()
    cut[..., short + 1:] = float("-inf")
    got_short = P._attend_split_kv(q, k, v, mask, D ** -0.5, last_slot=at(short), split_tokens=split_tokens)
    ref_short = P._attend(q.float(), k.float(), v.float(), cut.float(), D ** -0.5)
    torch.testing.assert_close(got_short.float(), ref_short, rtol=tol, atol=tol)
    prefill = P._attend_split_kv(q.expand(B, H, 3, D), k, v, mask.expand(B, 1, 3, kv_len), D ** -0.5)
    assert torch.equal(prefill, P._attend(q.expand(B, H, 3, D), k, v, mask.expand(B, 1, 3, kv_len), D ** -0.5))


@needs_interpreter
def test_split_kv_engine_equals_generate(tiny):
    """The whole decode path with the split-KV kernel (interpreted: slow, so few steps in one batch)."""
    hf = run(tiny, "hf", max_new_tokens=5, batch_size=5)
    assert run(tiny, "static_fused_splitkv", max_new_tokens=5, batch_size=5) == hf


@pytest.mark.slow
@needs_triton
def test_gumbel_sample_draws_from_softmax_over_temperature():
    """Frequencies of 300 one-pass Gumbel-max draws against softmax(logits / T) (chi-square, p < 1e-4 to fail:
    T = 1 instead of 0.5 would give chi2 ~ 40 on average); -inf entries never drawn; a seeded generator
    repeats. Small blocks, so a row spans three of a program's four blocks (the engine uses 4 x 1,024); with
    blocks of 8 a row spans two programs, whose winners are combined: a dominant entry always wins."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    V, T, n = 40, 0.5, 300
    logits = torch.full((V,), -40.0)
    hot = torch.tensor([0, 7, 8, 31, 33, 39])          # three of the program's blocks, the first and last entry
    logits[hot] = torch.tensor([1.0, 0.2, 0.9, 0.6, -0.1, 0.5])
    logits[5] = float("-inf")
    rows = logits.expand(n, V).contiguous().to(device)
    tokens = P.gumbel_sample(rows, T, block=16).cpu()
    assert tokens.shape == (n,) and tokens.dtype == torch.long
    counts = torch.bincount(tokens, minlength=V).double()
    expected = torch.softmax(logits.double() / T, -1) * n
    assert counts[hot].sum() == n and counts[5] == 0     # the rest have mass < 1e-15
    chi2 = ((counts[hot] - expected[hot]) ** 2 / expected[hot]).sum().item()
    assert chi2 < 27.9, (counts[hot].tolist(), expected[hot].tolist())  # 6 - 1 dof: P(chi2 > 27.9) < 1e-4
    gen = lambda: torch.Generator(device=device).manual_seed(3)  # noqa: E731
    assert torch.equal(P.gumbel_sample(rows[:8], T, gen(), block=8), P.gumbel_sample(rows[:8], T, gen(), block=8))
    dominant = torch.zeros(3, V)
    dominant[[0, 1, 2], [0, 33, 39]] = 60.0           # the first program, the second, the last entry
    assert P.gumbel_sample(dominant.to(device), 1.0, block=8).tolist() == [0, 33, 39]
    with pytest.raises(ValueError, match="temperature"):
        P.gumbel_sample(rows, 0.0)


@needs_interpreter
def test_engine_with_gumbel_sampling_is_seeded_and_suppresses_eos(tiny, monkeypatch):
    """The CUDA default (Gumbel-max sampling without top-p) through the static engine on CPU: seeded, different
    from generate's random stream, and eos suppressed; with top-p it keeps generate's rule (same tokens as hf)."""
    monkeypatch.setattr(P, "GUMBEL_BLOCK", 128)  # 400-token vocabulary: one program a row
    engine = functools.partial(P._generate_static, gumbel=True)
    monkeypatch.setitem(P.ENGINES, "static_gumbel", engine)
    a = run(tiny, "static_gumbel", temperature=1.0, seed=3, max_new_tokens=8)
    assert a == run(tiny, "static_gumbel", temperature=1.0, seed=3, max_new_tokens=8)
    assert a[0] != run(tiny, "static_gumbel", temperature=1.0, seed=4, max_new_tokens=8)[0]
    eos = P.eos_ids(tiny)
    forced = run(tiny, "static_gumbel", temperature=5.0, seed=3, max_new_tokens=8, suppress_eos=True)
    assert set(forced[1]) == {"length"} and not any(t in eos for c in forced[0] for t in c)
    with_top_p = run(tiny, "static_gumbel", temperature=0.8, top_p=0.9, seed=5, max_new_tokens=8)
    assert with_top_p == run(tiny, "hf", temperature=0.8, top_p=0.9, seed=5, max_new_tokens=8)


@needs_interpreter
def test_skinny_projections_engine_equals_generate(tiny, monkeypatch):
    """Decode steps with the o and down projections as split-K Triton matmuls (interpreted) and the q|k|v
    bias added apart, slices of 16 so that the tiny model's projections are summed from two and four
    partials: greedy tokens as generate's."""
    monkeypatch.setitem(P.SKINNY_CONFIGS, "o", dict(block_n=16, block_k=16, split=2))
    monkeypatch.setitem(P.SKINNY_CONFIGS, "down", dict(block_n=16, block_k=16, split=4))
    monkeypatch.setitem(P.ENGINES, "static_fused_skinny", functools.partial(P._generate_static, fused=True, skinny=True))
    calls = []
    real = P.skinny_partials
    monkeypatch.setattr(P, "skinny_partials", lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    hf = run(tiny, "hf", max_new_tokens=4, batch_size=5)
    assert run(tiny, "static_fused_skinny", max_new_tokens=4, batch_size=5) == hf
    assert sorted({c.shape[0] for c in calls}) == [2, 4]  # o from 2 slices, down from 4; decode steps only
    assert {c.shape[2] for c in calls} == {32}  # o and down: hidden wide
    assert {c.shape[1] for c in calls} == {5}
    with pytest.raises(ValueError, match="fused"):
        P._StaticDecoder(tiny.model, 1, 8, tiny.device, torch.float32, "static", 2, fused=False, skinny=True)


@needs_triton
@pytest.mark.parametrize("M, N, K, config", [
    (8, 48, 96, dict(block_n=16, block_k=32, split=2)),                 # even: two whole slices
    (5, 40, 100, dict(block_n=16, block_k=32, split=3)),                # ragged rows, columns and K: 2 slices remain
    (16, 64, 128, dict(block_n=32, block_k=32, split=1)),               # one slice: x's dtype, no sum
    (5, 40, 100, dict(block_n=16, block_k=32, split=3, tma=True)),      # descriptor loads, ragged
    (64, 256, 1024, dict(block_n=64, block_k=128, split=4, dtype=torch.bfloat16)),  # the engine's: 64 rows, bf16
])
def test_skinny_linear_equals_linear(M, N, K, config):
    """Against F.linear: fp32 exactly up to summation order (no tf32 on the GPU), bf16 within its rounding."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    config = dict(config)
    dtype = config.pop("dtype", torch.float32)
    if dtype != torch.float32 and device == "cpu":   # the interpreter multiplies bf16 dots' bit patterns: widen them
        import reward                                   # as the CPU judge does (the tensor cores' exact products)
        reward._fix_interpreter_bf16_dot()
    g = torch.Generator().manual_seed(0)
    x, w = (torch.randn(n, K, generator=g).to(device, dtype) for n in (M, N))
    parts = P.skinny_partials(x, w, **config)
    assert parts.dtype == (x.dtype if parts.shape[0] == 1 else torch.float32) and parts.shape[1:] == (M, N)
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    torch.testing.assert_close(P.skinny_linear(x[None], w, **config).float(),
                               torch.nn.functional.linear(x.float(), w.float())[None], rtol=tol, atol=tol)


def test_rollout_profile_runs_on_cpu(monkeypatch, capsys):
    import bench
    monkeypatch.setattr(sys, "argv", ["bench.py", "rollout-profile", "--device", "cpu", "--engines",
                                      "static,static_fused,cudagraph", "--batch", "2", "--prompt-len", "8",
                                      "--new-tokens", "8", "--decode-steps", "2", "--profile-steps", "1"])
    bench.main()
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    static, fused, graph = out["engines"]
    assert out["bench"] == "rollout-profile" and static["engine"] == "static" and fused["fused"]
    for row in (static, fused):
        assert row["engine_ms_per_step"] > 0 and row["kernel_ms_per_step"] > 0 and row["kv_lens"] == [16]
        assert row["categories"]["gemm"]["ms"] > 0 and row["categories"]["sampling (outside the graph)"]["ms"] > 0
        assert row["top_kernels"] and row["top_kernels"][0]["ms"] >= row["top_kernels"][-1]["ms"]
    # per layer 7 projections unfused, 4 fused (q|k|v, o, gate|up, down); each one or two aten ops
    assert fused["categories"]["gemm"]["calls"] < static["categories"]["gemm"]["calls"]
    assert "needs CUDA" in graph["error"]


def test_profile_categories_of_cache_writes():
    """An eager engine's cache write is its own category; a compile engine's is a store inside a kernel
    that Inductor names after every op it fused (the rotary embedding's too), so that kernel is compiled."""
    import bench
    assert bench.profile_category("aten::index_copy_") == "cache index_copy"
    fused = "triton_poi_fused_add_cat_index_copy_mul_neg_1"
    assert bench.profile_category(fused) == "elementwise/norm/rotary: compiled"


def test_rollout_bench_reports_the_per_call_merge_and_fuse_costs(monkeypatch, capsys):
    import bench
    monkeypatch.setattr(sys, "argv", ["bench.py", "rollout", "--device", "cpu", "--engines", "hf,static_fused",
                                      "--lora-engines", "static_fused", "--lora-r", "4", "--batch", "2",
                                      "--prompt-len", "8", "--new-tokens", "4", "--greedy-prompts", "0"])
    bench.main()
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    hf, fused, lora = out["results"]
    assert [r["lora"] for r in (hf, fused, lora)] == ["-", "-", "r4 merged"]
    assert "merge_unmerge_s" not in hf and "fuse_weights_s" not in hf and "merge_unmerge_s" not in fused
    assert fused["fuse_weights_s"] >= 0 and lora["merge_unmerge_s"] > 0 and lora["fuse_weights_s"] >= 0
    assert all(r["tokens"] == 2 * 4 for r in (hf, fused, lora))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cudagraph_equals_eager_static_on_gpu():
    pol = P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=0, seed=0, device="cuda",
                        dtype="fp32")
    assert P.resolve_engine("auto", pol) == P.AUTO_CUDA_ENGINE
    eager = run(pol, "static", max_new_tokens=40)
    assert run(pol, "cudagraph", max_new_tokens=40) == eager
    assert run(pol, "hf", max_new_tokens=40) == eager
    for engine in ("cudagraph_fused", "cudagraph_fused_splitkv"):
        assert run(pol, engine, max_new_tokens=40) == eager, engine


def test_decode_gemms_bench_shapes_and_run(monkeypatch, capsys):
    """bench.py decode-gemms: the 7B decode matmuls as the _fused engines run them (q|k|v of 28 + 2 x 4 heads of
    128, gate|up of 2 x 18,944), and a CPU run of the tiny config whose two layouts agree."""
    import bench
    assert bench.decode_gemm_shapes("qwen2.5-7b") == [("qkv", 4608, 3584), ("o", 3584, 3584), ("gate_up", 37888, 3584),
                                                      ("down", 3584, 18944), ("lm_head", 152064, 3584)]
    monkeypatch.setattr(sys, "argv", ["bench.py", "decode-gemms", "--device", "cpu", "--batch", "4"])
    bench.main()
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [(r["gemm"], r["N"], r["K"]) for r in out["rows"]] == bench.decode_gemm_shapes("tiny") and out["m"] == 4
    assert all(r["linear_us"] > 0 and r["mm_t_us"] > 0 and r["max_abs_diff"] < 1e-4 for r in out["rows"])
