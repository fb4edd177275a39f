"""The fast generation engine (issue 9) against plain transformers generate, on a very small stand-in of
the tiny default model on CPU (fp32), plus a CUDA-graph check that skips itself without a GPU.

On CPU engine "static" runs the same code as "cudagraph" / "compile" without the graph capture, so
equality here tests the cache, masks, positions, GQA folding, sampling and stopping of all three."""
import json
import os

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


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cudagraph_equals_eager_static_on_gpu():
    pol = P.load_policy(None, corpus_texts=corpus(), tiny_sizes=SIZES, lora_r=0, seed=0, device="cuda",
                        dtype="fp32")
    assert P.resolve_engine("auto", pol) == P.AUTO_CUDA_ENGINE
    eager = run(pol, "static", max_new_tokens=40)
    assert run(pol, "cudagraph", max_new_tokens=40) == eager
    assert run(pol, "hf", max_new_tokens=40) == eager
