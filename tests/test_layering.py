"""The files form a ladder (shared/DESIGN.md "Files"): each imports only files below it in LADDER,
at module level and inside functions alike, so no import circle can form."""
import ast
import glob
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LADDER = ["synth", "teacher", "reward", "policy", "search", "eval", "train", "bench", "pipeline"]


def sibling_imports(path):
    """(line, sibling) for every `import X` / `from X import ...` of a top-level file, at module level or in a
    function. Left out: the `if __name__ == "__main__":` block, a script's entry point, which no file imports."""
    body = [n for n in ast.parse(open(path).read()).body
            if not (isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))]
    for node in (sub for top in body for sub in ast.walk(top)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
        yield from ((node.lineno, n.split(".")[0]) for n in names if n.split(".")[0] in LADDER)


def test_every_import_points_down_the_ladder():
    files = {os.path.basename(p)[:-3]: p for p in glob.glob(os.path.join(ROOT, "*.py"))}
    assert set(files) == set(LADDER), f"a new top-level file needs a rung in LADDER: {set(files) ^ set(LADDER)}"
    upward = [f"{name}.py:{line} imports {dep}" for name in LADDER for line, dep in sibling_imports(files[name])
              if LADDER.index(dep) >= LADDER.index(name)]
    assert not upward, "imports that do not point down synth -> ... -> bench:\n" + "\n".join(upward)


def test_the_ladder_test_catches_an_upward_import(tmp_path, monkeypatch):
    """The check fails when someone adds `import train` to search.py (in a function, too)."""
    with open(os.path.join(ROOT, "search.py")) as f:
        text = f.read()
    bad = tmp_path / "search.py"
    bad.write_text(text + "\n\ndef _sneaky():\n    import train\n")
    assert ("train" in {dep for _, dep in sibling_imports(str(bad))})
    assert "train" not in {dep for _, dep in sibling_imports(os.path.join(ROOT, "search.py"))}
