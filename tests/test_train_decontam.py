"""The pipeline's decontamination stage (issue 21): a training set that holds a KernelBench file fails the run."""
import json
import os
import shutil

import pytest

import synth
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
    train.check_decontaminated([path], [os.path.join(SMALL, "level1"), os.path.join(SMALL, "level2")])
    assert "none shares a normalised source" in capsys.readouterr().out


def test_a_kernelbench_file_in_the_training_set_fails_the_run(tmp_path):
    level2 = sorted(f for f in os.listdir(os.path.join(SMALL, "level2")) if f.endswith(".py"))[0]
    with open(os.path.join(SMALL, "level2", level2)) as f:
        leaked = {"id": "leak", "level": 2, "source": f.read()}
    path = str(tmp_path / "tasks.jsonl")
    write_tasks(path, synthetic() + [leaked])
    with pytest.raises(train.UsageError, match=r"1 training tasks copy KernelBench files.*leak ~ " + level2):
        train.check_decontaminated([path], [os.path.join(SMALL, "level2")])


def test_kernelbench_dirs_flag(tmp_path):
    class A:
        kernelbench = str(tmp_path)
    shutil.copytree(os.path.join(SMALL, "level1"), tmp_path / "level1")
    assert train.kernelbench_dirs(A) == [str(tmp_path / "level1")]
    A.kernelbench = "none"
    assert train.kernelbench_dirs(A) == []
    A.kernelbench = str(tmp_path / "nothing")
    with pytest.raises(train.UsageError, match="no level1/ or level2/"):
        train.kernelbench_dirs(A)
