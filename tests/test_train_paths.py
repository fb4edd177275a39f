"""Every CLI works from any working directory: `cd /tmp/x && python /work/main/train.py` failed because
the pipeline handed teacher.py (which runs with cwd = the repository) a path relative to the caller's directory.
Paths that cross a process or a run.json are absolute."""
import os
import subprocess
import sys

import pipeline
import train


def test_teacher_gets_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = []

    def fake_run(cmd, stdout=None, stderr=None, cwd=None):
        calls.append((cmd, cwd))
        open(cmd[cmd.index("--out") + 1], "w").close()  # as teacher.py would
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(pipeline.subprocess, "run", fake_run)
    os.makedirs("runs/p/data")
    args = pipeline.parse_args([])
    pipeline.teacher_pairs(args, "runs/p/data/tasks_sft.jsonl", "runs/p/data/pairs.jsonl", "runs/p/teacher.log")
    [(cmd, cwd)] = calls
    assert cwd == train.HERE != str(tmp_path)
    assert cmd[cmd.index("--tasks") + 1] == str(tmp_path / "runs/p/data/tasks_sft.jsonl")
    assert cmd[cmd.index("--out") + 1] == str(tmp_path / "runs/p/data/pairs.jsonl")
    assert os.path.isfile(tmp_path / "runs/p/teacher.log")
    # the teacher's verdict cache: the default beside eval.py's baselines, a relative path made absolute, or none
    assert cmd[cmd.index("--verdict-cache") + 1] == pipeline.default_teacher_cache() == \
        os.path.join(os.environ["XDG_CACHE_HOME"], "drtriton-lite", "teacher_verdicts.jsonl")
    for flag, want in (("cache/v.jsonl", str(tmp_path / "cache/v.jsonl")), ("none", None)):
        os.remove("runs/p/data/pairs.jsonl")
        pipeline.teacher_pairs(pipeline.parse_args(["--pipeline-teacher-cache", flag]), "runs/p/data/tasks_sft.jsonl",
                            "runs/p/data/pairs.jsonl", "runs/p/teacher.log")
        cmd = calls[-1][0]
        assert (cmd[cmd.index("--verdict-cache") + 1] if "--verdict-cache" in cmd else None) == want


def test_run_dirs_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert pipeline.pipeline_run_dir(pipeline.parse_args(["--out", "runs/x"])) == str(tmp_path / "runs" / "x")
    default = pipeline.pipeline_run_dir(pipeline.parse_args([]))
    assert os.path.dirname(default) == str(tmp_path / "runs") and os.path.basename(default).startswith("pipeline-")
    args = train.parse_args(["--stage", "sft", "--pairs", "p.jsonl", "--out", "sft"])
    run_dir, ckpt = train.prepare_run_dir(args)
    assert run_dir == args.out == str(tmp_path / "sft") and ckpt is None
    os.makedirs("local_model")
    assert train.parse_args(["--model", "local_model"]).model == str(tmp_path / "local_model")
    assert train.parse_args(["--model", "Qwen/Qwen2.5-Coder-7B-Instruct"]).model == "Qwen/Qwen2.5-Coder-7B-Instruct"


def test_help_from_another_directory(tmp_path):
    """The scripts import their siblings from any working directory."""
    root = os.path.dirname(os.path.abspath(train.__file__))
    for script in ("train.py", "eval.py", "search.py"):
        proc = subprocess.run([sys.executable, os.path.join(root, script), "--help"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "usage" in proc.stdout, (script, proc.stderr[-2000:])
