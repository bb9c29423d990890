"""miniagent's structure: no import cycles, a concept map that names every module, a loop that
chapter A1 can read alone, and lesson variants the core does not depend on.

Imports are read from the source (AST), every one of them: at the top of a module and inside
functions alike, since a function-level import is still a dependency (and hides a cycle).
"""
from __future__ import annotations

import ast
from pathlib import Path

import miniagent

PACKAGE = Path(miniagent.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> set[str]:
    """The modules of miniagent that ``name`` imports, anywhere in its source."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # ``from . import x`` imports the module x when there is one, else a name from the package
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        found |= {t for t in targets if t in MODULES and t != name}
    return found


GRAPH = {name: imports(name) for name in MODULES}


def cycles() -> list[list[str]]:
    """Every import cycle found by a depth-first search (each reported once, from where it is entered)."""
    found, state = [], {}  # state: 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(GRAPH[name]):
            if state.get(target) == 1:
                found.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    return found


def test_the_import_reader_sees_relative_and_function_level_imports(tmp_path):
    probe = tmp_path / "probe.py"  # no miniagent module imports inside a function today: a probe does
    probe.write_text("def run():\n    from .cli import main\n    return main\n", encoding="utf-8")
    MODULES["miniagent.probe"] = probe
    try:
        assert imports("miniagent.probe") == {"miniagent.cli"}
    finally:
        del MODULES["miniagent.probe"]
    assert "miniagent.injection" in GRAPH["miniagent.variants.memory_timing"]  # from ..injection
    assert "miniagent.variants.select_memory" in GRAPH["miniagent.variants.retrieve_memory"]  # from .select_memory


def test_miniagent_has_no_import_cycles():
    assert cycles() == []


def test_the_cycle_finder_finds_a_cycle():
    GRAPH["miniagent.loop"].add("miniagent.cli")  # cli -> loop -> cli
    try:
        assert any(c[0] == c[-1] and {"miniagent.loop", "miniagent.cli"} <= set(c) for c in cycles())
    finally:
        GRAPH["miniagent.loop"].discard("miniagent.cli")


def test_the_chapter_map_names_every_module_once():
    """miniagent/CHAPTERS is the package's map (module, chapter, one line): every module, nothing else."""
    listed = [line.split()[0] for line in (PACKAGE / "CHAPTERS").read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    assert len(listed) == len(set(listed))
    assert set(listed) == {path.relative_to(PACKAGE).as_posix() for path in MODULES.values()}


def test_the_loop_can_be_read_alone():
    """Chapter A1 reads loop.py: it stores the conversation in a session and knows no later chapter."""
    assert GRAPH["miniagent.loop"] == {"miniagent.session"}
    source = MODULES["miniagent.loop"].read_text(encoding="utf-8")
    code = source.split('"""', 2)[2]  # what follows the docstring
    for later in ("compact", "memory", "injection", "agents_md", "skill", "summar"):
        assert later not in code.lower(), f"loop.py's code mentions {later!r}"
    run_task = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "run_task")
    assert run_task.end_lineno - run_task.lineno + 1 <= 30  # the waist stays narrow


def test_the_core_does_not_depend_on_the_lesson_variants():
    """Only the --mode registry (and the package's own map) imports a variant."""
    allowed = {"miniagent", "miniagent.modes"}
    for name, targets in GRAPH.items():
        if name.startswith("miniagent.variants") or name in allowed:
            continue
        assert not {t for t in targets if t.startswith("miniagent.variants")}, name
