"""Tests for reward.py's memory and speed machinery for real-size tasks: the per-worker memory caps,
the chunked comparison, the masked reference outputs and the baseline cache. Pure functions, no workers.

    python -m pytest tests/test_reward_memory.py -q
"""
import json

import pytest
import torch

import reward
from reward import BaselineCache, Verdict, measured_baselines, memory_caps


def test_memory_caps_hand_computed():
    # The H200 of 8 workers, 128 GB host, 139.8 GB GPU.
    c = memory_caps(128.0, 139.8, 8)
    assert c["rss_gb"] == pytest.approx(0.75 * 128 / 8)            # 12.0
    assert c["gpu_gb"] == pytest.approx(0.9 * 139.8 / 8)           # 15.7275
    assert c["rss_exclusive_gb"] == pytest.approx(96.0) and c["gpu_exclusive_gb"] == pytest.approx(139.8)
    # Many workers on a small host: the floors (8 GB host, 4 GB GPU) win over the shares.
    c = memory_caps(64.0, 24.0, 32)
    assert c["rss_gb"] == pytest.approx(8.0) and c["gpu_gb"] == pytest.approx(4.0)
    # ... but a floor never exceeds the share of the whole machine (a 6 GB laptop, 4 GB GPU).
    c = memory_caps(6.0, 4.0, 4)
    assert c["rss_gb"] == pytest.approx(4.5) and c["gpu_gb"] == pytest.approx(3.6)
    # One worker takes the whole shares; no GPU gives no GPU cap.
    c = memory_caps(23.0, 0.0, 1)
    assert c["rss_gb"] == pytest.approx(17.25) and c["gpu_gb"] == 0.0 and c["gpu_exclusive_gb"] == 0.0
    with pytest.raises(ValueError):
        memory_caps(128.0, 80.0, 0)


def test_judge_caps_in_words():
    """The words an oom verdict carries name the cap, its size, and how it was derived."""
    j = reward.Judge.__new__(reward.Judge)  # no workers: only the fields _caps reads
    j.workers, j.device, j.mem_limit_gb = 8, "cuda", 8.0
    j.host_total_gb, j.gpu_total_gb, j.rss_limit_arg, j.gpu_mem_limit_arg = 128.0, 139.8, None, None
    j.closed = True
    caps = j._caps(False)
    assert caps["gpu_text"] == "GPU cap 15.7 GB per worker (8 workers on 139.8 GB)"
    assert caps["rss_text"] == "host RSS cap 12.0 GB per worker (8 workers on 128.0 GB)"
    x = j._caps(True)
    assert x["gpu_gb"] == pytest.approx(139.8) and "whole GPU" in x["gpu_text"] and x["rss_gb"] == pytest.approx(96)
    j.gpu_mem_limit_arg = 0.5
    assert j._caps(False)["gpu_gb"] == 0.5 and j._caps(False)["gpu_text"] == "GPU cap 0.5 GB per worker (gpu_mem_limit_gb)"


def _close(o, r, atol, rtol):
    return reward._chunked_close(torch, o, reward._RefOut(torch, r), atol, rtol, torch.isclose, torch.equal, "cpu")


@pytest.mark.parametrize("seed", range(6))
def test_chunked_close_equals_allclose(monkeypatch, seed):
    """Same verdict as torch.allclose(equal_nan = the reference has a NaN) and the same max |out - ref| as the
    whole-output fp64 difference, with chunks smaller than the tensor (and a ragged last chunk)."""
    monkeypatch.setattr(reward, "REF_CHUNK_ELEMS", 7)
    g = torch.Generator().manual_seed(seed)
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        r = torch.randn(5, 9, generator=g).to(dtype)
        o = (r.double() + 1e-2 * torch.randn(5, 9, generator=g, dtype=torch.float64)).to(dtype)
        specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0], dtype=dtype)
        if seed % 2:  # NaN/inf at the same places in both: close where allclose says so
            idx = torch.randint(0, 45, (4,), generator=g)
            r.view(-1)[idx] = specials
            o.view(-1)[idx] = specials
        if seed % 3 == 0:  # NaN/inf in one of the two only
            o.view(-1)[torch.randint(0, 45, (2,), generator=g)] = specials[torch.randint(0, 3, (2,), generator=g)]
        for atol, rtol in ((1e-2, 1e-2), (1e-4, 1e-4), (0.0, 0.0)):
            e, ok = _close(o, r, atol, rtol)
            assert ok == torch.allclose(o, r, atol=atol, rtol=rtol, equal_nan=bool(torch.isnan(r).any())), \
                (dtype, atol)
            e_whole = float((o.double() - r.double()).abs().max())
            assert e == (e_whole if e_whole == e_whole else float("inf"))


def test_chunked_close_non_contiguous_integer_and_empty(monkeypatch):
    monkeypatch.setattr(reward, "REF_CHUNK_ELEMS", 5)
    r = torch.randn(6, 4)
    assert _close(r.t().contiguous().t(), r, 1e-6, 1e-6) == (0.0, True)  # column-major output, same values
    o = r.clone()
    o[5, 3] += 1.0
    e, ok = _close(o, r, 1e-2, 1e-2)
    assert not ok and e == pytest.approx(1.0)
    i = torch.arange(13)
    assert _close(i, i, 0, 0) == (0.0, True)
    j = i.clone()
    j[12] = 20
    assert _close(j, i, 0, 0) == (8.0, False)
    assert _close(torch.empty(0, 3), torch.empty(0, 3), 0, 0) == (0.0, True)


def test_reference_chunks_and_containers(monkeypatch):
    """A kept reference is read back chunk by chunk as the exact values; a tuple output keeps its container and
    says which of its tensors has a NaN or is not finite; anything else is refused."""
    monkeypatch.setattr(reward, "REF_CHUNK_ELEMS", 11)
    for dtype in (torch.float32, torch.float16, torch.int64, torch.bool):
        t = (torch.randn(7, 5) * 10).to(dtype)
        ref = reward._RefOut(torch, t, "cpu")
        assert ref.nbytes == t.numel() * t.element_size()
        assert torch.equal(torch.cat([c for _, _, c in ref.chunks(torch)]), t.reshape(-1))
        assert reward._chunked_close(torch, t, ref, 0, 0, torch.isclose, torch.equal, "cpu") == (0.0, True)
    s = reward._Stored(torch, (torch.ones(2), torch.full((3,), float("nan"))), "cpu")
    assert s.container is tuple and s.refs[1].has_nan and not s.refs[1].finite and s.refs[0].finite
    with pytest.raises(TypeError):
        reward._Stored(torch, {"a": torch.ones(1)})


KEY = BaselineCache.key("class Model: ...", "NVIDIA H200", "2.11.0", "3.6.0")


def test_baseline_cache_key_and_round_trip(tmp_path):
    path = tmp_path / "sub" / "baselines.jsonl"
    c = BaselineCache(str(path))
    assert c.get(KEY) is None
    c.put(KEY, eager_ms=1.5)
    c.put(KEY, compile_ms=0.75)  # merged into the same entry
    assert c.get(KEY) == {"eager_ms": 1.5, "compile_ms": 0.75}
    assert BaselineCache(str(path)).get(KEY) == {"eager_ms": 1.5, "compile_ms": 0.75}  # read back from disk
    # every part of the key matters: the task's text, the GPU, torch, triton
    for other in (BaselineCache.key("class Model: pass", "NVIDIA H200", "2.11.0", "3.6.0"),
                  BaselineCache.key("class Model: ...", "NVIDIA H100", "2.11.0", "3.6.0"),
                  BaselineCache.key("class Model: ...", "NVIDIA H200", "2.12.0", "3.6.0"),
                  BaselineCache.key("class Model: ...", "NVIDIA H200", "2.11.0", "3.7.0")):
        assert other != KEY and c.get(other) is None
    line = json.loads(path.read_text())
    assert line["task_sha256"] == KEY[0] and line["gpu"] == "NVIDIA H200" and line["eager_ms"] == 1.5
    with pytest.raises(ValueError):
        c.put(KEY, runtime_ms=1.0)
    assert [p.name for p in path.parent.iterdir()] == ["baselines.jsonl"]  # no temp file left behind


def test_baseline_cache_two_writers_and_corrupt_lines(tmp_path, capsys):
    path = str(tmp_path / "b.jsonl")
    a, b = BaselineCache(path), BaselineCache(path)
    other = BaselineCache.key("x", "g", "t", "tr")
    a.put(KEY, eager_ms=2.0)
    b.put(other, eager_ms=3.0)  # b re-reads before writing: a's entry survives
    assert BaselineCache(path).get(KEY) == {"eager_ms": 2.0} and BaselineCache(path).get(other) == {"eager_ms": 3.0}
    with open(path, "a") as f:
        f.write('{"task_sha256": "half a line\n\x00garbage\n')
    c = BaselineCache(path)  # not a crash: the good lines load, the bad ones are skipped with a warning
    assert c.get(KEY) == {"eager_ms": 2.0}
    assert "skipped 2 unreadable line(s)" in capsys.readouterr().err
    c.put(KEY, compile_failed=True)  # the next write leaves a clean file
    assert all(json.loads(line) for line in open(path).read().splitlines())
    with open(path, "wb") as f:
        f.write(b"\xff\xfe not text")
    assert BaselineCache(path).get(KEY) is None and "unreadable" in capsys.readouterr().err


def test_measured_baselines_only_what_was_timed_here(tmp_path):
    v = Verdict(correct=True, ref_ms=2.0, runtime_ms=1.0, speedup=2.0,
                timings={"ref_ms_from_cache": False, "compile_ref_ms": 1.5, "compile_ref_ms_from_cache": False})
    assert measured_baselines(v) == {"eager_ms": 2.0, "compile_ms": 1.5}
    v.timings.update(ref_ms_from_cache=True, compile_ref_ms_from_cache=True)
    assert measured_baselines(v) == {}
    v = Verdict(correct=True, ref_ms=2.0, flags=["compile_baseline_failed"], timings={"compile_ms": 900.0})
    assert measured_baselines(v) == {"eager_ms": 2.0, "compile_failed": True}
    assert measured_baselines(Verdict(correct=False)) == {}
    v = Verdict(correct=True, ref_ms=2.0, flags=["compile_baseline_failed"],
                timings={"ref_ms_from_cache": True, "compile_ms": 900.0, "max_autotune_ref_ms": 0.8,
                         "max_autotune_ref_ms_from_cache": False})
    assert measured_baselines(v) == {"compile_failed": True, "max_autotune_ms": 0.8}
    c = BaselineCache(str(tmp_path / "b.jsonl"))
    c.put(KEY, max_autotune_ms=0.8, max_autotune_failed=False)
    assert BaselineCache(str(tmp_path / "b.jsonl")).get(KEY) == {"max_autotune_ms": 0.8, "max_autotune_failed": False}


def test_chunked_close_also_tol(monkeypatch):
    """The second tolerance (KernelBench's 1e-4) is judged chunk by chunk like the first."""
    monkeypatch.setattr(reward, "REF_CHUNK_ELEMS", 4)
    r = torch.randn(3, 5)
    o = r.clone()
    o.view(-1)[13] += 1e-3  # inside 1e-2, outside 1e-4
    call = lambda: reward._chunked_close(torch, o, reward._RefOut(torch, r), 1e-2, 1e-2,  # noqa: E731
                                         torch.isclose, torch.equal, "cpu", (1e-4, 1e-4))
    e, ok, ok_kb = call()
    assert ok and not ok_kb and e == pytest.approx(1e-3, rel=1e-3)
    o.copy_(r)
    assert call()[1:] == (True, True)
