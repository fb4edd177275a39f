"""The pipeline's KernelBench evaluation: with --pipeline-kernelbench-eval every checkpoint (SFT, each RL
run) and the teacher are judged by eval.py on the KernelBench level folders, and report.md gets one table of them.
CPU, a very small stand-in model and the shrunk KernelBench files of tests/kernelbench_small, two per level."""
import json
import os

import pytest

import eval as eval_lib
import pipeline
import train

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "kernelbench_small")  # KernelBench files, sizes shrunk, code as written
TINY_FLAGS = ["--tiny-vocab", "400", "--tiny-hidden", "32", "--tiny-layers", "1", "--tiny-heads", "2",
              "--tiny-kv-heads", "1", "--tiny-intermediate", "64", "--tiny-max-positions", "8192"]
KB_FLAGS = ["--kernelbench", SMALL, "--pipeline-kernelbench-eval", "1,2", "--pipeline-kernelbench-limit", "2"]
# the first two files by name of each level folder (eval.py --limit 2 takes them in sorted order)
FIRST_TWO = {"1": ["10_3D_tensor_matrix_multiplication", "11_4D_tensor_matrix_multiplication"],
             "2": ["12_Gemm_Multiply_LeakyReLU", "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp"]}


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.slow
def test_pipeline_evaluates_checkpoints_and_teacher_on_kernelbench(tmp_path, capsys):
    out = tmp_path / "run"
    flags = ["--out", str(out), "--device", "cpu", "--pipeline-ops", "unary", "--pipeline-tasks", "8",
             "--pipeline-eval-tasks", "2", "--levels", "1", "--pipeline-sft-steps", "2", "--micro-batch", "4",
             "--eval-every", "0", "--rl-steps", "1", "--prompts-per-step", "2", "--group-size", "2",
             "--rollout-max-new-tokens", "16", "--rl-heldout-per-level", "1", "--pipeline-ablation-loss", "grpo",
             "--judge-workers", "2", "--pipeline-max-seq-len", "8192", *TINY_FLAGS, *KB_FLAGS,
             "--pipeline-kernelbench-search", "2", "--pipeline-kernelbench-search-budget", "3",
             "--pipeline-parallel-ablation", "--pipeline-rl-seeds", "1"]
    assert pipeline.main(flags) == 0
    stdout = capsys.readouterr().out
    # the GRPO ablation ran in a process of its own (SideStage), beside DRPO: its stages, evals and rows came back
    stages = json.load(open(out / "run.json"))["summary"]["stages"]
    assert {stages[k].get("parallel") for k in ("rl_grpo", "eval-rl_grpo", "eval-rl_grpo-kb")} == {True}
    assert "parallel" not in stages["rl"] and "parallel" not in stages["eval-rl-kb"]
    side_log = (out / "rl_grpo.log").read_text()
    assert "=== rl_grpo: 1 GRPO steps" in side_log and "=== eval-rl_grpo-kb done" in side_log
    assert "=== rl_grpo: GRPO from the same SFT checkpoint" in stdout and "=== rl_grpo: 1 GRPO steps" not in stdout
    assert (out / "rl_grpo" / "side_stage.json").is_file() and (out / ".kernelbench_level1.lock").is_file()
    assert "- **rl_grpo** (" in (out / "report.md").read_text() and "s, in its own process beside" in \
        (out / "report.md").read_text().split("- **rl_grpo** (")[1].split("\n")[0]

    for name in ("teacher", "sft", "rl", "rl_grpo"):
        for level, task_ids in FIRST_TWO.items():
            eval_dir = out / f"eval_{name}_kb{level}"
            rows = read_jsonl(eval_dir / "results.jsonl")
            assert [r["task_id"] for r in rows] == task_ids and {r["level"] for r in rows} == {level}
            eval_args = json.load(open(eval_dir / "run.json"))["args"]
            assert eval_args["tasks"] == os.path.join(SMALL, f"level{level}")
            assert eval_args["baseline"] == "eager" and eval_args["limit"] == 2 and eval_args["timeout_s"] == 120.0
            assert eval_args["chunk_size"] == pipeline.KB_CHUNK  # a level in one chunk
            # SFT is evaluated as the policy it hands RL: its kept best (train.py --sft-keep-best)
            want = {"teacher": "teacher", "sft": str(out / "sft" / "best")}.get(name, str(out / name))
            assert eval_args["policy"] == want
            # an RL checkpoint's answer identical to the SFT checkpoint's takes its verdict
            assert eval_args["reuse_verdicts"] == (str(out / f"eval_sft_kb{level}") if name.startswith("rl")
                                                   else None)
        if name != "teacher":  # level 2 once more with the test-time search, the checkpoint proposing fragments
            eval_dir = out / f"eval_{name}_kb2_search"
            assert [r["task_id"] for r in read_jsonl(eval_dir / "results.jsonl")] == FIRST_TWO["2"]
            eval_args = json.load(open(eval_dir / "run.json"))["args"]
            assert eval_args["search"] and eval_args["search_budget"] == 3
            assert eval_args["search_order"] == "epilogue-first"
            assert eval_args["policy"] == (str(out / "sft" / "best") if name == "sft" else str(out / name))
            assert (eval_args["search_beam"], eval_args["time_budget_s"], eval_args["workers"],
                    eval_args["chunk_size"]) == (2, 0.3, 2, 50)  # search_argv's flags win over kernelbench_argv's
            assert all(s["search"] is not None for s in read_jsonl(eval_dir / "samples.jsonl"))
    kb = json.load(open(out / "run.json"))["summary"]["kernelbench"]
    assert set(kb) == {"teacher", "sft", "rl", "rl_grpo"}
    assert "2+search" not in kb["teacher"] and kb["sft"]["2+search"]["n_tasks"] == 2
    for level in ("1", "2"):  # the teacher compiles all four programs correctly; on CPU speed is not measured
        assert kb["teacher"][level]["n_tasks"] == 2 and kb["teacher"][level]["acc"] == 1.0
        assert kb["teacher"][level]["acc_kb_tol"] == 1.0 and kb["teacher"][level]["speed_measured"] is False
        assert kb["sft"][level]["n_tasks"] == 2 and kb["sft"][level]["out"] == str(out / f"eval_sft_kb{level}")
    report = (out / "report.md").read_text()
    table = report[report.index("## KernelBench"):report.index("## Curves")]
    lines = [line for line in table.splitlines() if line.startswith("|")]
    assert lines[0].startswith("| policy | L1 tasks | L1 Acc | L1 Acc at 1e-4 | L1 fast_1 | L1 geomean | L2 tasks |")
    assert "| L2+search tasks | L2+search Acc |" in lines[0]
    assert lines[2] == ("| teacher | 2 | 100.0% | 100.0% | not measured | not measured "
                        "| 2 | 100.0% | 100.0% | not measured | not measured | - | - | - | - | - |")
    assert [line.split(" | ")[0] for line in lines[2:]] == ["| teacher", "| sft", "| rl", "| rl_grpo"]
    assert all(line.split(" | ")[1] == "2" for line in lines[2:])
    assert "KernelBench acc: teacher L1 100.0% L2 100.0%, sft L1 " in stdout
    assert "eval-rl_grpo-kb" in json.load(open(out / "run.json"))["summary"]["stages"]


def test_teacher_rows_read_from_an_earlier_sweep(tmp_path):
    """--pipeline-kernelbench-teacher DIR{level}: an H200 sweep's results.jsonl, limited to the files the
    checkpoints are judged on (a row outside them is left out; a task the sweep lacks is counted missing)."""
    def row(task_id, level, correct, speedup, flags=()):
        return {"task_id": task_id, "level": level, "compiled": True, "correct": correct, "speedup": speedup,
                "flags": list(flags)}

    sweep = {"1": [row(FIRST_TWO["1"][0], "1", True, 2.0), row(FIRST_TWO["1"][1], "1", True, 0.5, ["fails_kb_tol"]),
                   row("1_Square_matrix_multiplication_", "1", True, 4.0)],  # not among the first two: left out
             "2": [row(FIRST_TWO["2"][0], "2", True, 3.0)]}  # the second level-2 task is missing
    for level, rows in sweep.items():
        os.makedirs(tmp_path / f"level{level}")
        with open(tmp_path / f"level{level}" / "results.jsonl", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    args = pipeline.parse_args(KB_FLAGS + ["--pipeline-kernelbench-teacher", str(tmp_path / "level{level}")])
    kb_levels = pipeline.kernelbench_eval_dirs(args, pipeline.kernelbench_dirs(args))
    assert kb_levels == {"1": os.path.join(SMALL, "level1"), "2": os.path.join(SMALL, "level2")}
    teacher = pipeline.kernelbench_teacher(args, kb_levels, str(tmp_path / "run"))
    # level 1: 2 tasks, both correct (Acc 100%), one within 1e-4 (50%), one faster than eager (fast_1 50%),
    # geomean sqrt(2.0 * 0.5) = 1.00x; level 2: 1 task of 2 found, correct at 3.0x
    assert teacher["1"]["n_tasks"] == 2 and teacher["1"]["missing"] == 0
    assert (teacher["1"]["acc"], teacher["1"]["acc_kb_tol"], teacher["1"]["fast_1"]) == (1.0, 0.5, 0.5)
    assert teacher["1"]["geomean_speedup"] == pytest.approx(1.0)
    assert teacher["2"]["n_tasks"] == 1 and teacher["2"]["missing"] == 1 and teacher["2"]["fast_1"] == 1.0
    lines = pipeline.kernelbench_table({"sft": {"1": {"n_tasks": 2, "acc": 0.0, "acc_kb_tol": 0.0,
                                                   "speed_measured": False, "unfinished": 0},
                                             "2": {"n_tasks": 1, "acc": 0.0, "acc_kb_tol": 0.0,
                                                   "speed_measured": False, "unfinished": 1}}, "teacher": teacher})
    # a level the sweep covers only in part (missing) or an eval stopped by --pipeline-kernelbench-time-s
    # (unfinished) says so in its tasks cell
    assert lines[2] == ("| teacher | 2 | 100.0% | 50.0% | 50.0% | 1.00x | 1 of 2 (partial) | 100.0% | 100.0% | "
                        "100.0% | 3.00x |")
    assert lines[3] == ("| sft | 2 | 0.0% | 0.0% | not measured | not measured | 1 of 2 (partial) | 0.0% | 0.0% | "
                        "not measured | not measured |")


@pytest.mark.parametrize("flags, message", [
    (["--pipeline-kernelbench-eval", "3"], "--pipeline-kernelbench-eval must be '' (off) or a comma list of the "
                                           "KernelBench levels 1, 2"),
    (["--pipeline-kernelbench-eval", "1,one"], "(got '1,one')"),
    (["--pipeline-kernelbench-eval", "1,1"], "(got '1,1')"),
    (["--pipeline-kernelbench-limit", "0"], "--pipeline-kernelbench-limit must be > 0"),
    (["--pipeline-kernelbench-eval", "1", "--pipeline-kernelbench-search", "2"],
     "--pipeline-kernelbench-search must be '' (off) or a comma list of levels that --pipeline-kernelbench-eval"),
    (["--pipeline-kernelbench-eval", "2", "--pipeline-kernelbench-search", "2", "--pipeline-kernelbench-search-budget",
      "0"], "--pipeline-kernelbench-search-budget must be >= 1"),
    (["--pipeline-kernelbench-workers", "0"], "--pipeline-kernelbench-workers must be >= 1"),
    (["--pipeline-kernelbench-time-s", "0"], "--pipeline-kernelbench-time-s must be > 0"),
    (["--pipeline-kernelbench-eval", "1", "--pipeline-kernelbench-teacher", "results/kb"],
     "folder pattern with {level}"),
    (["--pipeline-kernelbench-eval", "1", "--pipeline-kernelbench-teacher", "/nonexistent/level{level}"],
     "no eval.py results for level 1"),
])
def test_bad_kernelbench_flags_exit_2(flags, message, capsys):
    with pytest.raises(SystemExit) as e:
        pipeline.main(flags)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_search_of_one_checkpoint_only(tmp_path, monkeypatch):
    """--pipeline-kernelbench-search-checkpoints sft: an RL checkpoint gets its single-shot KernelBench evals and no
    search; rl (gpu-small's): the main RL checkpoint alone is searched, neither the SFT one nor the ablation's; all
    (the default) searches with every checkpoint."""
    seen = []

    def evaluate(args, tasks, policy, out, argv):
        seen.append((os.path.basename(out), "--search" in argv))
        return {"overall": {"n_tasks": 0}, "out": out}

    monkeypatch.setattr(pipeline, "evaluate", evaluate)
    base = ["--pipeline-kernelbench-eval", "2", "--pipeline-kernelbench-search", "2"]
    for flag, want in (("sft", [("eval_rl_kb2", False)]),
                       ("all", [("eval_rl_kb2", False), ("eval_rl_kb2_search", True)])):
        seen.clear()
        args = pipeline.parse_args(base + ["--pipeline-kernelbench-search-checkpoints", flag])
        got = pipeline.evaluate_kernelbench(args, {"2": "kb/level2"}, "ckpt", str(tmp_path), "rl")
        assert seen == want and ("2+search" in got) == (flag == "all")
        seen.clear()
        pipeline.evaluate_kernelbench(args, {"2": "kb/level2"}, "ckpt", str(tmp_path), "sft")
        assert seen == [("eval_sft_kb2", False), ("eval_sft_kb2_search", True)]
    args = pipeline.parse_args(base + ["--pipeline-kernelbench-search-checkpoints", "rl"])
    for name, searched in (("sft", False), ("rl", True), ("rl_grpo", False)):
        seen.clear()
        got = pipeline.evaluate_kernelbench(args, {"2": "kb/level2"}, "ckpt", str(tmp_path), name)
        assert seen == [(f"eval_{name}_kb2", False)] + ([(f"eval_{name}_kb2_search", True)] if searched else [])
        assert ("2+search" in got) == searched
    assert pipeline.parse_args(["--preset", "gpu-small"]).pipeline_kernelbench_search_checkpoints == "rl"


def test_defaults_and_a_missing_benchmark(capsys):
    assert pipeline.parse_args([]).pipeline_kernelbench_eval == ""  # the CPU default run does not grow
    # KernelBench evals judge with fewer, larger workers: --pipeline-kernelbench-workers, never above --judge-workers
    argv = pipeline.kernelbench_argv(pipeline.parse_args(["--judge-workers", "8"]))
    assert argv[argv.index("--workers") + 1] == "4"
    argv = pipeline.kernelbench_argv(pipeline.parse_args(["--judge-workers", "2"]))
    assert argv[argv.index("--workers") + 1] == "2" and "--stop-after-s" not in argv
    assert argv[argv.index("--chunk-size") + 1] == "100"  # level 1's exclusive retries are not split in two rounds
    argv = pipeline.kernelbench_argv(pipeline.parse_args(["--pipeline-kernelbench-time-s", "300"]))
    assert argv[argv.index("--stop-after-s") + 1] == "300" and "--max-new-tokens" not in argv
    # gpu-small's KernelBench answers may run longer than its rollouts (a 3-D conv's ~1,600 tokens), and the
    # flag overrides evaluate()'s --max-new-tokens (eval.py takes a flag's last value)
    argv = pipeline.kernelbench_argv(pipeline.parse_args(["--preset", "gpu-small"]))
    assert argv[argv.index("--max-new-tokens") + 1] == "3072"
    assert eval_lib.build_parser().parse_args(["--tasks", "t", "--policy", "p", "--out", "o", "--max-new-tokens", "1536"]
                                              + argv).max_new_tokens == 3072
    with pytest.raises(SystemExit):
        pipeline.parse_args(["--pipeline-kernelbench-max-new-tokens", "0"])
    assert pipeline.parse_args(["--preset", "gpu-small"]).pipeline_kernelbench_eval == "1,2"
    assert pipeline.parse_args(["--preset", "gpu-small"]).pipeline_kernelbench_search == "2"
    assert pipeline.parse_args([]).pipeline_kernelbench_search == ""
    args = pipeline.parse_args(["--kernelbench", "none", "--pipeline-kernelbench-eval", "1,2"])
    assert pipeline.kernelbench_eval_dirs(args, pipeline.kernelbench_dirs(args)) == {}
    assert "KernelBench eval skipped: no KernelBench folder (--kernelbench)" in capsys.readouterr().out
    args = pipeline.parse_args(["--kernelbench", SMALL, "--pipeline-kernelbench-eval", "2"])
    assert pipeline.kernelbench_eval_dirs(args, [os.path.join(SMALL, "level1")]) == {}
    assert "KernelBench eval of level 2 skipped: no level2/ folder" in capsys.readouterr().out


def test_pipeline_style_renders_tasks_like_kernelbench(tmp_path):
    """--pipeline-style kernelbench (gpu-small's; tiny stays plain): the pipeline's tasks are the same programs
    (same ids and structure hashes as the plain style) written in KernelBench's surface variety, so a model trained
    on them meets sources like the benchmark's; the teacher compiles them as before."""
    import synth
    import teacher

    def tasks(style, sub):
        args = pipeline.parse_args(["--out", str(tmp_path / sub), "--device", "cpu", "--pipeline-ops", "unary",
                                    "--pipeline-tasks", "6", "--pipeline-eval-tasks", "2", "--levels", "1",
                                    "--judge-workers", "1", "--pipeline-style", style])
        os.makedirs(tmp_path / sub, exist_ok=True)
        return [synth.read_tasks(p) for p in pipeline.synth_pipeline_tasks(args, str(tmp_path / sub))]

    plain, styled = tasks("plain", "p"), tasks("kernelbench", "k")
    for a, b in zip(plain, styled):
        assert [r["id"] for r in a] == [r["id"] for r in b] and [r["hash"] for r in a] == [r["hash"] for r in b]
    pairs = [(p["source"], k["source"]) for a, b in zip(plain, styled) for p, k in zip(a, b)]
    assert all(s != t for s, t in pairs) and sum('"""' in t for _, t in pairs) >= len(pairs) // 2
    teacher.compile_program(styled[0][0])  # the teacher reads the styled source's __init__ and sizes
    assert train.PRESETS["gpu-small"]["pipeline_style"] == "kernelbench"
    assert train.PRESETS["tiny"].get("pipeline_style", "plain") == "plain"


def test_pipeline_rl_size_grows_the_rl_tasks_only(tmp_path):
    """--pipeline-rl-size gpu (gpu-small's): the RL file holds the same programs (ids, hashes) rendered at synth's
    "gpu" sizes, each with its cpu-size source kept as validated_source, while the SFT and eval files are
    byte-identical to a cpu-size run's, so the teacher's pairs and their verdict cache are untouched."""
    import synth

    def run(size, sub):
        args = pipeline.parse_args(["--out", str(tmp_path / sub), "--device", "cpu", "--pipeline-ops", "softmax,matmul",
                                    "--pipeline-tasks", "8", "--pipeline-eval-tasks", "2", "--levels", "1,2",
                                    "--pipeline-rl-tasks", "3", "--judge-workers", "1", "--pipeline-style",
                                    "kernelbench", "--pipeline-rl-size", size])
        os.makedirs(tmp_path / sub, exist_ok=True)
        return pipeline.synth_pipeline_tasks(args, str(tmp_path / sub))

    small, big = run("cpu", "c"), run("gpu", "g")
    for i in (0, 2):  # SFT and eval tasks: the same bytes
        assert open(small[i], "rb").read() == open(big[i], "rb").read()
    rl_small, rl_big = synth.read_tasks(small[1]), synth.read_tasks(big[1])
    assert [r["id"] for r in rl_small] == [r["id"] for r in rl_big]
    assert [r["hash"] for r in rl_small] == [r["hash"] for r in rl_big]
    assert [r["source"] for r in rl_small] == [r["validated_source"] for r in rl_big]
    assert {r["level"] for r in rl_big} == {1, 2}
    grown = [b for a, b in zip(rl_small, rl_big) if b["bytes"] > 100 * a["bytes"]]
    assert len(grown) >= len(rl_big) - 1, [(a["bytes"], b["bytes"]) for a, b in zip(rl_small, rl_big)]
    assert train.PRESETS["gpu-small"]["pipeline_rl_size"] == "gpu"
    assert pipeline.parse_args([]).pipeline_rl_size == "cpu"


def test_kernelbench_level1_evals_run_one_at_a_time(tmp_path):
    """kernelbench_lock: a second holder of level 1's lock (another stage's eval) cannot get it; level 2 takes none."""
    import fcntl

    with pipeline.kernelbench_lock(str(tmp_path), "1"):
        with open(tmp_path / ".kernelbench_level1.lock") as other, pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(tmp_path / ".kernelbench_level1.lock") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again
        with pipeline.kernelbench_lock(str(tmp_path), "2"):
            pass  # level 2 does not wait for level 1's holder


class FailingPipeline(pipeline.Pipeline):
    """A side stage whose RL run dies (spawned: the child imports this module by name)."""

    def rl(self, name, loss, sft_dir, rl_path):
        print("side stage starting", flush=True)
        raise RuntimeError("the side stage broke")


def test_a_failed_side_stage_is_reported_not_merged(tmp_path):
    """SideStage: a stage that dies in its own process leaves the pipeline's dicts as they were, and join says what
    broke and where its log is (run_all then writes the report and exits 2)."""
    pipe = FailingPipeline(pipeline.parse_args([]), str(tmp_path), "eval.jsonl", {})
    side = pipeline.SideStage(pipe, "rl_grpo", "grpo", str(tmp_path / "sft"), "rl.jsonl")
    error = side.join()
    assert "the rl_grpo stage failed (exit code 1)" in error and "rl_grpo.log" in error
    log = (tmp_path / "rl_grpo.log").read_text()
    assert "side stage starting" in log and "RuntimeError: the side stage broke" in log
    assert pipe.evals == {} and pipe.kernelbench == {} and "rl_grpo" not in pipe.stages
