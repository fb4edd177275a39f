"""train.py and pipeline.py on bad input: one line on stderr, the exit codes README gives (usage 2, failure 1,
interrupted 130), and nothing lost: a damaged checkpoint is skipped for the newest intact one."""
import json
import os
import subprocess
import sys

import pytest

import pipeline
import policy as P
import train

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAIRS = os.path.join(HERE, "data_sft", "pairs.jsonl")
TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "2048"]


def sft_argv(out, *extra):
    return ["--stage", "sft", "--pairs", PAIRS, "--out", str(out), "--device", "cpu", *TINY_FLAGS, "--micro-batch", "2",
            "--lr", "1e-2", "--warmup-steps", "1", "--eval-every", "0", "--save-every", "1", "--keep-last", "3", *extra]


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def sft_run(tmp_path_factory):
    """A 3-step SFT run with a checkpoint after every step."""
    out = tmp_path_factory.mktemp("sft") / "run"
    assert train.main(sft_argv(out, "--max-steps", "3")) == 0
    return out


def test_a_flag_error_is_one_line_not_the_usage(capsys):
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--lr", "-1"])
    assert e.value.code == 2
    assert "--lr and --epochs must be > 0" in one_line(capsys.readouterr().err)
    with pytest.raises(SystemExit):
        train.parse_args(["--no-such-flag"])
    assert "unrecognized arguments: --no-such-flag" in one_line(capsys.readouterr().err)


def test_help_shows_each_default_once_and_the_presets_values(capsys):
    with pytest.raises(SystemExit):
        train.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: runs/<stage>-<time>)" in text and "(default: None)" not in text
    assert "a program at 16, the tiny preset's) (default: 16)" in text  # the tiny preset's value, not the parser's 0
    with pytest.raises(SystemExit):
        train.parse_args(["--preset", "gpu-small", "--help"])
    assert "tiny model: hidden size (default: 512)" in " ".join(capsys.readouterr().out.split())


def test_the_pipeline_flags_come_with_pipeline_parse_args(capsys):
    """`python train.py` parses with pipeline.parse_args: its --help lists the --pipeline-* group (with the preset's
    values), and train.parse_args alone, the stages' parser, does not take those flags."""
    with pytest.raises(SystemExit):
        pipeline.parse_args(["--preset", "gpu-small", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "pipeline (--stage all: python train.py with no arguments)" in text
    assert "level-1 programs for SFT pairs and eval (default: 4100)" in text
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--pipeline-tasks", "10"])
    assert e.value.code == 2 and "unrecognized arguments: --pipeline-tasks" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--stage", "sft", "--out", "{tmp}/missing", "--resume", "--device", "cpu"], "run directory not found"),
    (["--out", "{tmp}/missing", "--resume", "--device", "cpu"], "run directory not found"),  # the pipeline too
    (["--stage", "sft", "--pairs", PAIRS, "--out", "/etc/hostname/run", "--device", "cpu"], "is not writable"),
    (["--out", "/etc/hostname/run", "--device", "cpu", "--pipeline-tasks", "4", "--pipeline-eval-tasks", "1"],
     "is not writable"),
])
def test_usage_errors_are_one_line_and_write_nothing(tmp_path, capsys, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert pipeline.main(argv) == 2
    assert message in one_line(capsys.readouterr().err)
    assert not os.path.exists(tmp_path / "missing")


def test_resume_skips_a_damaged_checkpoint_for_the_newest_intact_one(sft_run, tmp_path, capsys):
    import shutil

    for damage in ("trainer_state.pt", "policy/policy.json", "policy/model/model.safetensors"):
        run = tmp_path / damage.replace("/", "_")
        shutil.copytree(sft_run, run)
        newest = P.checkpoint_dirs(str(run))[-1]
        assert P.checkpoint_problem(newest) is None
        with open(os.path.join(newest, damage), "r+b") as f:  # truncated, as a full disk or a kill mid-write leaves it
            f.truncate(max(os.path.getsize(f.name) // 2, 1))
        problem = P.checkpoint_problem(newest)
        assert problem is not None and problem.startswith(os.path.join(newest, damage)), problem
        capsys.readouterr()
        assert train.main(["--stage", "sft", "--out", str(run), "--resume", "--device", "cpu"]) == 0
        out = capsys.readouterr().out
        assert f"skipping a damaged checkpoint ({os.path.join(newest, damage)}" in out
        assert "resuming" in out and "step_000002" in out and "step 0003/0003" in out  # step 3 trained again
        assert P.checkpoint_problem(P.checkpoint_dirs(str(run))[-1]) is None  # and saved whole
        # the damaged one is kept aside, out of the step_* names, so pruning and --init never take it for the newest
        assert os.path.isdir(os.path.join(os.path.dirname(newest), ".damaged-step_000003"))


def test_every_checkpoint_damaged_is_a_one_line_failure(sft_run, tmp_path, capsys):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(sft_run, run)
    for ckpt in P.checkpoint_dirs(str(run)):
        with open(os.path.join(ckpt, "args.json"), "w") as f:
            f.write("{not json")
    assert train.main(["--stage", "sft", "--out", str(run), "--resume", "--device", "cpu"]) == 1
    line = one_line(capsys.readouterr().err)
    assert "no intact checkpoint" in line and "step_000003/args.json" in line
    assert len(P.checkpoint_dirs(str(run))) == 3  # nothing deleted


def default_sigint():
    """A subprocess's preexec_fn: SIGINT as a terminal delivers it. A shell's background job (a CI runner's
    `cmd &`) starts with SIGINT ignored; a child inherits that, and Python then never raises KeyboardInterrupt."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_is_one_line_naming_the_resume_command(tmp_path):
    """A real SIGINT to a running SFT: exit 130, one line on stderr with the command that continues the run."""
    import signal
    import time

    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "train.py"), *sft_argv(out, "--max-steps", "200")],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    deadline = time.time() + 120
    while time.time() < deadline and not P.checkpoint_dirs(str(out)):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    line = one_line(err)
    assert f"python train.py --stage sft --out {out} --resume" in line
    assert json.loads((out / "run.json").read_text())["args"]["stage"] == "sft"


def test_an_offline_hub_id_fails_fast_and_makes_no_run_dir(tmp_path):
    """A hub id on a machine with no network: one line naming how to pass a local directory, exit 1, within
    seconds (not a minute of download retries), and no half-made run directory."""
    import time

    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))
    out = tmp_path / "run"
    t0 = time.time()
    r = subprocess.run([sys.executable, os.path.join(ROOT, "train.py"), "--stage", "sft", "--pairs", PAIRS,
                        "--model", "no-such-org/no-such-model", "--out", str(out), "--device", "cpu"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    line = one_line(r.stderr)
    assert "no-such-org/no-such-model" in line and "--model DIR" in line
    assert time.time() - t0 < 60  # the interpreter and torch import dominate; the check itself is instant offline
    assert not out.exists()


def test_a_file_error_mid_run_is_one_line_with_the_resume_command(tmp_path, capsys, monkeypatch):
    """An OSError once the run has started (a full disk while saving, say) ends in one line naming the file and
    how to continue, exit 1: the checkpoints already written stay."""
    out = tmp_path / "run"

    def full_disk(*a, **k):
        raise OSError(28, "No space left on device", str(out / "checkpoints" / "step_000001"))

    monkeypatch.setattr(train, "save_checkpoint", full_disk)
    assert train.main(sft_argv(out, "--max-steps", "1")) == 1
    line = one_line(capsys.readouterr().err)
    assert "No space left on device" in line and "step_000001" in line and "--resume" in line
