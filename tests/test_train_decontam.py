"""The pipeline's decontamination stage: a training set that holds a KernelBench file fails the run."""
import json
import os
import shutil

import pytest

import synth
import pipeline
import train

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "kernelbench_small")  # KernelBench files, sizes shrunk, code as written


def write_tasks(path, records):
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)


def synthetic(n=12):
    records, _ = synth.generate(n, [1, 2], 0, synth.make_budget("cpu"), workers=1, progress=False)
    return records


def test_clean_training_set_passes(tmp_path, capsys):
    path = str(tmp_path / "tasks.jsonl")
    write_tasks(path, synthetic())
    pipeline.check_decontaminated([path], [os.path.join(SMALL, "level1"), os.path.join(SMALL, "level2")])
    assert "none shares a normalised source" in capsys.readouterr().out


def test_a_kernelbench_file_in_the_training_set_fails_the_run(tmp_path):
    level2 = sorted(f for f in os.listdir(os.path.join(SMALL, "level2")) if f.endswith(".py"))[0]
    with open(os.path.join(SMALL, "level2", level2)) as f:
        leaked = {"id": "leak", "level": 2, "source": f.read()}
    path = str(tmp_path / "tasks.jsonl")
    write_tasks(path, synthetic() + [leaked])
    with pytest.raises(train.UsageError, match=r"1 training tasks copy KernelBench files.*leak ~ " + level2):
        pipeline.check_decontaminated([path], [os.path.join(SMALL, "level2")])


def test_kernelbench_dirs_flag(tmp_path):
    class A:
        kernelbench = str(tmp_path)
    shutil.copytree(os.path.join(SMALL, "level1"), tmp_path / "level1")
    assert pipeline.kernelbench_dirs(A) == [str(tmp_path / "level1")]
    A.kernelbench = "none"
    assert pipeline.kernelbench_dirs(A) == []
    A.kernelbench = str(tmp_path / "nothing")
    with pytest.raises(train.UsageError, match="no level1/ or level2/"):
        pipeline.kernelbench_dirs(A)


def test_pipeline_drops_drawn_programs_that_match_kernelbench(tmp_path, monkeypatch, capsys):
    """A drawn program that matches a KernelBench file is left out of every file the synth stage writes, so the
    check after it passes instead of failing a run over one unlucky draw."""
    real = synth.decontaminate
    victim = {}

    def fake(records, dirs):
        victim.setdefault("id", records[1]["id"])
        return [(r["id"], os.path.join(dirs[0], "32_HardTanh.py"), "structure") for r in records
                if r["id"] == victim["id"]] + real(records, dirs)

    monkeypatch.setattr(synth, "decontaminate", fake)
    args = pipeline.parse_args(["--out", str(tmp_path), "--device", "cpu", "--pipeline-ops", "unary",
                                "--pipeline-tasks", "8", "--pipeline-eval-tasks", "2", "--levels", "1",
                                "--pipeline-rl-tasks", "0", "--judge-workers", "1"])   # RL's level 1: the SFT tasks
    paths = pipeline.synth_pipeline_tasks(args, str(tmp_path), [os.path.join(SMALL, "level1")])
    ids = [r["id"] for p in paths for r in synth.read_tasks(p)]
    assert victim["id"] not in ids and len(set(ids)) == 7
    assert f"dropped 1 drawn programs that match KernelBench files: {victim['id']} ~ 32_HardTanh.py" in \
        capsys.readouterr().out


def test_a_clean_verdict_is_kept_for_the_same_bytes(tmp_path, monkeypatch, capsys):
    """A clean check writes its record with the digest of its inputs; the same files again reuse it without
    checking, and a changed task file (or KernelBench file) is checked afresh, where a copy still fails the run."""
    path, record = str(tmp_path / "tasks.jsonl"), str(tmp_path / "decontaminated.json")
    kb = [os.path.join(SMALL, "level1"), os.path.join(SMALL, "level2")]
    records = synthetic()
    write_tasks(path, records)
    pipeline.check_decontaminated([path], kb, record=record)
    assert json.load(open(record))["tasks"] == len(records)
    calls = []
    real = synth.decontaminate
    monkeypatch.setattr(synth, "decontaminate", lambda recs, dirs: calls.append(len(recs)) or real(recs, dirs))
    pipeline.check_decontaminated([path], kb, record=record)
    assert calls == [] and "clean when checked on" in capsys.readouterr().out
    level2 = sorted(f for f in os.listdir(os.path.join(SMALL, "level2")) if f.endswith(".py"))[0]
    with open(os.path.join(SMALL, "level2", level2)) as f:
        write_tasks(path, records + [{"id": "leak", "level": 2, "source": f.read()}])
    with pytest.raises(train.UsageError, match="1 training tasks copy KernelBench files"):
        pipeline.check_decontaminated([path], kb, record=record)
    assert calls == [len(records) + 1]
