"""Bad inputs to the command-line scripts end in one line on stderr and an exit code, never a traceback
(synth.run_main): 2 for a command that cannot run as typed (a flag, or an input a flag names), found before any
work; 1 for a run that started and failed (a model that will not load, a corrupt checkpoint); 130 for Ctrl-C.
Each case also checks that nothing was written or lost.

Most cases call a script's main in this process through synth.run_main, the same path `python X.py` takes; a
few run the script itself, where the path through `__main__`, argparse or a signal is what is tested.

    python -m pytest tests/test_cli_errors.py -q
"""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import bench
import eval as ev
import policy
import search
import synth
import teacher

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB_TASK = os.path.join(ROOT, "tests", "kernelbench", "1_argmax_over_dim.py")
GOOD_RECORD = {"id": "t0", "level": 1, "source": open(KB_TASK).read()}


def call(main, argv, capsys, prog="prog"):
    """(exit code, stderr) of main(argv) run as its script's entry point runs it (synth.run_main); a
    parser.error's SystemExit is the exit code argparse gives."""
    capsys.readouterr()
    try:
        code = synth.run_main(main, argv, prog=prog)
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def assert_one_line(code, err, want_code, *words):
    """Exit code want_code, stderr one line without a traceback, naming each of `words`."""
    assert code == want_code, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], (word, lines[0])


def run_script(args, env=None, timeout=120):
    return subprocess.run([sys.executable] + args, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def teacher_main(calls):
    """teacher.main with stand-ins for the judge and the prompt (reward and policy sit above it): `calls` gets
    each batch handed to the judge."""
    def verify(pairs, policies, **kw):
        calls.append(pairs)
        return []
    return lambda argv: teacher.main(argv, verify_by_policy=verify, task_prompt=lambda s: s)


@pytest.fixture
def files(tmp_path):
    """Bad inputs: a missing file, an empty folder, an empty JSONL, a JSONL with a broken line 2, a folder of a
    task with a syntax error and one without a Model, and a path under a regular file (unwritable even for root)."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty.jsonl").write_text("\n")
    (tmp_path / "broken.jsonl").write_text(json.dumps(GOOD_RECORD) + "\n{not json\n")
    bad = tmp_path / "bad_tasks"
    bad.mkdir()
    (bad / "syntax.py").write_text("import torch\nclass Model(:\n")
    (bad / "nomodel.py").write_text("import torch\ndef get_inputs():\n    return []\n"
                                    "def get_init_inputs():\n    return []\n")
    (tmp_path / "afile").write_text("x")
    return {"missing": str(tmp_path / "missing.jsonl"), "empty_dir": str(tmp_path / "empty"),
            "empty": str(tmp_path / "empty.jsonl"), "broken": str(tmp_path / "broken.jsonl"), "bad": str(bad),
            "unwritable": str(tmp_path / "afile" / "out"), "tmp": tmp_path}


# ---------------------------------------------------------------------------------------------------- synth.py

@pytest.mark.parametrize("argv, words", [
    (["--workers", "0"], ["--workers must be >= 1"]),
    (["--max-flops", "-1"], ["--max-flops must be >= 1"]),
    (["--decontaminate", "MISSING", "--against", os.path.join(ROOT, "tests", "kernelbench")],
     ["--decontaminate", "missing.jsonl"]),
    (["--out", "UNWRITABLE"], ["--out", "afile"]),
    (["--out", "EMPTY_DIR"], ["--out", "is a directory"]),
])
def test_synth_usage_errors(files, capsys, monkeypatch, argv, words):
    """Found before any program is drawn: generate never runs."""
    names = {"MISSING": files["missing"], "UNWRITABLE": files["unwritable"], "EMPTY_DIR": files["empty_dir"]}
    monkeypatch.setattr(synth, "generate", lambda *a, **k: pytest.fail("generate ran before the check"))
    code, err = call(synth.main, [names.get(a, a) for a in argv], capsys, prog="synth.py")
    assert_one_line(code, err, 2, "synth.py: error:", *words)
    assert not os.path.exists(files["unwritable"])


def test_synth_flag_error_is_one_line_without_the_usage_dump():
    res = run_script(["synth.py", "--num-programs", "many"])
    assert_one_line(res.returncode, res.stderr, 2, "--num-programs", "invalid int value", "see --help")
    assert "usage:" not in res.stderr


def default_sigint():
    """A subprocess's preexec_fn: SIGINT as a terminal delivers it. A shell's background job (a CI runner's
    `cmd &`) starts with SIGINT ignored; a child inherits that, and Python then never raises KeyboardInterrupt."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_synth_ctrl_c_is_one_line_and_writes_nothing(tmp_path):
    """Ctrl-C reaches the whole process group, the spawn pool's workers included: one line, exit 130, no
    traceback from any process, and no --out."""
    out = tmp_path / "tasks.jsonl"
    proc = subprocess.Popen([sys.executable, "synth.py", "--num-programs", "20000", "--workers", "2",
                             "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=default_sigint)
    time.sleep(6)  # the pool is up and drawing
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "synth.py: interrupted; nothing was written (--out is written at the end)"
    assert not out.exists() and not os.path.exists(str(out) + ".tmp")


# ---------------------------------------------------------------------------------------------------- teacher.py

@pytest.mark.parametrize("argv, words", [
    (["--tasks", "MISSING"], ["--tasks", "missing.jsonl", "does not exist"]),
    (["--tasks", "EMPTY_DIR"], ["--tasks", "empty: no .py task files"]),
    (["--tasks", "EMPTY"], ["--tasks", "empty.jsonl: no task records"]),
    (["--tasks", "BROKEN"], ["--tasks", "broken.jsonl:2: not valid JSON"]),
    (["--tasks", "BROKEN", "--workers", "0"], ["--workers must be >= 1"]),
    (["--tasks", "BAD", "--timeout-s", "0"], ["--timeout-s must be > 0"]),
    (["--tasks", "BAD", "--out", "UNWRITABLE"], ["--out", "afile is a file"]),
    (["--tasks", "BAD", "--verdict-cache", "UNWRITABLE"], ["--verdict-cache", "afile"]),
])
def test_teacher_usage_errors(files, capsys, argv, words):
    """One line and exit 2, before anything is compiled or judged (an unwritable --out used to surface only
    after all the judging)."""
    names = {"MISSING": files["missing"], "EMPTY_DIR": files["empty_dir"], "EMPTY": files["empty"],
             "BROKEN": files["broken"], "BAD": files["bad"], "UNWRITABLE": files["unwritable"]}
    calls = []
    code, err = call(teacher_main(calls), [names.get(a, a) for a in argv], capsys, prog="teacher.py")
    assert_one_line(code, err, 2, "teacher.py: error:", *words)
    assert calls == [] and not os.path.exists(files["unwritable"])


def test_teacher_import_errors_name_the_file(files, capsys):
    """A task with a syntax error or without a Model is an import_error naming the user's file (not '<source>' or
    a temp file), not a 'teacher bug'."""
    calls = []
    capsys.readouterr()
    assert teacher_main(calls)(["--tasks", files["bad"], "--out", str(files["tmp"] / "pairs.jsonl")]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if "import_error:" in line}
    assert set(lines) == {"syntax", "nomodel"}, out
    assert "syntax.py" in lines["syntax"] and "SyntaxError" in lines["syntax"] and "<source>" not in out
    assert os.path.join(files["bad"], "nomodel.py") + ": task source has no Model" in lines["nomodel"]
    assert "teacher_bug" not in out


def test_task_files_that_cannot_be_tasks_are_failed_rows_naming_the_file(files):
    """eval.py and search.py read task folders through search.read_task_set: a syntax error or a missing Model is
    that task's import_error naming the user's file and line (the judge would name its temp file), found without
    running the file; the other tasks are unaffected."""
    recs = {r["id"]: r for r in search.read_task_set(files["bad"])}
    syntax, nomodel = os.path.join(files["bad"], "syntax.py"), os.path.join(files["bad"], "nomodel.py")
    assert recs["syntax"]["import_error"] == f"{syntax}:2: SyntaxError: invalid syntax"
    assert recs["nomodel"]["import_error"].startswith(f"{nomodel}: no class Model")
    assert "import_error" not in search.read_task_set(KB_TASK)[0]


def test_teacher_ctrl_c_is_one_line_and_writes_nothing(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(GOOD_RECORD) + "\n")
    out = tmp_path / "pairs.jsonl"

    def verify(pairs, policies, **kw):
        raise KeyboardInterrupt
    main = lambda argv: teacher.main(argv, verify_by_policy=verify, task_prompt=lambda s: s)  # noqa: E731
    capsys.readouterr()
    code = synth.run_main(main, ["--tasks", str(tasks), "--out", str(out)], prog="teacher.py",
                          on_interrupt="interrupted; nothing was written")
    assert_one_line(code, capsys.readouterr().err, 130, "teacher.py: interrupted")
    assert not out.exists()


# ---------------------------------------------------------------------------------------------------- eval.py

@pytest.mark.parametrize("argv, words", [
    (["--tasks", "BROKEN", "--policy", "reference", "--out", "OUT"], ["--tasks", "broken.jsonl:2: not valid JSON"]),
    (["--tasks", "EMPTY", "--policy", "reference", "--out", "OUT"], ["--tasks", "no task records"]),
    (["--tasks", "EMPTY_DIR", "--policy", "reference", "--out", "OUT"], ["--tasks", "no .py task files"]),
    (["--tasks", "BAD", "--policy", "reference", "--out", "UNWRITABLE"], ["--out", "afile is a file"]),
    (["--tasks", "BAD", "--policy", "model:./no/such/model", "--out", "OUT"], ["--policy", "no such directory"]),
])
def test_eval_usage_errors(files, capsys, argv, words):
    """Exit 2 and one line, and --out is not created (no half-made run folder)."""
    names = {"BROKEN": files["broken"], "EMPTY": files["empty"], "EMPTY_DIR": files["empty_dir"], "BAD": files["bad"],
             "UNWRITABLE": files["unwritable"], "OUT": str(files["tmp"] / "out")}
    code, err = call(ev.main, [names.get(a, a) for a in argv], capsys, prog="eval.py")
    assert_one_line(code, err, 2, "error:", *words)
    assert not os.path.exists(files["tmp"] / "out") and not os.path.exists(files["unwritable"])


def test_eval_hub_id_offline_fails_fast_with_a_local_path_hint(files, capsys, monkeypatch):
    """A hub id that is not cached, with the hub off (HF_HUB_OFFLINE): exit 1 in seconds, one line saying how to
    pass a local directory, and no --out."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    out = files["tmp"] / "out"
    t0 = time.time()
    code, err = call(ev.main, ["--tasks", KB_TASK, "--policy", "model:drtriton-test/not-cached", "--out", str(out)],
                     capsys, prog="eval.py")
    assert time.time() - t0 < 5
    assert_one_line(code, err, 1, "drtriton-test/not-cached", "HF_HUB_OFFLINE", "--model DIR")
    assert not out.exists()


def test_eval_script_hub_id_offline_and_torn_checkpoint_exit_1_without_out(tmp_path):
    """The same through `python eval.py` (its __main__: synth.run_main inside exit_process): HF_HUB_OFFLINE=1
    with a hub id, and a checkpoint whose policy.json is torn; one line each, exit 1, no --out."""
    res = run_script(["eval.py", "--tasks", KB_TASK, "--policy", "model:drtriton-test/not-cached", "--out",
                      str(tmp_path / "a")], env={"HF_HUB_OFFLINE": "1"})
    assert_one_line(res.returncode, res.stderr, 1, "eval.py: error:", "HF_HUB_OFFLINE is set", "model:DIR")
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "policy.json").write_text("{")
    res = run_script(["eval.py", "--tasks", KB_TASK, "--policy", str(ckpt), "--out", str(tmp_path / "b")])
    assert_one_line(res.returncode, res.stderr, 1, "eval.py: error:", str(ckpt / "policy.json"))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_eval_ctrl_c_names_the_command_that_goes_on(tmp_path, capsys, monkeypatch):
    """Ctrl-C while proposing: exit 130, one line with the same command (which goes on from the finished rows),
    and the folder is left resumable (run.json, no torn row)."""
    out = tmp_path / "out"
    argv = ["--tasks", KB_TASK, "--policy", "teacher", "--out", str(out), "--workers", "1"]
    monkeypatch.setattr(policy.TeacherPolicy, "propose", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    capsys.readouterr()
    code = synth.run_main(ev.main, argv, prog="eval.py", on_interrupt=lambda: ev.interrupted_line(argv))
    assert_one_line(code, capsys.readouterr().err, 130, "eval.py: interrupted",
                    f"python eval.py --tasks {KB_TASK} --policy teacher --out {out}")
    assert (out / "run.json").exists()
    assert not (out / "results.jsonl").exists() or all(json.loads(line) for line in open(out / "results.jsonl"))


# ---------------------------------------------------------------------------------------------------- search.py

@pytest.mark.parametrize("argv, words", [
    (["--task", "MISSING", "--policy", "reference", "--out", "OUT"], ["--task", "missing.jsonl"]),
    (["--task", "EMPTY_DIR", "--policy", "reference", "--out", "OUT"], ["no .py task files"]),
    (["--task", KB_TASK, "--policy", "reference", "--out", "UNWRITABLE"], ["--out", "afile is a file"]),
    (["--task", KB_TASK, "--policy", "reference", "--out", "OUT", "--samples", "0"], ["--samples must be >= 1"]),
    (["--task", KB_TASK, "--policy", "reference", "--out", "OUT", "--timeout-s", "0"], ["--timeout-s must be > 0"]),
])
def test_search_usage_errors(files, capsys, argv, words):
    names = {"MISSING": files["missing"], "EMPTY_DIR": files["empty_dir"], "UNWRITABLE": files["unwritable"],
             "OUT": str(files["tmp"] / "out")}
    code, err = call(search.main, [names.get(a, a) for a in argv], capsys, prog="search.py")
    assert_one_line(code, err, 2, "error:", *words)
    assert not os.path.exists(files["tmp"] / "out") and not os.path.exists(files["unwritable"])


def test_search_corrupt_checkpoint_names_the_file_and_makes_no_out(tmp_path, capsys):
    """--policy a checkpoint whose policy.json is torn: exit 1 naming that file, before --out is made."""
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "policy.json").write_text('{"kind": "fu')
    out = tmp_path / "out"
    code, err = call(search.main, ["--task", KB_TASK, "--policy", str(ckpt), "--out", str(out)], capsys,
                     prog="search.py")
    assert_one_line(code, err, 1, str(ckpt / "policy.json"), "not valid JSON")
    assert not out.exists()


# ---------------------------------------------------------------------------------------------------- policy.py

SIZES = dict(vocab_size=300, hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64,
             max_positions=256)


def test_corrupt_checkpoint_files_are_named(tmp_path):
    """A torn policy.json and a truncated model.safetensors each raise CheckpointError naming that file (what
    train.py's resume falls back on); the intact copy still loads."""
    good = tmp_path / "good"
    pol = policy.load_policy(None, corpus_texts=[GOOD_RECORD["source"]] * 4, tiny_sizes=SIZES, lora_r=0, seed=0,
                             device="cpu")
    policy.save_policy(pol, str(good))
    import shutil

    torn_json, torn_weights = tmp_path / "torn_json", tmp_path / "torn_weights"
    shutil.copytree(good, torn_json)
    shutil.copytree(good, torn_weights)
    (torn_json / "policy.json").write_text('{"kind": "full", "ba')
    weights = torn_weights / "model" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    torn_body = tmp_path / "torn_body"  # the header intact, the tensors cut short
    shutil.copytree(good, torn_body)
    body = torn_body / "model" / "model.safetensors"
    body.write_bytes(body.read_bytes()[:-1000])
    for ckpt, bad_file in ((torn_json, torn_json / "policy.json"), (torn_weights, weights), (torn_body, body)):
        for check in (lambda c: policy.load_policy(c, device="cpu"), policy.check_saved_policy):
            with pytest.raises(policy.CheckpointError) as e:
                check(str(ckpt))
            assert e.value.path == str(bad_file) and str(bad_file) in str(e.value) and "\n" not in str(e.value)
            assert isinstance(e.value, synth.RunError)
    policy.check_saved_policy(str(good))
    assert policy.load_policy(str(good), device="cpu").base == "tiny"


def test_policy_cli_hub_id_unreachable_fails_fast():
    """`python policy.py --model ORG/NAME` with the hub unreachable (a closed local port stands in for no
    network) and the model not cached: one line, exit 1, within 5 s of starting, naming how to pass a path."""
    t0 = time.time()
    res = run_script(["policy.py", "--prompt-file", KB_TASK, "--model", "drtriton-test/not-cached"],
                     env={"HF_ENDPOINT": "http://127.0.0.1:9", "HF_HUB_OFFLINE": "0"})
    assert time.time() - t0 < 15, "the torch import (seconds on a busy 2-core machine), then <= HUB_PROBE_S"
    assert_one_line(res.returncode, res.stderr, 1, "policy.py: error:", "drtriton-test/not-cached",
                    "cannot be reached", "--model DIR")


def test_check_model_source_kinds(tmp_path, monkeypatch):
    import huggingface_hub.constants

    assert policy.check_model_source(str(tmp_path)) is False  # a local directory
    with pytest.raises(policy.ModelNotFoundError, match="no such directory"):
        policy.check_model_source(str(tmp_path / "missing"))
    with pytest.raises(policy.ModelNotFoundError, match="neither a local directory nor a hub id"):
        policy.check_model_source("not a repo id!")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    t0 = time.time()
    with pytest.raises(policy.ModelLoadError, match="HF_HUB_OFFLINE is set"):
        policy.check_model_source("drtriton-test/not-cached")
    assert time.time() - t0 < 1  # no network attempt at all


# ---------------------------------------------------------------------------------------------------- bench.py

@pytest.mark.parametrize("argv, words", [
    (["kb-ab", "--results", "RUN", "--out", "RUN"], ["kb-ab: give at least two --results"]),
    (["kb-surface", "--tasks", "EMPTY"], ["kb-surface:", "empty.jsonl", "no task records"]),
    (["kb-ab", "--rounds", "x"], ["--rounds", "invalid int value"]),
])
def test_bench_usage_errors(files, capsys, argv, words):
    names = {"RUN": str(files["tmp"]), "EMPTY": files["empty"]}
    code, err = call(bench.main, [names.get(a, a) for a in argv], capsys, prog="bench.py")
    assert_one_line(code, err, 2, *words)


# ---------------------------------------------------------------------------------------------------- --help

@pytest.mark.parametrize("main, argv", [(synth.main, []), (teacher_main([]), []), (ev.main, []), (search.main, []),
                                        (policy.main, []), (bench.main, ["kb-ab"])])
def test_help_shows_each_default_once(main, argv, capsys):
    """--help shows defaults (synth.HelpFormatter), and never twice for one flag."""
    with pytest.raises(SystemExit) as e:
        main(argv + ["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "(default: " in text
    flags = " ".join(text.split()).split(" --")  # one chunk per flag (its name, metavar and help)
    twice = [f for f in flags if f.count("(default:") > 1]
    assert not twice, twice
    if main is synth.main:
        flat = " ".join(text.split())
        assert "--seed SEED master seed; the same seed gives a byte-identical file (default: 0)" in flat
