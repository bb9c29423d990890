"""Mutation test for a cache rule module: which small wrong versions of the rule do the tests miss?

    .venv/bin/python benchmarks/mutate_rules.py prefixlab/cache/rules/llamacpp.py \\
        tests/test_rules_llamacpp*.py tests/test_shipped_recordings.py
    .venv/bin/python benchmarks/mutate_rules.py prefixlab/cache/rules/anthropic.py tests/test_rules_anthropic*.py

mutmut-style, with no extra dependency: each mutant changes one site of the module's AST —
a comparison operator (``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``), an arithmetic operator
(``+`` ↔ ``-``, ``*`` ↔ ``/``), ``and`` ↔ ``or``, a number constant (n → n+1), a call to ``f32``
dropped (the float32 rounding), ``pop(0)`` ↔ ``pop()`` (evict oldest/newest), ``[0]`` ↔ ``[-1]``,
a ``sorted``/``min``/``max`` swapped. It is applied to a temporary copy of the repository (the
worktree is never touched) and the given tests run there; a mutant survives when they all pass.
A benchmark, not a CI step: it runs the tests once per mutant (minutes). ``--list`` prints the
mutants without running them; ``--only N,M`` runs some.

By default the tests are collected once and each mutant runs in a forked child (``--fork``, POSIX):
the child executes the mutated source into the rule's own module object, re-binds every name other
modules imported from it, runs the collected tests until the first failure and exits; the worktree's
files are never written. ``--subprocess`` is the slower, plainer way: a temporary copy of the
repository per run and a fresh pytest per mutant. ``--json FILE`` writes the result for
``benchmarks/mutation_report.py`` (with ``--update``, only the ``--only`` mutants are re-run and replaced
in an existing file: after adding a test for a survivor; the file is written after every mutant, and
``--resume`` goes on with the mutants it does not have yet).
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("prefixlab", "miniagent", "tests", "chapters", "conftest.py", "pyproject.toml")
LINKED = ("data", "labs", "book")

COMPARE_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
                ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
CALL_SWAP = {"min": "max", "max": "min"}


def sites(tree: ast.AST):
    """(description, node path) of every mutation site, in source order."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in COMPARE_SWAP:
                    yield line, f"{type(op).__name__} -> {COMPARE_SWAP[type(op)].__name__}", ("cmp", node, i)
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAP:
            yield line, f"{type(node.op).__name__} -> {BINOP_SWAP[type(node.op)].__name__}", ("bin", node, 0)
        elif isinstance(node, ast.BoolOp):
            yield line, f"{type(node.op).__name__} -> {'Or' if isinstance(node.op, ast.And) else 'And'}", ("bool", node, 0)
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float) and not isinstance(node.value, bool):
            yield line, f"constant {node.value!r} -> {node.value + 1!r}", ("const", node, 0)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "f32" and len(node.args) == 1:
                yield line, "f32(x) -> x (no float32 rounding)", ("f32", node, 0)
            elif node.func.id in CALL_SWAP:
                yield line, f"{node.func.id} -> {CALL_SWAP[node.func.id]}", ("call", node, 0)
            elif node.func.id == "sorted":
                yield line, "sorted(...) -> sorted(..., reverse=True)", ("sorted", node, 0)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"
              and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0):
            yield line, "pop(0) -> pop() (newest instead of oldest)", ("pop", node, 0)
        elif (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
              and node.slice.value == 0):
            yield line, "[0] -> [-1]", ("sub", node, 0)


class _Apply(ast.NodeTransformer):
    def __init__(self, target, kind, index):
        self.target, self.kind, self.index = target, kind, index

    def visit(self, node):
        if node is not self.target:
            return self.generic_visit(node)
        k = self.kind
        if k == "cmp":
            node.ops[self.index] = COMPARE_SWAP[type(node.ops[self.index])]()
        elif k == "bin":
            node.op = BINOP_SWAP[type(node.op)]()
        elif k == "bool":
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif k == "const":
            node.value = node.value + 1
        elif k == "f32":
            return node.args[0]
        elif k == "call":
            node.func.id = CALL_SWAP[node.func.id]
        elif k == "sorted":
            node.keywords.append(ast.keyword("reverse", ast.Constant(True)))
        elif k == "pop":
            node.args = []
        elif k == "sub":
            node.slice = ast.Constant(-1)
        return node


def fingerprint(source: str) -> str:
    """sha256 of the module's code without docstrings or comments: the mutants depend on nothing else."""
    import hashlib
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if (isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
                and isinstance(node.body[0].value.value, str)):
            node.body = node.body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()


def mutants(source: str):
    tree = ast.parse(source)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = sorted(((line, desc, site) for line, desc, site in sites(tree) if id(site[1]) not in docstrings),
                   key=lambda x: x[0])
    for n, (line, desc, (kind, node, index)) in enumerate(found):
        mutated = copy.deepcopy(tree)
        # find the same node in the copy by walking both trees in step
        twin = next(b for a, b in zip(ast.walk(tree), ast.walk(mutated)) if a is node)
        mutated = ast.fix_missing_locations(_Apply(twin, kind, index).visit(mutated))
        yield n, line, desc, ast.unparse(mutated)


def module_name(module: Path) -> str:
    return ".".join(module.with_suffix("").parts)


class _ForkRunner:
    """A pytest plugin: after collection, run every mutant's tests in a forked child."""

    def __init__(self, module: Path, todo, timeout: float, on_result=None):
        self.module, self.todo, self.timeout, self.on_result = module, todo, timeout, on_result
        self.results: list[tuple[int, int, str, str]] = []
        self.killers: dict[int, str | None] = {}
        self.collected: list[str] = []

    def _apply(self, mutated: str) -> None:
        mod = importlib.import_module(module_name(self.module))
        if Path(mod.__file__).resolve() != (ROOT / self.module).resolve():
            raise RuntimeError(f"{mod.__name__} was imported from {mod.__file__}, not from {ROOT}")
        old = dict(vars(mod))
        exec(compile(mutated, str(ROOT / self.module), "exec"), vars(mod))
        swap = {id(v): vars(mod)[k] for k, v in old.items()
                if k in vars(mod) and vars(mod)[k] is not v and not k.startswith("__")}
        for other in list(sys.modules.values()):
            if other is mod or other is None:
                continue
            try:
                names = list(vars(other).items())
            except TypeError:
                continue
            for k, v in names:
                if id(v) in swap and swap[id(v)] is not v:
                    try:
                        setattr(other, k, swap[id(v)])
                    except (AttributeError, TypeError):
                        pass

    def _child(self, session, mutated: str, out: int) -> int:
        from _pytest.runner import runtestprotocol
        signal.alarm(int(self.timeout))  # a mutant that loops forever counts as killed
        self._apply(mutated)
        items = session.items
        for i, item in enumerate(items):
            nxt = items[i + 1] if i + 1 < len(items) else None
            reports = runtestprotocol(item, log=False, nextitem=nxt)
            if any(r.failed for r in reports):
                os.write(out, item.nodeid.encode())  # the test that killed it
                return 1
        return 0

    def pytest_runtestloop(self, session):
        if not session.items:
            raise SystemExit("no tests collected")
        self.collected = [item.nodeid for item in session.items]
        # control: the unmutated source, through the same exec and re-binding, must pass
        control = [(-1, 0, "unmutated source (control)", (ROOT / self.module).read_text(encoding="utf-8"))]
        for n, line, desc, mutated in control + list(self.todo):
            sys.stdout.flush()
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                code = 2
                try:
                    os.close(read_end)
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, 1)
                    os.dup2(devnull, 2)
                    code = self._child(session, mutated, write_end)
                except BaseException:
                    code = 3
                finally:
                    os._exit(code)
            os.close(write_end)
            with os.fdopen(read_end, "rb") as pipe:
                killer = pipe.read().decode() or None
            _, status = os.waitpid(pid, 0)
            killed = not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
            how = "killed" if killed else "SURVIVED"
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
                how = "killed (timeout)"
            if n == -1:
                if killed:
                    raise SystemExit(f"the unmutated source fails the tests in a forked child ({how}); "
                                     "run the tests alone, or use --subprocess")
                continue
            self.results.append((n, line, desc, how))
            self.killers[n] = killer
            print(f"{n:3d}  {self.module}:{line}  {desc}: {how}", flush=True)
            if self.on_result:
                self.on_result(self.results, self.killers, self.collected)
        return True


def run_forked(module: Path, todo, tests, timeout: float, on_result=None):
    import pytest
    runner = _ForkRunner(module, todo, timeout, on_result)
    code = pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not server", *tests], plugins=[runner])
    if code not in (0, pytest.ExitCode.OK) and not runner.results:
        raise SystemExit(f"collection failed (pytest exit {code}); run the tests alone to see why")
    return runner.results, runner.killers, runner.collected


def run_subprocess(module: Path, todo, tests):
    source = (ROOT / module).read_text(encoding="utf-8")
    results = []
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        work = Path(tmp)
        for name in COPIED:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, work / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif src.exists():
                shutil.copy2(src, work / name)
        for name in LINKED:
            if (ROOT / name).exists():
                (work / name).symlink_to(ROOT / name)
        target = work / module
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        for n, line, desc, mutated in todo:
            target.write_text(mutated, encoding="utf-8")
            result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                     "-m", "not server", *tests], cwd=work, capture_output=True, text=True, env=env)
            how = "killed" if result.returncode != 0 else "SURVIVED"
            results.append((n, line, desc, how))
            print(f"{n:3d}  {module}:{line}  {desc}: {how}", flush=True)
        target.write_text(source, encoding="utf-8")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the rule module, e.g. prefixlab/cache/rules/llamacpp.py")
    parser.add_argument("tests", nargs="+", help="the tests that should kill its mutants")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--only", default="", help="comma-separated mutant numbers")
    parser.add_argument("--subprocess", action="store_true", help="a temporary copy and a fresh pytest per mutant")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant (fork mode)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--update", action="store_true",
                        help="with --json and --only: replace those mutants' results in the existing file")
    parser.add_argument("--resume", action="store_true",
                        help="with --json: skip the mutants the file already has (the file is written after each one)")
    args = parser.parse_args()
    module = Path(args.module)
    source = (ROOT / module).read_text(encoding="utf-8")
    chosen = {int(x) for x in args.only.split(",") if x}
    todo = [m for m in mutants(source) if not chosen or m[0] in chosen]
    if args.list:
        for n, line, desc, _ in todo:
            print(f"{n:3d}  {module}:{line}  {desc}")
        return 0
    path = Path(args.json) if args.json else None
    base_rows, selected, base_collected = [], (sorted(chosen) if chosen else "all"), []
    if path and (args.update or args.resume) and path.exists():
        # keep an earlier run's results (same code, same test files): re-run only some, or go on after a stop
        old = json.loads(path.read_text(encoding="utf-8"))
        if old["code_sha256"] != fingerprint(source) or old["tests"] != list(args.tests):
            raise SystemExit(f"{path}: made from other code or other test files; run it whole")
        base_rows, base_collected = old["results"], old.get("collected", [])
        selected = old["selected"] if args.update else selected
        if args.resume:
            done = {r["n"] for r in base_rows}
            todo = [m for m in todo if m[0] not in done]

    def save(results, killers, collected):
        if path is None:
            return
        rows = [{"n": n, "line": line, "mutation": desc, "outcome": how,
                 **({"killed_by": killers[n]} if killers.get(n) else {})} for n, line, desc, how in results]
        redone = {r["n"] for r in rows}
        rows = sorted([r for r in base_rows if r["n"] not in redone] + rows, key=lambda r: r["n"])
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({
            "module": str(module), "code_sha256": fingerprint(source), "tests": list(args.tests),
            "selected": selected, "mutants": len(rows),
            "killed": sum(r["outcome"] != "SURVIVED" for r in rows),
            "collected": collected or base_collected, "results": rows,
        }, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)

    killers: dict[int, str | None] = {}
    collected: list[str] = []
    if args.subprocess or not hasattr(os, "fork"):
        results = run_subprocess(module, todo, args.tests)
    else:
        os.chdir(ROOT)
        sys.path.insert(0, str(ROOT))
        results, killers, collected = run_forked(module, todo, args.tests, args.timeout, save)
    save(results, killers, collected)
    survivors = [r for r in results if r[3] == "SURVIVED"]
    print(f"{len(results) - len(survivors)} of {len(results)} mutants killed; {len(survivors)} survived")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
