"""The repository stays a code repository: run outputs and the lab notebook live on the `lab` branch
(checked out as a worktree in lab/, which main ignores), and the tracked tree stays small enough to read,
clone and carry to a device machine (64 MiB a call)."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACKED_LIMIT_BYTES = 5_000_000


def tracked_files() -> list:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout ({e})")
    return [p for p in out.stdout.decode().split("\0") if p]


def test_no_run_outputs_are_tracked():
    outputs = [p for p in tracked_files() if p.split("/")[0] in ("results", "runs", "lab") or p == "LOG.md"]
    assert not outputs, f"run outputs belong on the lab branch, not main: {outputs[:5]}"


def test_tracked_tree_is_small():
    sizes = {p: os.path.getsize(os.path.join(ROOT, p)) for p in tracked_files()
             if os.path.isfile(os.path.join(ROOT, p))}
    total = sum(sizes.values())
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    assert total <= TRACKED_LIMIT_BYTES, f"tracked tree is {total:,} bytes (limit {TRACKED_LIMIT_BYTES:,}); largest: {largest}"
