"""The files form a ladder (shared/DESIGN.md "Files"; issue 22): each imports only files below it in LADDER,
at module level and inside functions alike, so no import circle can form."""
import ast
import glob
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LADDER = ["synth", "teacher", "reward", "policy", "search", "eval", "train", "bench"]
# Issue 22, not done yet: teacher.py's main() imports the judge and the prompt for its verifying command line; they
# move to its `__main__` entry point once a concurrent edit of teacher.py has landed. Empty this set then.
PENDING = {("teacher", "policy"), ("teacher", "reward")}


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
              if LADDER.index(dep) >= LADDER.index(name) and (name, dep) not in PENDING]
    assert not upward, "imports that do not point down synth -> ... -> bench:\n" + "\n".join(upward)
